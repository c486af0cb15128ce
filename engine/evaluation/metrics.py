"""The paper's symbolic-state metrics (eqs. 16-20) over recorded and reference state vectors.

STA: scored turns whose recorded vector equals the reference. TSA: conversations whose last scored vector
equals the reference. MC: scored turns whose recorded vector is ⪰ the previous recorded one. EP / ER:
coordinate-completion events (conversation, turn, objective) where a coordinate goes 0 → 1, recorded vs
reference, counted at scored turns.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class TurnOutcome:
    turn: int
    recorded: str
    reference: str | None
    scored: bool


@dataclass(frozen=True)
class ConversationOutcome:
    id: str
    initial: str  # s_0 in the same coordinate order
    turns: tuple[TurnOutcome, ...]


@dataclass(frozen=True)
class Ratio:
    hits: int
    total: int

    @property
    def value(self) -> float:
        return self.hits / self.total if self.total else 1.0

    def __str__(self) -> str:
        return f"{self.hits}/{self.total} ({100 * self.value:.1f}%)"

    @staticmethod
    def parse(text: str) -> Ratio:
        hits, total = text.split("/")
        return Ratio(int(hits), int(total))


@dataclass(frozen=True)
class Metrics:
    sta: Ratio
    tsa: Ratio
    mc: Ratio
    ep: Ratio
    er: Ratio

    def as_dict(self) -> dict[str, str]:
        return {name: f"{r.hits}/{r.total}" for name, r in self.items()}

    def items(self) -> list[tuple[str, Ratio]]:
        return [("STA", self.sta), ("TSA", self.tsa), ("MC", self.mc), ("EP", self.ep), ("ER", self.er)]


Event = tuple[str, int, int]  # (conversation, turn, coordinate)


def dominates(after: str, before: str) -> bool:
    """after ⪰ before coordinate-wise (eq. 11)."""
    return len(after) == len(before) and all(a >= b for a, b in zip(after, before, strict=True))


def _events(conversation_id: str, initial: str, states: Iterable[tuple[int, str | None, bool]]) -> set[Event]:
    events: set[Event] = set()
    previous = initial
    for turn, state, scored in states:
        if state is None:
            continue
        if scored:
            for index, (before, after) in enumerate(zip(previous, state, strict=True)):
                if before == "0" and after == "1":
                    events.add((conversation_id, turn, index))
        previous = state
    return events


def compute_metrics(conversations: Sequence[ConversationOutcome]) -> Metrics:
    sta = mc = scored_turns = 0
    tsa = tsa_total = 0
    recorded_events: set[Event] = set()
    reference_events: set[Event] = set()
    for conversation in conversations:
        previous = conversation.initial
        last_scored: TurnOutcome | None = None
        for turn in conversation.turns:
            if turn.scored and turn.reference is not None:
                scored_turns += 1
                sta += turn.recorded == turn.reference
                mc += dominates(turn.recorded, previous)
                last_scored = turn
            previous = turn.recorded
        if last_scored is not None:
            tsa_total += 1
            tsa += last_scored.recorded == last_scored.reference
        recorded_events |= _events(conversation.id, conversation.initial,
                                   ((t.turn, t.recorded, t.scored) for t in conversation.turns))
        reference_events |= _events(conversation.id, conversation.initial,
                                    ((t.turn, t.reference, t.scored) for t in conversation.turns))
    matched = len(recorded_events & reference_events)
    return Metrics(
        sta=Ratio(sta, scored_turns),
        tsa=Ratio(tsa, tsa_total),
        mc=Ratio(mc, scored_turns),
        ep=Ratio(matched, len(recorded_events)),
        er=Ratio(matched, len(reference_events)),
    )
