"""Re-decide a recorded conversation under another rule bundle and list the decisions that would change.

Visitor messages come from the conversation store (records never hold them); recorded LLM outputs are
re-played; turns that the offline proposer decided are re-proposed by it (it is deterministic).
"""

from __future__ import annotations

from pathlib import Path

from engine.demos import DEMOS_DIR, demo_company_texts
from engine.errors import InputError
from engine.goals.publication import list_published
from engine.kernel.conversation import Role
from engine.kernel.goal_models import PublishedGoalSpec
from engine.kernel.turn import TurnRuntime
from engine.rules.loader import RuleBundle
from engine.storage.memory import InMemoryStore
from llm_adapters.offline import OfflineProposer
from llm_adapters.replay import Change, ReplayAdapter, replay_decisions
from llm_adapters.runtime_roles import FallbackProposer


def find_spec(goal_ref: str, registries: list[Path]) -> PublishedGoalSpec:
    """The published spec a conversation is pinned to, looked up by its ref in the given registries."""
    roots = registries or [p / "published" for p in sorted(DEMOS_DIR.iterdir()) if (p / "published").is_dir()]
    for root in roots:
        for published in list_published(root):
            if published.ref == goal_ref:
                return published
    raise InputError(f"published goal spec {goal_ref} not found in {', '.join(map(str, roots))}",
                     code="audit.replay.spec_missing")


def replay_stored_conversation(store_url: str, conversation_id: str, bundle: RuleBundle,
                               registries: list[Path], *, audit_key: bytes | None = None) -> list[Change] | None:
    """Decision changes under ``bundle``; ``None`` when the conversation was erased (nothing to replay).

    Encrypted conversations need the deployment's ``audit_key`` to decrypt messages and recorded outputs.
    """
    from audit.vault import open_personal
    from engine.storage import open_store

    store = open_store(store_url, audit_key=audit_key)
    try:
        if store.erasure(conversation_id) is not None:
            return None
        cipher = store.cipher(conversation_id)
        state = store.load(conversation_id)
        records = [open_personal(r, cipher) for r in store.records(conversation_id)]
    finally:
        store.close()
    spec = find_spec(state.goal_ref, registries)
    messages = [m.text for m in state.messages if m.role is Role.VISITOR]
    offline = OfflineProposer.from_bundle(bundle)
    company = demo_company_texts(spec)  # D-10: the same company contacts as when the turns were decided

    def runtime_factory(adapter: ReplayAdapter) -> TurnRuntime:
        return TurnRuntime(spec=spec, bundle=bundle, proposer=FallbackProposer(adapter, offline), answerer=adapter,
                           store=InMemoryStore(), audit_key=b"replay-key-not-used-for-storage!",
                           company_texts=company)

    return replay_decisions(records, runtime_factory, messages=messages, conversation_id=f"replay-{conversation_id}")
