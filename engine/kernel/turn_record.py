"""The per-turn transition record: what an auditor needs, built as an ``audit.record.TransitionRecord`` (so a
malformed record fails where it is made) and serialised once, when it is redacted and sealed into the
conversation's chain."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Any

from audit.chain import SealedHead, checkpoint, seal_dump, state_hash
from audit.record import TransitionRecord
from audit.redaction import redact_record
from audit.stateseal import snapshot
from audit.vault import FieldCipher, protect_record
from engine.kernel.conversation import ConversationState
from engine.kernel.decision.decider import CandidateDecision, Decision
from engine.kernel.goal_models import PublishedGoalSpec
from engine.kernel.policy import ActionUtility
from engine.kernel.ports import GroundedAnswer, Proposal
from engine.rules.loader import RuleBundle

# The fields audit.stateseal.snapshot reads: dumping only these skips the messages (the bulk of a state).
_SNAPSHOT_FIELDS = {"bits", "refused", "stopped", "uncertain", "ask_counts", "last_asked", "values"}


def _snapshot(state: ConversationState) -> dict[str, Any]:
    # One definition for the record and for the verifier's view of the stored state (audit.stateseal).
    return snapshot(state.model_dump(mode="json", include=_SNAPSHOT_FIELDS))


def _real(value: Fraction) -> float:
    # float(Fraction) goes through numbers.Rational.__float__ and two property reads; the one true division
    # of the two ints is the same correctly rounded float, several times cheaper (~36 per record).
    if type(value) is Fraction:
        return value.numerator / value.denominator
    return float(value)


def _utility(action: ActionUtility) -> dict[str, Any]:
    out: dict[str, Any] = {"action": action.action, "U_B": _real(action.u_b), "U_V": _real(action.u_v),
                           "feasible": action.feasible}
    if action.rubric is not None:
        r = action.rubric
        for name, level in (("R", r.relevance), ("B", r.burden), ("D", r.repetition), ("P", r.privacy)):
            out[name] = {"value": _real(level), "rationale": r.rationale.get(name, "")}
    return out


def _candidate(c: CandidateDecision) -> dict[str, Any]:
    span = c.command.get("span") or {}
    witness = None
    if isinstance(span, dict) and isinstance(span.get("turn"), int) and span.get("end", 0) > span.get("start", 0):
        witness = {"turn": span["turn"], "start": span["start"], "end": span["end"]}
    return {
        "command": c.command,
        "accepted": c.accepted,
        "reason_code": c.reason,
        "validator": c.validator,
        "validator_code": c.validator_code,
        "witness": witness,
    }


def _malformed(item: dict[str, Any]) -> dict[str, Any]:
    return {"command": item, "accepted": False, "reason_code": "command.malformed"}


def build_record(
    *,
    spec: PublishedGoalSpec,
    bundle: RuleBundle,
    state_before: ConversationState,
    state_after: ConversationState,
    proposal: Proposal,
    decision: Decision,
    question: str | None,
    answer: GroundedAnswer,
    fail_closed: tuple[str, str] | None,
    timings: dict[str, float],
    received_at: datetime,
    completed_at: datetime,
    extra_notes: list[str] | None = None,
    checked: bool = True,
) -> TransitionRecord:
    """The turn's record; ``checked`` is False for a turn that decided nothing (no invariant check ran)."""
    action = f"ASK({decision.chosen})" if question is not None and decision.chosen else "NONE"
    return TransitionRecord.model_validate({
        "conversation_id": state_before.conversation_id,
        "turn": state_after.turn,
        "timestamps": {"received_at": received_at.isoformat(), "completed_at": completed_at.isoformat()},
        "language": state_before.language,
        "goal_ref": spec.ref,
        "goal_hash": spec.content_hash,
        "bundle_version": bundle.version,
        "bundle_hash": bundle.content_hash,
        "proposer": {"name": proposal.adapter, "version": proposal.adapter_version},
        "llm_calls": list(proposal.calls),
        "candidates": [_candidate(c) for c in decision.candidates] + [_malformed(m) for m in decision.malformed],
        "utilities": [_utility(a) for a in decision.actions],
        "invariant_check": decision.invariant.status if checked else None,
        "notes": list(decision.notes) + list(proposal.notes) + list(extra_notes or []),
        "chosen_action": action,
        "question": question,
        "state_before": _snapshot(state_before),
        "state_after": _snapshot(state_after),
        "answer": {
            "supported": answer.supported,
            "kind": answer.kind,
            "is_question": answer.is_question,
            "citations": [
                {"source": c.source, "passage_id": c.passage_id, "label": c.shown()} for c in answer.citations
            ],
            "carried": list(answer.carried),
        },
        "timings_ms": dict(timings),
        "fail_closed": None if fail_closed is None else {"code": fail_closed[0], "message": fail_closed[1]},
    })


@dataclass(frozen=True)
class Sealed:
    record: dict[str, Any]
    checkpoint: dict[str, Any]


def seal_for_store(
    record: TransitionRecord,
    head: dict[str, Any] | None,
    key: bytes,
    *,
    stored_state: dict[str, Any],
    cipher: FieldCipher | None = None,
) -> Sealed:
    """Redact contact data (encrypt the personal parts when the conversation has a key), chain the record to
    the previous head, and key a new head checkpoint over it and the state as it will be stored. ``record`` may
    come from anywhere (copied, constructed): it is validated again, as stored."""
    return _seal(record, head, key, stored_state, cipher, built=False)


def build_and_seal(
    head: dict[str, Any] | None, key: bytes, *, stored_state: dict[str, Any], cipher: FieldCipher | None = None,
    **fields: Any,
) -> Sealed:
    """``seal_for_store(build_record(**fields), ...)``, what a turn calls. The record is validated where it is
    built, here, and dumped at once: its dump is a fresh dump of a validated frozen model that nobody else holds.
    When redaction (and encryption) leave that dump unchanged, validating it again could only repeat
    build_record's verdict, and is skipped (see ``audit.chain.seal_dump``); otherwise it is validated as stored."""
    return _seal(build_record(**fields), head, key, stored_state, cipher, built=True)


def _seal(record: TransitionRecord, head: dict[str, Any] | None, key: bytes, stored_state: dict[str, Any],
          cipher: FieldCipher | None, built: bool) -> Sealed:
    body = record.model_dump(mode="json")  # the one serialisation of the record
    redacted = redact_record(body, key)
    if cipher is not None:
        redacted = protect_record(body, redacted, cipher)
    prev = None if head is None else SealedHead(head["conversation_id"], int(head["seq"]), str(head["head_hash"]))
    # ``redacted`` is a fresh JSON-mode dump with strings replaced, ours to give. Equal to ``body`` only if no
    # value changed: redaction and encryption turn strings into other strings and ints into strings, never one
    # number type into another, so == (which equates 1, 1.0 and True) cannot hide a change here.
    unchanged = built and redacted == body
    sealed = seal_dump(redacted, prev, validated=unchanged)
    counter = 1 if head is None else int(head["counter"]) + 1
    mark = checkpoint(sealed["conversation_id"], sealed["seq"], sealed["hash"], key,
                      state_hash=state_hash(stored_state), counter=counter)
    return Sealed(record=sealed, checkpoint=mark)
