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


def _find(analysis: Analysis) -> list[SpelledNumber]:
    source = analysis.folded.source
    matches = list(_TOKEN.finditer(source))
    found: list[SpelledNumber] = []
    taken: list[tuple[int, int]] = []
    for language, data in sorted(analysis.rules.family("quantity").items()):
        code = str(data.get("text2num_language", language))
        barriers = _barriers(data)
        tokens = [_Token(m.group(), fold(m.group()) in barriers) for m in matches]
        try:
            occurrences = find_numbers(tokens, code, threshold=0)
        except (ValueError, KeyError) as exc:  # an unknown text2num language: the data file is wrong
            log.warning("proposer.offline.spelled_language_unknown", language=language, error=str(exc))
            continue
        for occ in occurrences:
            first, last = matches[occ.start], matches[occ.end - 1]
            start = analysis.folded.to_folded(first.start())
            end = analysis.folded.to_folded(last.end())
            if any(start < e and s < end for s, e in taken):
                continue
            words = tuple(fold(m.group()) for m in matches[occ.start:occ.end] if m.group()[0].isalpha())
            if not words:
                continue  # text2num also rewrites digits ('2 000'); digits are read elsewhere
            taken.append((start, end))
            found.append(SpelledNumber(start=start, end=end, value=_decimal(occ.value),
                                       ordinal=bool(occ.is_ordinal), words=words))
    return sorted(found, key=lambda n: n.start)


def spelled_numbers(analysis: Analysis) -> list[SpelledNumber]:
    """Every spelled-out number of the message, in text order (computed once per message)."""
    return memo(analysis, "spelled_numbers", lambda: _find(analysis))
