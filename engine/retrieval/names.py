"""Capitalised words that are not names of unknown things: acronyms, and what CLDR (babel) calls months,
weekdays, countries, regions and languages in every rule language. "Do you support SSO?", "Do you ship to
Europe?" and "Are you open in July?" must not be rejected as naming something the company never mentions."""

from __future__ import annotations

import re
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
    """SSO, MS, IVA, SL: short all-capital words are abbreviations, not names of unknown things."""
    return 2 <= len(word) <= 5 and word.isupper()


def is_ordinary(folded: str, ordinary: frozenset[str]) -> bool:
    """``folded`` or its singular ("fridays", "lunes") is an ordinary name."""
    return bool({folded, folded.removesuffix("s"), folded.removesuffix("es")} & ordinary)
