"""Recognising a pantry named in a query (recall-style questions), from the directory's own names.

Each name yields contiguous token variants: the full name, its parts ('A / B', 'X (students)') and those with
generic words trimmed off both ends ('Hope House Food Pantry' -> 'hope house'). A variant is distinctive when it
holds a word that is not generic, a place, a common word or a word the parser already gives a meaning to. A
distinctive multi-word variant is accepted anywhere; anything else only after a recall cue ('tell me about',
'hours of', quotes) or, for one word, when the visitor capitalised it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from engine.directory.directory_rules import DirectoryRules
from engine.directory.ingest import Directory
from engine.directory.normalize import key_tokens

_PARTS = re.compile(r"\s+[-=/|:]\s+|/|\(|\)|:|,")
_ACRONYM = re.compile(r"(?<![A-Za-z])[A-Z]{2,5}(?![A-Za-z])")
_ARTICLES = frozenset({"the", "a", "an", "of", "and", "el", "la", "los", "las", "de"})


@dataclass(frozen=True)
class NameMatch:
    start: int  # token index
    end: int  # token index (exclusive)
    key: tuple[str, ...]
    distinctive: bool


class NameIndex:
    def __init__(self, directory: Directory, rules: DirectoryRules, place_tokens: frozenset[str],
                 reserved: frozenset[str]) -> None:
        self.generic = rules.query.generic_name_words | _ARTICLES
        self.directional = rules.address.directional_words
        self.blocked = place_tokens | reserved | self.generic
        self.variants: dict[tuple[str, ...], bool] = {}
        # short capitalised forms a name spells out ('UT' in 'University of Toledo (UT Students Only)'): a visitor
        # writing one in capitals names that record even though two letters are never distinctive on their own
        not_acronyms = self.generic | place_tokens | self.directional
        self.acronyms = frozenset(
            word.lower() for record in directory.records for word in _ACRONYM.findall(record.name)
            if word.lower() not in not_acronyms)
        for record in directory.records:
            for variant in self._variants(record.name):
                self.variants[variant] = self._distinctive(variant)
            for word in _ACRONYM.findall(record.name):
                if word.lower() in self.acronyms:  # found only as a capitalised acronym (QueryParser._names)
                    self.variants.setdefault((word.lower(),), False)
        self.max_len = min(max((len(v) for v in self.variants), default=1), rules.retrieval.max_name_ngram)

    def trim(self, tokens: tuple[str, ...]) -> tuple[str, ...]:
        """The name without generic words at either end ('hope house food pantry' -> 'hope house')."""
        return self._trim(tokens)

    def _trim(self, tokens: tuple[str, ...]) -> tuple[str, ...]:
        start, end = 0, len(tokens)
        while start < end and tokens[start] in self.generic:
            start += 1
        while end > start and tokens[end - 1] in self.generic:
            end -= 1
        return tokens[start:end]

    def _variants(self, name: str) -> set[tuple[str, ...]]:
        full = key_tokens(name)
        pieces = [full] + [key_tokens(part) for part in _PARTS.split(name)]
        out = set()
        for piece in pieces:
            for variant in (piece, self._trim(piece), self._branch(piece)):
                if variant:
                    out.add(variant)
        # leading words people stop at ('Humanity House' for 'Humanity House Foundation'); a prefix must hold a
        # distinctive word to be taken without a cue (see _distinctive)
        for size in range(2, len(full)):
            out.add(full[:size])
        # 'Salvation Army' in 'The Salvation Army Pittsfield Corps Food Pantry' (leading generic words dropped)
        # and 'Not Bread Alone' in 'Center for Human Development Not Bread Alone Soup Kitchen' (a programme named
        # at the end of its host's name): prefixes of the trimmed name, tails of the name and their trimmed forms
        trimmed = self._trim(full)
        for size in range(2, len(trimmed)):
            out.add(trimmed[:size])
        for start in range(1, len(full) - 1):
            tail = self._trim(full[start:])
            # a two-word tail counts only as the name's own last words ('... Fire Department'); once a generic
            # end is trimmed off it is mostly a description ('Senior Citizen' of '... Senior Citizen Center')
            if len(tail) >= 3 or (len(tail) == 2 and tail == full[-2:]):
                out.add(tail)
        return out

    def _branch(self, tokens: tuple[str, ...]) -> tuple[str, ...]:
        """'Bread For The City NW Center' -> 'bread for the city': a branch's quadrant/direction tail dropped."""
        end = len(tokens)
        while end > 0 and tokens[end - 1] in self.generic:
            end -= 1
        if end < 2 or tokens[end - 1] not in self.directional:
            return ()
        return tokens[:end - 1]

    def distinctive(self, variant: tuple[str, ...]) -> bool:
        """Holds a word that is not generic, a place, a common word or one the parser gives a meaning to."""
        return self._distinctive(variant)

    def _distinctive(self, variant: tuple[str, ...]) -> bool:
        return any(len(t) >= 3 and not t.isdigit() and t not in self.blocked for t in variant)

    def find(self, tokens: list[str], accept: Callable[[NameMatch], bool]) -> list[NameMatch]:
        """Accepted variant occurrences, longest first, non-overlapping."""
        found: list[NameMatch] = []
        for size in range(min(self.max_len, len(tokens)), 0, -1):
            for start in range(len(tokens) - size + 1):
                key = tuple(tokens[start:start + size])
                if key not in self.variants or any(m.start < start + size and start < m.end for m in found):
                    continue
                match = NameMatch(start, start + size, key, self.variants[key])
                if accept(match):
                    found.append(match)
        return sorted(found, key=lambda m: m.start)
