"""Run every conversation of a dataset through the full turn runtime, one fresh conversation each."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import structlog

from engine.evaluation.dataset import Dataset, DatasetConfig, DatasetConversation, turn_times
from engine.evaluation.errors import EvaluationError
from engine.evaluation.guarantees import turn_violations
from engine.evaluation.metrics import ConversationOutcome, TurnOutcome
from engine.kernel.conversation import Role
from engine.kernel.goal_models import PublishedGoalSpec
from engine.kernel.ports import Answerer, Proposer
from engine.kernel.turn import RoleChoice, TurnRoles, TurnRuntime
from engine.progress import progress
from engine.rules.loader import RuleBundle
from engine.storage.memory import InMemoryStore

log = structlog.get_logger("grace.eval")


@dataclass(frozen=True)
class DemoTarget:
    """What one demo contributes to an evaluation run: its published spec and (optionally) its answerer."""

    name: str
    spec: PublishedGoalSpec
    answerer: Answerer | None = None


@dataclass(frozen=True)
class TurnRow:
    turn: int
    visitor: str
    state: str  # in the dataset config's objective order
    reference: str | None
    scored: bool
    action: str
    question: str | None
    fail_closed: str | None
    rejected: tuple[str, ...] = ()  # "objective:reason" of rejected candidates, for the mismatch diff
    reason_codes: tuple[str, ...] = ()  # reason code of each rejected candidate (validator code if any)
    notes: tuple[str, ...] = ()  # the record's notes (fallback decisions among them)
    llm_calls: tuple[dict[str, Any], ...] = ()  # purpose, status, latency and token counts of each model call
    latency_ms: float = 0.0  # the whole turn, as the record's timings give it
    violations: tuple[str, ...] = ()  # broken guarantees (engine.evaluation.guarantees)


@dataclass(frozen=True)
class ConversationRun:
    id: str
    config: str
    demo: str
    initial: str
    turns: tuple[TurnRow, ...] = field(default_factory=tuple)

    def outcome(self) -> ConversationOutcome:
        return ConversationOutcome(self.id, self.initial, tuple(
            TurnOutcome(t.turn, t.state, t.reference, t.scored) for t in self.turns))


def _demo_key(name: str) -> str:
    return name.replace("_", "-").lower()


def pick_demo(config_name: str, config: DatasetConfig, demos: Mapping[str, DemoTarget], requested: str) -> DemoTarget:
    """--demo NAME, else the demo named like the config (real_estate -> real-estate), else the demo whose
    objective ids are exactly the config's."""
    if requested != "auto":
        if requested not in demos:
            raise EvaluationError(f"unknown demo {requested!r} (known: {', '.join(sorted(demos))})",
                                  code="eval.demo_unknown")
        return demos[requested]
    by_name = demos.get(_demo_key(config_name))
    if by_name is not None:
        return by_name
    wanted = set(config.ids)
    matches = [d for d in demos.values() if {o.id for o in d.spec.spec.objectives} == wanted]
    if len(matches) != 1:
        raise EvaluationError(f"config {config_name!r}: no single demo has objectives {sorted(wanted)}",
                              code="eval.demo_unmatched")
    return matches[0]


def _reorder(state: str, spec_ids: list[str], config_ids: list[str]) -> str:
    return "".join(state[spec_ids.index(oid)] for oid in config_ids)




def _rejection(candidate: Mapping[str, Any]) -> str:
    command = candidate.get("command") or {}
    reason = candidate.get("validator_code") or candidate.get("reason_code")
    return f"{command.get('type')}({command.get('objective')}): {reason}"


_CALL_FIELDS = ("purpose", "status", "latency_ms", "input_tokens", "output_tokens", "attempt")


def _reason(candidate: Mapping[str, Any]) -> str:
    reason = str(candidate.get("reason_code"))
    detail = candidate.get("validator_code")
    return f"{reason}/{detail}" if detail else reason


def run_conversation(
    conversation: DatasetConversation, config: DatasetConfig, target: DemoTarget, *,
    bundle: RuleBundle, proposer: Proposer, audit_key: bytes, roles: RoleChoice | None = None,
    times: list[datetime] | None = None,
) -> ConversationRun:
    """``times``: each turn's ``received_at`` (``dataset.turn_times``); the real clock when absent."""
    spec_ids = [o.id for o in target.spec.spec.ordered()]
    missing = [oid for oid in config.ids if oid not in spec_ids]
    if missing:
        raise EvaluationError(f"{conversation.id}: demo {target.name} has no objective {', '.join(missing)}",
                              code="eval.objective_unmapped")
    runtime = TurnRuntime.with_roles(spec=target.spec, bundle=bundle, roles=TurnRoles(proposer, target.answerer),
                                     choose=roles, store=InMemoryStore(), audit_key=audit_key)
    language = conversation.language or config.language
    if language not in target.spec.spec.languages:
        language = target.spec.spec.default_language
    state = runtime.start(conversation_id=f"eval-{conversation.id}", language=language)
    initial = _reorder(state.state_string(), spec_ids, config.ids)
    rows = []
    for index, turn in enumerate(conversation.turns):
        received_at = times[index] if times is not None else None
        result = runtime.handle(state.conversation_id, turn.visitor, received_at=received_at)
        record = result.record
        refused = [c for c in record.get("candidates", []) if not c.get("accepted")]
        stored = runtime.store.load(state.conversation_id)
        visitor = {m.turn: m.text for m in stored.messages if m.role is Role.VISITOR}
        rows.append(TurnRow(
            turn=turn.turn, visitor=turn.visitor, state=_reorder(result.state, spec_ids, config.ids),
            reference=turn.reference, scored=turn.scored, action=result.action, question=result.question,
            fail_closed=result.fail_closed, rejected=tuple(_rejection(c) for c in refused),
            reason_codes=tuple(_reason(c) for c in refused), notes=tuple(record.get("notes") or ()),
            llm_calls=tuple({k: c.get(k) for k in _CALL_FIELDS} for c in record.get("llm_calls") or ()),
            latency_ms=float((record.get("timings_ms") or {}).get("total_ms") or 0.0),
            violations=tuple(turn_violations(record, spec_ids, visitor)),
        ))
    log.info("eval.conversation.done", conversation=conversation.id, demo=target.name, turns=len(rows))
    return ConversationRun(conversation.id, conversation.config, target.name, initial, tuple(rows))


def run_dataset(
    dataset: Dataset, demos: Mapping[str, DemoTarget], *, bundle: RuleBundle, proposer: Proposer,
    demo: str = "auto", audit_key: bytes | None = None, show_progress: bool = False,
    roles: RoleChoice | None = None, label: str | None = None, now: datetime | None = None,
) -> list[ConversationRun]:
    """``now``: when the conversations happen if the dataset does not say (``--now``); see ``turn_times``."""
    key = audit_key or secrets.token_bytes(32)  # records are sealed in memory only; nothing outlives the run
    runs = []
    conversations = dataset.conversations
    title = f"eval {dataset.name}" + (f" ({label})" if label else "")
    for conversation in progress(conversations, title) if show_progress else conversations:
        config = dataset.configs[conversation.config]
        target = pick_demo(conversation.config, config, demos, demo)
        runs.append(run_conversation(conversation, config, target, bundle=bundle, proposer=proposer,
                                     audit_key=key, roles=roles,
                                     times=turn_times(conversation, dataset, now)))
    return runs
