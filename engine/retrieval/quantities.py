"""Asked quantities: a number with the thing it counts ("10 sesiones", "25 m²", "a team of 4 people").

A passage that states the same thing with other numbers only ("el bono de 5 sesiones", "9 m², 16 m²") does not
answer a question about another amount: that is a near miss, however close the wording. A number without a
counted word, clock times and numbers the passage also states are never held against it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from engine.retrieval.analysis import Analyzer
from engine.text import fold

# A number not inside a clock time or a longer number, then the word it counts (letters, optionally a power
# digit as in "m2" after folding "m²").
_QUANTITY = re.compile(r"(?<![\d:.,])(\d+(?:[.,]\d+)*)(?![\d:])\s?([^\W\d_]+\d?)")
_GROUPED = re.compile(r"^\d{1,3}(?:[.,]\d{3})+$")


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


def quantities(text: str, analyzer: Analyzer) -> list[Quantity]:
    """The numbers of ``text`` that count something, with the stem of what they count (stopwords are not
    units: "5 de mayo" has none)."""
    out: list[Quantity] = []
    for match in _QUANTITY.finditer(fold(text)):
        word = match.group(2)
        stems = analyzer.terms(word) if word.isalpha() else [word]
        if not stems or stems[0].isdigit():
            continue
        out.append(Quantity(_value(match.group(1)), stems[0], match.group(0)))
    return out


def counted(text: str, analyzer: Analyzer) -> dict[str, frozenset[str]]:
    """Unit stem → the numbers the text states for it."""
    table: dict[str, set[str]] = defaultdict(set)
    for quantity in quantities(text, analyzer):
        table[quantity.unit].add(quantity.value)
    return {unit: frozenset(values) for unit, values in table.items()}


def other_amounts(asked: list[Quantity], stated: dict[str, frozenset[str]]) -> list[Quantity]:
    """Asked quantities the passage states only with other numbers (same counted word, never this amount)."""
    return [q for q in asked if q.unit in stated and q.value not in stated[q.unit]]
