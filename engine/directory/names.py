"""Recognising a pantry named in a query (recall-style questions), from the directory's own names.

Each name yields contiguous token variants: the full name, its parts ('A / B', 'X (students)') and those with
generic words trimmed off both ends ('Hope House Food Pantry' -> 'hope house'). A variant is distinctive when it
holds a word that is not generic, a place, a common word or a word the parser already gives a meaning to. A
distinctive multi-word variant is accepted anywhere; anything else only after a recall cue ('tell me about',
'hours of', quotes) or, for one word, when the visitor capitalised it.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass

from engine.directory.directory_rules import DirectoryRules
from engine.directory.ingest import Directory
from engine.directory.normalize import key_tokens

_HOST = re.compile(r"\s+at\s+")  # 'Programme at Host': the host's name, as '@' is a part
_PARTS = re.compile(r"\s+[-\u2013\u2014=/|:@]\s+|/|\(|\)|:|,|@")  # 'A - B', 'A – B', 'Programme @ Host'

_ACRONYM = re.compile(r"(?<![A-Za-z])[A-Z]{2,5}(?![A-Za-z])")
_ARTICLES = frozenset({"the", "a", "an", "of", "and", "el", "la", "los", "las", "de"})


@dataclass(frozen=True)
class NameMatch:
    start: int  # token index
    end: int  # token index (exclusive)
    key: tuple[str, ...]
    distinctive: bool


def _leading_initials(name: str) -> dict[str, tuple[str, ...]]:
    """Initials of the first 3-5 capitalised words of each part of a name, with the words they stand for
    ('Mercer County Community College Food Pantry' -> 'mccc': mercer county community college); an 'of'/'the'/
    'and' between them is part of the words, not of the initials."""
    out: dict[str, tuple[str, ...]] = {}
    # the host after ' at ' is a part too ('DISH Food Pantry at Bunker Hill Community College' -> 'bhcc')
    for part in [name, *_PARTS.split(name), *_HOST.split(name)[1:]]:
        words = re.findall(r"[A-Za-z][A-Za-z'\u2019]*", part)
        caps = ""
        for count, word in enumerate(words, start=1):
            if word[0].isupper():
                caps += word[0].lower()
                if 3 <= len(caps) <= 5:
                    out.setdefault(caps, key_tokens(" ".join(words[:count])))
            elif word.lower() not in _ARTICLES:
                break
    return out


class NameIndex:
    def __init__(self, directory: Directory, rules: DirectoryRules, place_tokens: frozenset[str],
                 reserved: frozenset[str]) -> None:
        self.generic = rules.query.generic_name_words | _ARTICLES
        self.directional = rules.address.directional_words
        self.blocked = place_tokens | reserved | self.generic
        self.place_words = place_tokens
        self.variants: dict[tuple[str, ...], bool] = {}
        # hashes of each record's whole name and whole name parts ('A (B)': A, B); hashes, not tuples, because at
        # 10^5 records the tuples cost ~100 MB and a key is only looked up here after it matched a variant
        self.wholes: set[int] = set()
        # ... and each of those of four words or more without its last word, when that leaves no generic word at the
        # end ('North Hudson Community Action' for '... Corporation', never 'Rainier Valley Food' for '... Bank'): a
        # regional name inside one of them is the record's name, not the region
        self.heads: set[int] = set()
        # short capitalised forms a name spells out ('UT' in 'University of Toledo (UT Students Only)'): a visitor
        # writing one in capitals names that record even though two letters are never distinctive on their own
        not_acronyms = self.generic | place_tokens | self.directional
        self.acronyms = frozenset(
            word.lower() for record in directory.records for word in _ACRONYM.findall(record.name)
            if word.lower() not in not_acronyms)
        initials: dict[str, set[tuple[str, ...]]] = {}
        for record in directory.records:
            self.wholes.update(hash(key_tokens(part)) for part in [record.name, *_PARTS.split(record.name)])
            self.heads.update(hash(key[:-1]) for part in [record.name, *_PARTS.split(record.name)]
                              if len(key := key_tokens(part)) >= 4 and key[-2] not in self.generic)
            for letters, words in _leading_initials(record.name).items():
                initials.setdefault(letters, set()).add(words)
            for variant in self._variants(record.name):
                self.variants[variant] = self._distinctive(variant)
            for word in _ACRONYM.findall(record.name):
                if word.lower() in self.acronyms:  # found only as a capitalised acronym (QueryParser._names)
                    self.variants.setdefault((word.lower(),), False)
        # 'MCCC' for 'Mercer County Community College Food Pantry': the initials of a name's leading capitalised
        # words, taken (like the acronyms above) only when the visitor writes them in capitals
        # one meaning only: initials two different names share ask nothing and match nothing
        self.spelled_out = {letters: next(iter(words)) for letters, words in initials.items()
                            if len(words) == 1 and letters not in not_acronyms and (letters,) not in self.variants}
        self.acronyms = self.acronyms | frozenset(self.spelled_out)
        for word in self.spelled_out:
            self.variants.setdefault((word,), False)
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
        # interned words: 10^5 names share a few thousand words, so each variant tuple points at one copy of each
        full = tuple(sys.intern(t) for t in key_tokens(name))
        pieces = [full] + [tuple(sys.intern(t) for t in key_tokens(part)) for part in _PARTS.split(name)]
        out = set()
        for piece in pieces:
            # 'dba Hope's Kitchen' -> 'hopes kitchen': leading generic words off, the name's own last word kept
            for variant in (piece, self._trim(piece), self._branch(piece), self._trim_left(piece),
                            self._town_branch(piece)):
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
        # 'Loaves & Fishes': the query tokens drop the ampersand that the name's key spells 'and'
        out |= {tuple(t for t in v if t != "and") for v in out if "and" in v[1:-1]}
        return {v for v in out if v}

    def _trim_left(self, tokens: tuple[str, ...]) -> tuple[str, ...]:
        start = 0
        while start < len(tokens) and tokens[start] in self.generic:
            start += 1
        return tokens[start:] if len(tokens) - start >= 2 else ()

    def _branch(self, tokens: tuple[str, ...]) -> tuple[str, ...]:
        """'Bread For The City NW Center' -> 'bread for the city': a branch's quadrant/direction tail dropped."""
        end = len(tokens)
        while end > 0 and tokens[end - 1] in self.generic:
            end -= 1
        if end < 2 or tokens[end - 1] not in self.directional:
            return ()
        return tokens[:end - 1]

    def _town_branch(self, tokens: tuple[str, ...]) -> tuple[str, ...]:
        """'Hopelink Bellevue' -> 'hopelink': a chain's branch named by its town (a one-word directory place at
        the end), so 'Hopelink in Bellevue' finds it; the head must hold a distinctive word to be taken."""
        end = len(tokens)
        while end > 0 and tokens[end - 1] in self.generic:
            end -= 1
        if end < 2 or tokens[end - 1] not in self.place_words:
            return ()
        head = tokens[:end - 1]
        return head if self._distinctive(head) else ()

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
