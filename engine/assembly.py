"""Wiring of the embedded defaults: offline proposer, embedded retrieval, in-memory or given store."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from engine.demos import Demo, load_demo
from engine.goals.models import PublishedGoalSpec
from engine.ports import Answerer, ConversationStore
from engine.rules_bundle import DEFAULT_RULES_DIR, RuleBundle
from engine.store_memory import InMemoryStore
from engine.turn import TurnRuntime
from engine.verified_bundle import load_verified_bundle

AUDIT_KEY_ENV = "GRACE_AUDIT_KEY"


def audit_key_from_env() -> bytes:
    """The audit HMAC key from GRACE_AUDIT_KEY (hex or text); a random per-process key when unset."""
    raw = os.environ.get(AUDIT_KEY_ENV)
    if not raw:
        return secrets.token_bytes(32)
    try:
        return bytes.fromhex(raw)
    except ValueError:
        return raw.encode("utf-8")


def embedded_answerer(corpus_dir: Path, bundle: RuleBundle | None = None) -> Answerer:
    """Hybrid lexical + dense retrieval in process, following the pinned bundle's retrieval rules."""
    from engine.retrieval.factory import build_answerer
    from engine.retrieval.rules import rules_from_bundle

    if bundle is None:
        return build_answerer(corpus_dir)
    return build_answerer(corpus_dir, rules=rules_from_bundle(bundle))


def offline_runtime(
    spec: PublishedGoalSpec,
    *,
    bundle: RuleBundle | None = None,
    answerer: Answerer | None = None,
    store: ConversationStore | None = None,
    audit_key: bytes | None = None,
) -> TurnRuntime:
    from llm_adapters.offline import OfflineProposer

    bundle = bundle or load_verified_bundle(DEFAULT_RULES_DIR)
    return TurnRuntime(
        spec=spec,
        bundle=bundle,
        proposer=OfflineProposer.from_bundle(bundle),
        answerer=answerer,
        store=store or InMemoryStore(),
        audit_key=audit_key or audit_key_from_env(),
    )


def demo_runtime(
    name: str,
    *,
    bundle: RuleBundle | None = None,
    store: ConversationStore | None = None,
    with_answerer: bool = True,
    audit_key: bytes | None = None,
) -> tuple[Demo, TurnRuntime]:
    demo = load_demo(name)
    bundle = bundle or load_verified_bundle(DEFAULT_RULES_DIR)
    answerer = embedded_answerer(demo.corpus_dir, bundle) if with_answerer else None
    return demo, offline_runtime(demo.spec, bundle=bundle, answerer=answerer, store=store, audit_key=audit_key)
