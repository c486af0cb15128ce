"""Failure analysis: which visitor evidence GRACE missed (reference completes, GRACE does not at that turn) and
which completions it recorded without the visitor's INFORM, grouped into kinds with sample utterances."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.evaluation.dataset import Dataset, DatasetTurn
from engine.evaluation.runner import ConversationRun, TurnRow

SAMPLES = 3


@dataclass
class FailureKind:
    objective: str
    slots: str
    reason: str
    count: int = 0
    samples: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"objective": self.objective, "slots": self.slots, "reason": self.reason, "count": self.count,
                "samples": self.samples}


def _first_one(states: Sequence[str | None], index: int) -> int | None:
    return next((k for k, s in enumerate(states) if s is not None and s[index] == "1"), None)


def _rejection(row: TurnRow, objective: str) -> str | None:
    return next((r.split(": ", 1)[-1] for r in row.rejected if f"({objective})" in r), None)


def _sample(row: TurnRow, turn: DatasetTurn, slots: Sequence[str]) -> dict[str, Any]:
    informed = getattr(turn, "informed", None) or {}
    return {"turn": row.turn, "visitor": row.visitor, "system_before": getattr(turn, "system_before", ""),
            "informed": {s: v for s, v in informed.items() if s in slots}}


def _add(groups: dict[tuple[str, str, str], FailureKind], key: tuple[str, str, str], sample: dict[str, Any],
         conversation: str) -> None:
    group = groups.setdefault(key, FailureKind(*key))
    group.count += 1
    if len(group.samples) < SAMPLES:
        group.samples.append({"conversation": conversation, **sample})


def _miss_reason(row: TurnRow, objective: str, recorded_at: int | None, rows: Sequence[TurnRow]) -> str:
    if recorded_at is not None:
        return "recorded at a later turn" if rows[recorded_at].turn > row.turn else "recorded at an earlier turn"
    rejected = _rejection(row, objective)
    return f"rejected: {rejected}" if rejected else "not proposed"


def analyse(dataset: Dataset, runs: Sequence[ConversationRun]) -> tuple[list[FailureKind], list[FailureKind]]:
    """(missed evidence kinds, unsupported completion kinds), most frequent first."""
    misses: dict[tuple[str, str, str], FailureKind] = {}
    unsupported: dict[tuple[str, str, str], FailureKind] = {}
    by_id = {c.id: c for c in dataset.conversations}
    for run in runs:
        conversation = by_id[run.id]
        config = dataset.configs[conversation.config]
        rows = run.turns
        for index, objective in enumerate(config.objectives):
            slots: list[str] = list(getattr(objective, "slots", []) or [])
            ref_at = _first_one([r.reference for r in rows], index)
            rec_at = _first_one([r.state for r in rows], index)
            if ref_at is not None and rec_at != ref_at:
                row, turn = rows[ref_at], conversation.turns[ref_at]
                sample = _sample(row, turn, slots)
                sample["recorded_turn"] = None if rec_at is None else rows[rec_at].turn
                informed_slots = ",".join(sorted(sample["informed"])) or "-"
                reason = _miss_reason(row, objective.id, rec_at, rows)
                _add(misses, (objective.id, informed_slots, reason), sample, run.id)
            if rec_at is not None and (ref_at is None or rec_at < ref_at):
                row, turn = rows[rec_at], conversation.turns[rec_at]
                reason = "no INFORM in the dialogue" if ref_at is None else "before the visitor's INFORM"
                _add(unsupported, (objective.id, ",".join(slots), reason), _sample(row, turn, slots), run.id)
    order = lambda g: (-g.count, g.objective, g.reason)  # noqa: E731
    return sorted(misses.values(), key=order), sorted(unsupported.values(), key=order)
