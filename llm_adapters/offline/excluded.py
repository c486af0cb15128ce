"""Spans of a message that are never counts nor amounts: dates and times (the temporal extractor's mentions)
and telephone numbers. Found once per message; looked up by bisection."""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from llm_adapters.offline.analysis import Analysis
from llm_adapters.offline.evidence import ExtractionContext
from llm_adapters.offline.memo import memo
from llm_adapters.offline.temporal import temporal_mentions
from llm_adapters.offline.temporal_rules import grammar

_DIGIT = re.compile(r"\d")
_CLOCK = re.compile(r"\d{1,2}\s*[:h]\s*\d{2}(?!\d)|\d{1,2}\s*(?:[ap]\.?m\.?)(?![^\W_])", re.IGNORECASE)


class Spans:
    """Sorted, merged [start, end) folded spans with an overlap test in logarithmic time."""

    def __init__(self, spans: Sequence[tuple[int, int]]) -> None:
        merged: list[tuple[int, int]] = []
        for start, end in sorted(s for s in spans if s[1] > s[0]):
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], end))
            else:
                merged.append((start, end))
        self._starts = [s for s, _ in merged]
        self._spans = merged

    def overlaps(self, start: int, end: int) -> bool:
        i = bisect.bisect_right(self._starts, end - 1) - 1
        return i >= 0 and self._spans[i][1] > start

    def __len__(self) -> int:
        return len(self._spans)


def _phones(analysis: Analysis) -> list[tuple[int, int]]:
    """Digit runs long enough to be telephone numbers (the contact extractor's own threshold)."""
    minimum = analysis.rules.settings.phone_min_digits
    spans = []
    for match in analysis.rules.phone.finditer(analysis.folded.source):
        if len(_DIGIT.findall(match.group())) >= minimum:
            spans.append((analysis.folded.to_folded(match.start()), analysis.folded.to_folded(match.end())))
    return spans


def _clock_times(analysis: Analysis) -> list[tuple[int, int]]:
    """'17:30', '5pm': clock times, whether or not the temporal extractor is present."""
    return [m.span() for m in _CLOCK.finditer(analysis.masked)]


def _temporal(ctx: ExtractionContext) -> list[tuple[int, int]]:
    mentions = temporal_mentions(ctx.analysis, reference_time=ctx.reference_time, spec=ctx.spec)
    return [(m.start, m.end) for m in mentions]


_HOUR_MARK = re.compile(r"\s?h(?:\d{2})?(?![^\W\d_])")


def clock_led(analysis: Analysis, start: int, end: int) -> bool:
    """The number at [start, end) is written as an hour ('14h', '10h30') right after a time lead ('à 14h', 'vers
    10h'): a clock time, so its 'h' is no unit of hours ('about 20 people', 'environ 2h' keep theirs)."""
    def build() -> list[re.Pattern[str]]:
        leads = [lang.lex["time_leads"].regex for lang in grammar(analysis.rules).languages.values()]
        return [re.compile(rf"(?<![\w])(?:{lead})\s*$") for lead in leads if lead]
    if _HOUR_MARK.match(analysis.masked, end) is None:
        return False
    before = analysis.masked[max(0, start - 24):start]
    return any(p.search(before) for p in memo(analysis.rules, "clock_lead_patterns", build))


def excluded_spans(ctx: ExtractionContext) -> Spans:
    """Dates, times and telephone numbers of the message (never counts, never amounts)."""
    analysis = ctx.analysis
    return memo(analysis, "excluded_spans",
                lambda: Spans(_phones(analysis) + _clock_times(analysis) + _temporal(ctx)))
