"""Concept groups: words that name the same thing, within and across the rule languages.

Cross-lingual questions cannot be checked word by word ("open" never occurs in a Spanish passage that says
"abrimos"), and raw word overlap is zero across languages. A small, domain-neutral set of concept groups in the
rules (price/precio, open/abrir, address/dirección …) plus the names CLDR knows in every rule language (weekdays,
months, languages, via babel) lets an asked word be looked up under every stem of its group. Company vocabulary
never goes here: it is what the documents themselves state.
"""

from __future__ import annotations

from collections import defaultdict

from babel import Locale

from engine.retrieval.analysis import AnalyzerSet, QueryWord, tokens
from engine.retrieval.retrieval_rules import RetrievalRules


def _cldr_groups(languages: tuple[str, ...]) -> list[list[str]]:
    """Weekday, month and language names aligned across the rule languages (one group per day/month/language)."""
    locales = []
    for code in languages:
        try:
            locales.append(Locale.parse(code))
        except (ValueError, TypeError):
            continue
    groups: list[list[str]] = []
    if not locales:
        return groups
    for key in range(7):
        groups.append([w for loc in locales for w in loc.days["format"]["wide"][key].split()])
    for key in range(1, 13):
        groups.append([w for loc in locales for w in loc.months["format"]["wide"][key].split()])
    for code in languages:
        groups.append([w for loc in locales for w in tokens(loc.languages.get(code, ""))])
    return [g for g in groups if len(g) > 1]


def _expansions(rules: RetrievalRules, analyzers: AnalyzerSet) -> dict[str, frozenset[str]]:
    groups: list[list[str]] = [[w for words in group.values() for w in words] for group in rules.translations]
    groups += _cldr_groups(tuple(sorted(rules.languages)))
    by_stem: dict[str, set[str]] = defaultdict(set)
    for group in groups:
        stems: set[str] = set()
        for word in group:
            for token in tokens(word):
                stems.update(analyzer.stem(token) for analyzer in analyzers.by_language.values())
        for stem in stems:
            by_stem[stem] |= stems
    return {stem: frozenset(group) for stem, group in by_stem.items()}


class Concepts:
    """Expands an asked word's stems with the stems of every concept group it belongs to."""

    def __init__(self, rules: RetrievalRules, analyzers: AnalyzerSet) -> None:
        self._by_stem = _expansions(rules, analyzers)

    def expand(self, word: QueryWord) -> QueryWord:
        extra: set[str] = set()
        for variant in word.variants:
            extra |= self._by_stem.get(variant, frozenset())
        if not extra - word.variants:
            return word
        return QueryWord(surface=word.surface, variants=word.variants | frozenset(extra))

    def translatable(self, word: QueryWord) -> bool:
        return any(v in self._by_stem for v in word.variants)
