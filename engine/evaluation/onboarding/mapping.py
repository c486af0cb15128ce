"""Compiled objectives -> SGD slots, through the phrases the compiler claims (``criterion.params.intent_phrases``).

Each claimed phrase is found in the intent (case-insensitively; the first occurrence inside a slot's description
wins); a phrase that is not a literal substring (a coordinated head the compiler shared, "pick-up and return
dates" -> "return dates") goes to the slot description holding most of its words, if that is one description.
Then:

- a slot claimed by no objective is *unmapped*: GRACE's bit for it is always 0 (a failure, never dropped);
- an objective claiming no slot's words is *extra* (it came from context, or was invented): it is scored as a
  coordinate whose reference is always 0, so recording it is a false completion;
- a slot claimed by several objectives (the compiler split one description) is recorded only when all of them
  are; an objective claiming several slots gives each of them its bit (a merge costs whenever the visitor gives
  one but not the other).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.evaluation.onboarding.template import Intent
from engine.kernel.goal_models import GoalSpec

_WORD = re.compile(r"[\w'’-]+")


@dataclass(frozen=True)
class SlotMapping:
    slots: tuple[str, ...]  # the asked slots, in the intent's order
    objectives: tuple[str, ...]  # the spec's objective ids, in its order
    by_slot: dict[str, tuple[str, ...]]  # slot -> objective ids claiming it (empty: unmapped)
    extra: tuple[str, ...]  # objectives that claim no slot

    @property
    def unmapped(self) -> tuple[str, ...]:
        return tuple(s for s in self.slots if not self.by_slot[s])

    def coordinates(self) -> list[str]:
        """Scored coordinates: every asked slot, then every extra objective."""
        return [*self.slots, *(f"extra:{o}" for o in self.extra)]

    def project(self, state: str) -> str:
        """A spec-order state string -> the coordinates' bits."""
        bit = dict(zip(self.objectives, state, strict=True))
        slots = ["1" if claimed and all(bit[o] == "1" for o in claimed) else "0"
                 for claimed in (self.by_slot[s] for s in self.slots)]
        return "".join(slots) + "".join(bit[o] for o in self.extra)


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def locate(phrase: str, intent: Intent) -> str | None:
    """The slot whose description holds ``phrase`` (see the module docstring), or None."""
    lowered, needle = intent.text.lower(), phrase.lower().strip()
    if needle:
        start = lowered.find(needle)
        while start >= 0:
            for slot, (s, e) in intent.spans.items():
                if s <= start and start + len(needle) <= e:
                    return slot
            start = lowered.find(needle, start + 1)
    words = _words(phrase)
    if not words:
        return None
    scores = {slot: len(words & _words(intent.text[s:e])) / len(words) for slot, (s, e) in intent.spans.items()}
    best = max(scores.values())
    winners = [slot for slot, score in scores.items() if score == best]
    return winners[0] if best >= 0.5 and len(winners) == 1 else None


def map_objectives(spec: GoalSpec, intent: Intent) -> SlotMapping:
    objectives = [o.id for o in spec.ordered()]
    by_slot: dict[str, list[str]] = {slot: [] for slot in intent.spans}
    extra: list[str] = []
    for objective in spec.ordered():
        phrases = [str(p) for p in objective.criterion.params.get("intent_phrases") or [objective.name]]
        claimed = {slot for p in phrases if (slot := locate(p, intent)) is not None}
        for slot in sorted(claimed, key=list(intent.spans).index):
            by_slot[slot].append(objective.id)
        if not claimed:
            extra.append(objective.id)
    return SlotMapping(slots=tuple(intent.spans), objectives=tuple(objectives),
                       by_slot={s: tuple(o) for s, o in by_slot.items()}, extra=tuple(extra))
