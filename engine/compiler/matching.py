"""Keyword matching on folded text: case- and accent-insensitive, on word boundaries, '*' = any word ending."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.text import fold


def keyword_regex(keyword: str, *, plural: bool = False) -> str:
    """Regex source for one keyword phrase, to be searched in ``fold(text)``; ``plural`` also accepts -s/-es."""
    folded = fold(keyword).strip()
    prefix = folded.endswith("*")
    tokens = folded.rstrip("*").split()
    body = r"\s+".join(re.escape(token) for token in tokens)
    if prefix:
        body += r"\w*"
    elif plural:
        body += r"(?:e?s)?"
    return rf"(?<!\w){body}(?!\w)"


@dataclass(frozen=True)
class Match:
    label: str  # what the keyword stands for (objective kind, governance category, ...)
    keyword: str
    start: int
    end: int


class KeywordIndex:
    """A set of labelled keyword phrases, compiled once."""

    def __init__(self, entries: Iterable[tuple[str, str]]) -> None:
        self._entries = [(label, keyword, re.compile(keyword_regex(keyword))) for label, keyword in entries]

    def all_matches(self, folded: str) -> list[Match]:
        found: list[Match] = []
        for label, keyword, pattern in self._entries:
            found.extend(Match(label, keyword, m.start(), m.end()) for m in pattern.finditer(folded))
        return found

    def longest_first(self, folded: str) -> list[Match]:
        """Non-overlapping matches, leftmost first; at one position the longest phrase wins."""
        return select_non_overlapping(self.all_matches(folded))


def select_non_overlapping(matches: Sequence[Match]) -> list[Match]:
    chosen: list[Match] = []
    last_end = -1
    for match in sorted(matches, key=lambda m: (m.start, -(m.end - m.start), m.label)):
        if match.start >= last_end:
            chosen.append(match)
            last_end = match.end
    return chosen


def compile_patterns(patterns: Iterable[str], where: str) -> list[re.Pattern[str]]:
    """Compile rule-file regexes; a broken one is a rule error, reported with where it lives."""
    from engine.compiler.errors import CompilerRulesError

    compiled = []
    for source in patterns:
        try:
            compiled.append(re.compile(source))
        except re.error as exc:
            raise CompilerRulesError(f"{where}: invalid pattern {source!r} ({exc})") from exc
    return compiled
