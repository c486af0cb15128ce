"""Position look-ups over one analysed message in logarithmic time: the sentence and clause around an offset,
and unanchored cue matches found once over the whole message (not once per candidate value)."""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field

from llm_adapters.offline.analysis import Analysis, Sentence
from llm_adapters.offline.memo import memo

BLOCKERS = ("small_talk", "third_party", "company_self")


def _anchored(pattern: str) -> bool:
    """'^' or '$' outside a character class: the pattern only means something on a window, not the message."""
    depth = 0
    escaped = False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "[":
            depth += 1
        elif char == "]" and depth:
            depth -= 1
        elif char in "^$" and not depth:
            return True
    return False


@dataclass
class TextIndex:
    analysis: Analysis
    _starts: list[int] = field(default_factory=list)
    _cues: dict[str, tuple[list[int], list[tuple[int, int]], bool]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._starts = [s.start for s in self.analysis.sentences]

    def sentence_at(self, pos: int) -> Sentence | None:
        i = bisect.bisect_right(self._starts, pos) - 1
        if i < 0:
            return None
        sentence = self.analysis.sentences[i]
        return sentence if pos < sentence.end else None

    def clause_at(self, pos: int) -> tuple[int, int]:
        sentence = self.sentence_at(pos)
        if sentence is None:
            return pos, pos
        clauses = sentence.clauses
        i = bisect.bisect_right(clauses, (pos, math.inf)) - 1
        if 0 <= i < len(clauses) and clauses[i][0] <= pos < clauses[i][1]:
            return clauses[i]
        return sentence.start, sentence.end

    def _matches(self, name: str) -> tuple[list[int], list[tuple[int, int]], bool]:
        cached = self._cues.get(name)
        if cached is None:
            patterns = self.analysis.rules.cue(name)
            windowed = any(_anchored(p.pattern) for p in patterns)
            spans: list[tuple[int, int]] = [] if windowed else sorted(
                m.span() for p in patterns for m in p.finditer(self.analysis.masked)
                if m.end() > m.start() and not self.analysis.yields_to_goal(name, m.group()))
            cached = ([s for s, _ in spans], spans, windowed)
            self._cues[name] = cached
        return cached

    def cue_spans(self, name: str, start: int, end: int) -> list[tuple[int, int]]:
        """Matches of cue ``name`` lying inside [start, end), in text order."""
        starts, spans, windowed = self._matches(name)
        if windowed:
            return self.analysis.cue_matches(name, start, end)
        i = bisect.bisect_left(starts, start)
        found = []
        while i < len(spans) and spans[i][0] < end:
            if spans[i][1] <= end:
                found.append(spans[i])
            i += 1
        return found

    def any_cue(self, name: str, start: int, end: int) -> bool:
        starts, spans, windowed = self._matches(name)
        if windowed:
            return self.analysis.any_cue(name, start, end)
        i = bisect.bisect_left(starts, start)
        while i < len(spans) and spans[i][0] < end:
            if spans[i][1] <= end:
                return True
            i += 1
        return False

    def last_cue_before(self, name: str, start: int, end: int) -> tuple[int, int] | None:
        """The match of cue ``name`` inside [start, end) that ends last (ties: the longer one)."""
        starts, spans, windowed = self._matches(name)
        candidates = self.analysis.cue_matches(name, start, end) if windowed else None
        if candidates is None:
            candidates = []
            i = bisect.bisect_left(starts, end) - 1
            while i >= 0 and spans[i][0] >= start:
                if spans[i][1] <= end:
                    candidates.append(spans[i])
                    if len(candidates) >= 4:  # the last few starts hold the latest end
                        break
                i -= 1
        return max(candidates, key=lambda s: (s[1], -s[0]), default=None)

    def blocked(self, pos: int) -> bool:
        """analysis.blocked in logarithmic time: small talk, a third party or the company itself."""
        start, end = self.clause_at(pos)
        start = self.analysis.colon_extended(start, self.clause_at)
        return any(self.any_cue(name, start, end) for name in BLOCKERS)


def text_index(analysis: Analysis) -> TextIndex:
    return memo(analysis, "text_index", lambda: TextIndex(analysis))
