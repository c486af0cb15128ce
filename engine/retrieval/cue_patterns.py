"""Lists of folded cue phrases compiled once into one pattern each (the asked-kind checks of a question).

``anywhere(cues)`` holds when a cue occurs as whole words somewhere in a folded text, ``opening(cues)`` when
one opens a folded sentence (optionally after one word: "and when ..."). One alternation finds a match exactly
when one of the cues does on its own: the engine tries every branch, with the lookarounds, at every position
(``tests/retrieval/test_cue_patterns.py`` holds it to the one-pattern-per-cue definition). Compiled at load,
they replace a ``re.search`` per cue per question (each one an f-string, an escape and a lookup in ``re``'s
cache), and the first question after start-up no longer compiles them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


def _alternation(cues: tuple[str, ...]) -> str:
    return "|".join(re.escape(cue) for cue in cues)


@dataclass(frozen=True)
class CueSet:
    """One cue list's two compiled forms (None for an empty list: nothing matches)."""

    anywhere_pattern: re.Pattern[str] | None
    opening_pattern: re.Pattern[str] | None

    @classmethod
    def of(cls, cues: tuple[str, ...]) -> CueSet:
        if not cues:
            return cls(None, None)
        alternation = _alternation(cues)
        return cls(re.compile(rf"(?<!\w)(?:{alternation})(?!\w)"), re.compile(rf"(?:\w+ )?(?:{alternation})(?!\w)"))

    def anywhere(self, folded: str) -> bool:
        return self.anywhere_pattern is not None and self.anywhere_pattern.search(folded) is not None

    def opening(self, starts: list[str]) -> bool:
        pattern = self.opening_pattern
        return pattern is not None and any(pattern.match(start) is not None for start in starts)
