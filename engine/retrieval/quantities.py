"""Asked quantities: a number with the thing it counts ("10 sesiones", "25 m²", "a team of 4 people").

A passage that states the same thing with other numbers only ("el bono de 5 sesiones", "9 m², 16 m²") does not
answer a question about another amount: that is a near miss, however close the wording. A number without a
counted word, clock times and numbers the passage also states are never held against it, and neither is an
amount within a bound the passage states ("up to 50 users" covers 30 users, not 80; "from 6 years" covers 8) or
any amount of a thing it states as a rate or a notice period ("per hour", "48 hours before"): ``amount_bounds``
in the language rules.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from engine.retrieval.analysis import Analyzer
from engine.retrieval.retrieval_rules import AmountBounds, BoundPhrases
from engine.text import fold

# A number not inside a clock time or a longer number, then the word it counts (letters, optionally a power
# digit as in "m2" after folding "m²").
_QUANTITY = re.compile(r"(?<![\d:.,])(\d+(?:[.,]\d+)*)(?![\d:])\s?([^\W\d_]+\d?)")
_GROUPED = re.compile(r"^\d{1,3}(?:[.,]\d{3})+$")
ANY_AMOUNT = "*"  # the value recorded for a rate or a notice period: every amount of the counted thing
_UPPER, _LOWER = "<=", ">="  # prefixes of the value recorded for an upper or a lower bound


@dataclass(frozen=True)
class Quantity:
    value: str  # normalised number ("20000", "2.5")
    unit: str  # the counted word's stem ("sesion", "m2")
    text: str  # as written (for the near-miss message)


def _value(raw: str) -> str:
    if _GROUPED.match(raw):
        return re.sub(r"[.,]", "", raw)
    try:
        number = float(raw.replace(",", "."))
    except ValueError:
        return raw
    return str(int(number)) if number.is_integer() else str(number)


def _window(bounds: AmountBounds) -> int:
    """Characters looked at on each side of an amount: enough for the longest bound phrase and a word edge."""
    groups = (bounds.upper, bounds.lower, bounds.rate)
    return 4 + max((len(p) for g in groups for p in (*g.before, *g.after)), default=0)


def _phrase_before(folded: str, start: int, phrases: tuple[str, ...], window: int) -> bool:
    before = folded[max(0, start - window) : start].rstrip()
    return any(re.search(rf"(?<!\w){re.escape(fold(p))}$", before) for p in phrases)


def _phrase_after(folded: str, end: int, phrases: tuple[str, ...], window: int) -> bool:
    after = folded[end : end + window].lstrip()
    return any(re.match(rf"{re.escape(fold(p))}(?!\w)", after) for p in phrases)


def _bound(folded: str, start: int, end: int, value: str, bounds: AmountBounds, window: int) -> str:
    """The value as recorded: ``ANY_AMOUNT`` for a rate, "<=v" / ">=v" for a bound, else the value itself."""

    def stated(phrases: BoundPhrases) -> bool:
        return _phrase_before(folded, start, phrases.before, window) or _phrase_after(
            folded, end, phrases.after, window
        )

    if stated(bounds.rate):
        return ANY_AMOUNT
    if stated(bounds.upper):
        return _UPPER + value
    if stated(bounds.lower):
        return _LOWER + value
    return value


def quantities(text: str, analyzer: Analyzer, bounds: AmountBounds | None = None) -> list[Quantity]:
    """The numbers of ``text`` that count something, with the stem of what they count (stopwords are not
    units: "5 de mayo" has none). With ``bounds``, an amount written as a bound has the value "<=n" or ">=n",
    one written as a rate ``ANY_AMOUNT``."""
    out: list[Quantity] = []
    folded = fold(text)
    window = _window(bounds) if bounds is not None else 0
    for match in _QUANTITY.finditer(folded):
        word = match.group(2)
        stems = analyzer.terms(word) if word.isalpha() else [word]
        if not stems or stems[0].isdigit():
            continue
        value = _value(match.group(1))
        if bounds is not None:
            value = _bound(folded, match.start(), match.end(), value, bounds, window)
        out.append(Quantity(value, stems[0], match.group(0)))
    return out


def counted(text: str, analyzer: Analyzer, bounds: AmountBounds | None = None) -> dict[str, frozenset[str]]:
    """Unit stem → the numbers the text states for it (bounds and rates as ``quantities`` records them)."""
    table: dict[str, set[str]] = defaultdict(set)
    for quantity in quantities(text, analyzer, bounds):
        table[quantity.unit].add(quantity.value)
    return {unit: frozenset(values) for unit, values in table.items()}


def _covers(stated: str, asked: str) -> bool:
    if stated in (asked, ANY_AMOUNT):
        return True
    if stated[:2] not in (_UPPER, _LOWER):
        return False
    try:
        limit, value = float(stated[2:]), float(asked)
    except ValueError:
        return False
    return value <= limit if stated.startswith(_UPPER) else value >= limit


def unstated_amounts(asked: list[Quantity], stated: dict[str, frozenset[str]]) -> list[Quantity]:
    """Asked quantities whose number the passage states for no counted word at all (the counted word may be
    written in another language: "6 people" beside "6 plazas"), nor within a bound or a rate of the same counted
    word ("a bungalow for 6 people" beside "2 plazas", "4 a 5 plazas" and "mínimo 2 noches"): the passage may be
    about it, but whether it answers for this amount is not visible, so it is shown as related, not answered."""
    exact = {v for found in stated.values() for v in found if v[:2] not in (_UPPER, _LOWER) and v != ANY_AMOUNT}
    return [
        q for q in asked
        if q.value not in exact and not any(_covers(v, q.value) for v in stated.get(q.unit, frozenset()))
    ]


def other_amounts(asked: list[Quantity], stated: dict[str, frozenset[str]]) -> list[Quantity]:
    """Asked quantities the passage states only with other numbers: the same counted word, never this amount,
    no bound that includes it and no rate."""
    return [q for q in asked if q.unit in stated and not any(_covers(s, q.value) for s in stated[q.unit])]
