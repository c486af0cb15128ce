"""Builders of realistic transition records and sealed chains for the audit tests."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from typing import Any

from audit.chain import SealedHead, checkpoint_of, seal, state_hash
from audit.redaction import redact_record

KEY = b"test-audit-key-0123456789abcdef!"  # 32 bytes, fixed: deterministic digests
OTHER_KEY = b"another-audit-key-0123456789abcd"
GOAL_HASH = "sha256:" + "ab" * 32
BUNDLE_HASH = "sha256:" + "cd" * 32

_MESSAGES = [
    "My budget is below 350.000 EUR",
    "I would like the property to be near Almería.",
    "I need three bedrooms, two bathrooms, and parking.",
    "You can contact me at jordan.visitor@example.org or +34 611 222 333.",
]


def make_record(conversation_id: str = "conv-1", turn: int = 1, n_objectives: int = 4) -> dict[str, Any]:
    """A valid unsealed record for ``turn`` (1-based): completes objective ``turn - 1`` with a witness."""
    message = _MESSAGES[(turn - 1) % len(_MESSAGES)]
    objective = f"obj_{(turn - 1) % n_objectives}"
    # Continuous from turn to turn (state_before == the previous state_after), as the verifier requires.
    before = [1 if i < min(turn - 1, n_objectives) else 0 for i in range(n_objectives)]
    after = [1 if i < min(turn, n_objectives) else 0 for i in range(n_objectives)]
    previous = _MESSAGES[(turn - 2) % len(_MESSAGES)]
    before_values = {} if turn == 1 else {
        f"obj_{(turn - 2) % n_objectives}": [
            {"turn": turn - 1, "kind": "complete", "value": previous, "span_start": 0, "span_end": len(previous)}
        ]
    }
    received = datetime(2026, 3, 1, 10, 0, tzinfo=UTC) + timedelta(minutes=turn)
    return {
        "conversation_id": conversation_id,
        "turn": turn,
        "timestamps": {"received_at": received, "completed_at": received + timedelta(milliseconds=87)},
        "language": "en",
        "goal_ref": "realestate@v1",
        "goal_hash": GOAL_HASH,
        "bundle_version": "1.0.0",
        "bundle_hash": BUNDLE_HASH,
        "proposer": {"name": "offline", "version": "0.1.0"},
        "llm_calls": [{"purpose": "proposer", "model": "none", "latency_ms": 0.5, "params": {"temperature": 0.2}}],
        "candidates": [
            {
                "command": {
                    "type": "complete",
                    "objective": objective,
                    "span": {"turn": turn, "start": 0, "end": len(message), "quote": message},
                    "value": message,
                },
                "accepted": True,
                "reason_code": "accepted",
                "validator": "free_text@1",
                "validator_code": "validator.ok",
                "judgement": "deterministic",
                "witness": {"turn": turn, "start": 0, "end": len(message)},
            },
            {
                "command": {"type": "stop", "bogus": True},
                "accepted": False,
                "reason_code": "command.malformed",
            },
        ],
        "utilities": [
            {
                "action": f"ASK(obj_{i})",
                "U_B": 0.25,
                "U_V": 0.2,
                "R": {"value": 1.0, "rationale": "objective still open"},
                "B": {"value": 0.0, "rationale": "no burden signal"},
                "D": {"value": 0.0, "rationale": "asked 0 time(s) before"},
                "P": {"value": 0.5, "rationale": "criterion kind contact"},
                "feasible": True,
            }
            for i in range(n_objectives)
        ]
        + [{"action": "NONE", "U_B": 0.0, "U_V": 0.0, "feasible": True}],
        "chosen_action": "NONE",
        "question": None,
        "state_before": {"bits": before, "values": before_values},
        "state_after": {
            "bits": after,
            "values": {
                objective: [
                    {"turn": turn, "kind": "complete", "value": message, "span_start": 0, "span_end": len(message)}
                ]
            },
        },
        "answer": {"supported": True, "is_question": False, "citations": [{"source": "faq.md", "passage_id": "p3"}]},
        "timings_ms": {"answer_ms": 12.5, "propose_ms": 3.0, "total_ms": 20.0},
        "fail_closed": None,
    }


def make_chain(n: int, conversation_id: str = "conv-1", *, redact: bool = True) -> list[dict[str, Any]]:
    """``n`` sealed records of one conversation, redacted like the runtime does."""
    records: list[dict[str, Any]] = []
    for turn in range(1, n + 1):
        record = make_record(conversation_id, turn)
        if redact:
            record = redact_record(record, KEY)
        prev = SealedHead.of(records[-1]) if records else None
        records.append(seal(record, prev))
    return records


def fake_state_hash(records: list[dict[str, Any]]) -> str:
    """A stand-in stored-state digest for chains that have no stored state."""
    return state_hash({"conversation_id": records[-1]["conversation_id"], "turn": len(records)})


def head_checkpoint(records: list[dict[str, Any]], key: bytes = KEY) -> dict[str, Any]:
    """The checkpoint the runtime would have written with the last record (one checkpoint per record)."""
    return checkpoint_of(SealedHead.of(records[-1]), key, state_hash=fake_state_hash(records), counter=len(records))


def deep(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return copy.deepcopy(records)
