"""Two baselines scored beside GRACE on the same converted dataset.

``zeros``: every bit of every turn is 0 (nothing is ever recorded).

``keyword``: the bit of objective o is 1 at user turn t iff some user turn <= t (the same monotone accumulation as
the reference) matches one of o's mapped SGD slots, where a user turn matches slot s when
  - s is categorical with only integer possible values (a count: seats, rooms, riders ...): the turn contains
    any ASCII digit 0-9;
  - s is any other categorical slot: the turn contains one of s's ``possible_values`` (the schema's literal
    strings, booleans "True"/"False" included) as a whole word or phrase, case-insensitively;
  - s is non-categorical (cities, dates, times, names): never.
No spec, vocabulary or proposer is involved: it measures what the schema's own values buy.
"""

from __future__ import annotations

import re

from engine.evaluation.dataset import Dataset
from engine.evaluation.metrics import ConversationOutcome, TurnOutcome
from engine.evaluation.sgd.corpus import SgdSlot
from engine.evaluation.sgd.mapping import ServiceBench

_DIGIT = re.compile(r"[0-9]")


def zeros_outcomes(dataset: Dataset) -> list[ConversationOutcome]:
    outcomes = []
    for conversation in dataset.conversations:
        width = len(dataset.configs[conversation.config].objectives)
        zero = "0" * width
        outcomes.append(ConversationOutcome(conversation.id, zero, tuple(
            TurnOutcome(t.turn, zero, t.reference, t.scored) for t in conversation.turns)))
    return outcomes


def slot_pattern(slot: SgdSlot) -> re.Pattern[str] | None:
    """What a user turn must contain to match ``slot`` under the keyword baseline (None: nothing matches)."""
    if not slot.is_categorical or not slot.possible_values:
        return None
    if slot.numeric:
        return _DIGIT
    values = sorted(slot.possible_values, key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(v) for v in values) + r")(?!\w)", re.IGNORECASE)


def _patterns(bench: ServiceBench) -> list[list[re.Pattern[str]]]:
    patterns = []
    for objective in bench.objectives:
        slots = (bench.service.slot(name) for name in bench.slots[objective.id])
        patterns.append([p for s in slots if s is not None and (p := slot_pattern(s)) is not None])
    return patterns


def keyword_outcomes(dataset: Dataset, bench: ServiceBench) -> list[ConversationOutcome]:
    patterns = _patterns(bench)
    outcomes = []
    for conversation in dataset.conversations:
        bits = [False] * len(patterns)
        turns: list[TurnOutcome] = []
        for turn in conversation.turns:
            bits = [b or any(p.search(turn.visitor) for p in ps) for b, ps in zip(bits, patterns, strict=True)]
            turns.append(TurnOutcome(turn.turn, "".join("1" if b else "0" for b in bits), turn.reference,
                                     turn.scored))
        outcomes.append(ConversationOutcome(conversation.id, "0" * len(patterns), tuple(turns)))
    return outcomes
