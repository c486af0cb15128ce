"""Numbers spelled out in words ("two hundred and fifty", "doscientos", "quatre-vingt-dix"), found by text2num
on the original text (its word lists need the accents) and mapped back to folded offsets.

Approximators are never number words: text2num alone reads "unos treinta" as "1 30"; tokens of the language's
``approximators_before`` are marked as not a number part, so it reads 30.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import structlog
from text_to_num import find_numbers

from engine.text import fold
from llm_adapters.offline.analysis import Analysis
from llm_adapters.offline.memo import memo

log = structlog.get_logger("grace.proposer.offline")

_TOKEN = re.compile(r"[^\W_]+|[^\w\s]")


@dataclass(frozen=True)
class SpelledNumber:
    start: int  # folded offsets
    end: int
    value: Decimal
    ordinal: bool
    words: tuple[str, ...]  # the folded words of the expression


class _Token:
    """text_to_num.Token over one word of the visitor's text."""

    __slots__ = ("_barrier", "_text")

    def __init__(self, text: str, barrier: bool) -> None:
        self._text = text
        self._barrier = barrier

    def text(self) -> str:
        return self._text

    def nt_separated(self, previous: _Token) -> bool:
        return False

    def not_a_number_part(self) -> bool:
        return self._barrier


def _barriers(data: dict[str, Any]) -> frozenset[str]:
    words = data.get("approximators_before", [])
    return frozenset(fold(w) for w in words if isinstance(w, str) and " " not in w) if isinstance(words, list) \
        else frozenset()


def _decimal(value: float) -> Decimal:
    return Decimal(int(value)) if float(value).is_integer() else Decimal(str(value))


_CONTEXT_TOKENS = 2  # tokens kept on each side of a number word: connectors, approximators, "a" in "a hundred"


def _segments(folded_tokens: list[str], triggers: frozenset[str]) -> list[tuple[int, int]]:
    """Token windows around number words: text2num runs on these only, so a long message costs little."""
    spans: list[tuple[int, int]] = []
    for i, token in enumerate(folded_tokens):
        if token in triggers:
            start, end = max(0, i - _CONTEXT_TOKENS), min(len(folded_tokens), i + 1 + _CONTEXT_TOKENS)
            if spans and start <= spans[-1][1]:
                spans[-1] = (spans[-1][0], end)
            else:
                spans.append((start, end))
    return spans


def _triggers(analysis: Analysis) -> frozenset[str]:
    numbers = analysis.rules.numbers
    words: set[str] = set()
    for table in (numbers.units, numbers.hundreds, numbers.multipliers, numbers.scales, numbers.fractions):
        words.update(table)
    for data in analysis.rules.family("quantity").values():
        extra = data.get("number_words", [])
        if isinstance(extra, list):
            words.update(fold(w) for w in extra if isinstance(w, str))
    return frozenset(words)


def _find(analysis: Analysis) -> list[SpelledNumber]:
    source = analysis.folded.source
    matches = list(_TOKEN.finditer(source))
    folded_tokens = [fold(m.group()) for m in matches]
    triggers = memo(analysis.rules, "spelled_number_triggers", lambda: _triggers(analysis))
    segments = _segments(folded_tokens, triggers)
    found: list[SpelledNumber] = []
    taken: list[tuple[int, int]] = []
    for language, data in sorted(analysis.rules.family("quantity").items()):
        code = str(data.get("text2num_language", language))
        barriers = _barriers(data)
        for seg_start, seg_end in segments:
            tokens = [_Token(matches[i].group(), folded_tokens[i] in barriers) for i in range(seg_start, seg_end)]
            try:
                occurrences = find_numbers(tokens, code, threshold=0)
            except (ValueError, KeyError) as exc:  # an unknown text2num language: the data file is wrong
                log.warning("proposer.offline.spelled_language_unknown", language=language, error=str(exc))
                break
            for occ in occurrences:
                first, last = matches[seg_start + occ.start], matches[seg_start + occ.end - 1]
                start = analysis.folded.to_folded(first.start())
                end = analysis.folded.to_folded(last.end())
                if any(start < e and s < end for s, e in taken):
                    continue
                words = tuple(folded_tokens[i] for i in range(seg_start + occ.start, seg_start + occ.end)
                              if matches[i].group()[0].isalpha())
                if not words:
                    continue  # text2num also rewrites digits ('2 000'); digits are read elsewhere
                taken.append((start, end))
                found.append(SpelledNumber(start=start, end=end, value=_decimal(occ.value),
                                           ordinal=bool(occ.is_ordinal), words=words))
    return sorted(found, key=lambda n: n.start)


def spelled_numbers(analysis: Analysis) -> list[SpelledNumber]:
    """Every spelled-out number of the message, in text order (computed once per message)."""
    return memo(analysis, "spelled_numbers", lambda: _find(analysis))
