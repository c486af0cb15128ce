"""Capitalised words that are not names of unknown things: acronyms, and what CLDR (babel) calls months,
weekdays, countries, regions and languages in every rule language. "Do you support SSO?", "Do you ship to
Europe?" and "Are you open in July?" must not be rejected as naming something the company never mentions."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from functools import lru_cache

from babel import Locale

from engine.text import fold

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")


def _locales(languages: tuple[str, ...]) -> list[Locale]:
    locales = []
    for code in languages:
        try:
            locales.append(Locale.parse(code))
        except (ValueError, TypeError):
            continue
    return locales


@lru_cache(maxsize=8)
def calendar_names(languages: tuple[str, ...]) -> tuple[str, ...]:
    """Month and weekday names (every context and width) of the given locales, as babel writes them."""
    return tuple(
        value
        for locale in _locales(languages)
        for table in (locale.months, locale.days)
        for context in table.values()
        for width in context.values()
        for value in width.values()
    )


@lru_cache(maxsize=8)
def ordinary_names(languages: tuple[str, ...]) -> frozenset[str]:
    """Folded month, weekday, territory and language names of the given locales."""
    names: set[str] = {fold(v) for v in calendar_names(languages)}
    for locale in _locales(languages):
        for mapping in (locale.territories, locale.languages):
            for value in mapping.values():
                names.update(fold(w) for w in _WORD.findall(value))
    return frozenset(n for n in names if len(n) > 1)


def is_acronym(word: str) -> bool:
    """SSO, MS, IVA, SL: short all-capital words are abbreviations, not names of unknown things; so are their
    plurals (DBs, APIs, PDFs)."""
    if len(word) >= 3 and word.endswith("s") and word[:-1].isupper():
        word = word[:-1]
    return 2 <= len(word) <= 5 and word.isupper()


def is_ordinary(folded: str, ordinary: frozenset[str]) -> bool:
    """``folded`` or its singular ("fridays", "lunes") is an ordinary name."""
    return bool({folded, folded.removesuffix("s"), folded.removesuffix("es")} & ordinary)


_ACRONYM_SIZES = range(3, 6)  # two letters ("MS", "EU") spell out too many word pairs to tell anything


def initials_index(
    documents: Iterable[tuple[str, list[str]]], stopwords: frozenset[str]
) -> dict[str, dict[str, frozenset[str]]]:
    """Acronyms a text spells out: the initials of 3-5 consecutive words ("single sign on" → "sso"), with and
    without function words ("impuesto sobre el valor añadido" → "iva"), mapped to each spelled-out phrase and
    the ids of the texts that hold it. ``documents``: (id, folded word tokens) pairs."""
    found: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for doc_id, words in documents:
        letters = [w for w in words if w[:1].isalpha()]
        for sequence in (letters, [w for w in letters if w not in stopwords]):
            for start in range(len(sequence)):
                for size in _ACRONYM_SIZES:
                    if start + size <= len(sequence):
                        phrase = sequence[start : start + size]
                        found["".join(w[0] for w in phrase)][" ".join(phrase)].add(doc_id)
    return {key: {phrase: frozenset(ids) for phrase, ids in phrases.items()} for key, phrases in found.items()}
