"""Word sets derived from the rule files, used to decide whether a word could be a place or a pantry name."""

from __future__ import annotations

import re

from engine.directory.directory_rules import DirectoryRules

_CACHE: dict[str, frozenset[str]] = {}


def reserved_words(rules: DirectoryRules) -> frozenset[str]:
    """Every word the parser gives a meaning of its own (time, cues, concepts, stopwords, common words)."""
    return _words(rules, whole_only=False)


def standalone_words(rules: DirectoryRules) -> frozenset[str]:
    """The reserved words that mean something alone: a one-word vocabulary entry or a concept word. A word only
    ever part of a longer phrase ('pueblo' in 'el pueblo de') is free to be a town when the phrase is not there."""
    return _words(rules, whole_only=True)


def _words(rules: DirectoryRules, whole_only: bool) -> frozenset[str]:
    cache_key = f"{rules.content_hash}:{whole_only}"
    cached = _CACHE.get(cache_key)
    if cached is not None:
        return cached
    words: set[str] = set()

    def add(phrases: tuple[str, ...] | frozenset[str] | list[str]) -> None:
        for phrase in phrases:
            found = re.findall(r"[a-z0-9]+", phrase)
            if not whole_only or len(found) == 1:
                words.update(found)

    time = rules.time
    add(list(time.day_words) + list(time.day_abbreviations) + list(time.month_words) + list(time.ordinal_words))
    add([w for part in time.dayparts for w in part.words])
    add([w for w, _ in time.relative_days] + [w for w, _ in time.time_relations])
    add(time.now_words + time.weekend_words + time.weekday_group_words + time.dated_weekday_prefixes)
    add(time.noon_words + time.midnight_words + time.am_words + time.pm_words)
    query = rules.query
    add(query.locative_cues + query.county_suffixes + query.county_prefixes + query.city_prefixes + query.zip_cues)
    add(query.intent_words + query.recall_cues + query.recall_suffix_cues)
    add(query.stopwords)
    add(query.common_words)
    add(query.spanish_markers)
    for concept in rules.semantic.concepts.values():
        for pattern in concept.query_patterns:
            words.update(w for w in re.findall(r"[a-z]{3,}", pattern.pattern) if w not in {"an", "the"})
    result = frozenset(words)
    _CACHE[cache_key] = result
    return result
