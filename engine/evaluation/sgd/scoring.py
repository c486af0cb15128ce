"""Scores per criterion kind: each objective's bit is scored on its own and summed over the objectives of a kind.

For one coordinate, the paper's metrics read as: STA = accuracy of that bit over scored turns, TSA = accuracy of
its final bit per conversation, EP / ER = precision / recall of its 0 -> 1 completion events at the reference turn,
MC = the bit never drops. Summing hits and totals over coordinates gives the per-kind figures.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from engine.evaluation.metrics import ConversationOutcome, Metrics, Ratio, TurnOutcome, compute_metrics


def _pick(state: str | None, index: int) -> str | None:
    return None if state is None else state[index]


def project(outcome: ConversationOutcome, index: int) -> ConversationOutcome:
    """The conversation seen through one coordinate only."""
    return ConversationOutcome(outcome.id, outcome.initial[index], tuple(
        TurnOutcome(t.turn, t.recorded[index], _pick(t.reference, index), t.scored) for t in outcome.turns))


def _add(a: Ratio, b: Ratio) -> Ratio:
    return Ratio(a.hits + b.hits, a.total + b.total)


def add_metrics(parts: Iterable[Metrics]) -> Metrics:
    total = Metrics(Ratio(0, 0), Ratio(0, 0), Ratio(0, 0), Ratio(0, 0), Ratio(0, 0))
    for m in parts:
        total = Metrics(_add(total.sta, m.sta), _add(total.tsa, m.tsa), _add(total.mc, m.mc),
                        _add(total.ep, m.ep), _add(total.er, m.er))
    return total


def coordinate_metrics(outcomes: Sequence[ConversationOutcome], index: int) -> Metrics:
    return compute_metrics([project(o, index) for o in outcomes])


def metrics_by_kind(outcomes: Sequence[ConversationOutcome], kinds: Sequence[str]) -> dict[str, Metrics]:
    """``kinds[i]`` is the criterion kind of coordinate i."""
    per_kind: dict[str, list[Metrics]] = {}
    for index, kind in enumerate(kinds):
        per_kind.setdefault(kind, []).append(coordinate_metrics(outcomes, index))
    return {kind: add_metrics(parts) for kind, parts in sorted(per_kind.items())}


def merge_kind_metrics(parts: Iterable[Mapping[str, Metrics]]) -> dict[str, Metrics]:
    merged: dict[str, list[Metrics]] = {}
    for part in parts:
        for kind, metrics in part.items():
            merged.setdefault(kind, []).append(metrics)
    return {kind: add_metrics(ms) for kind, ms in sorted(merged.items())}
