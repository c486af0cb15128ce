"""Query parsing: visitor text -> structural constraints (places, hours, names) + semantic constraints.

Order matters and is fixed: pantry names first (a name may contain a place or a weekday), then multi-word place
names, time expressions, semantic concepts, single-word places, ZIP codes and state codes, and finally places the
directory does not know ('Foo County', 'in Springfield'), which make the answer an explicit no-match. Each
recognised span is consumed so one word never counts twice. Place names come from the directory's gazetteer.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from engine.directory.constraints import Constraints, NameConstraint, PlaceConstraint
from engine.directory.gazetteer import Gazetteer, Place
from engine.directory.names import NameIndex, NameMatch
from engine.directory.normalize import clean, fold_same_length, tokens_with_spans
from engine.directory.query_time import QueryTimeParser
from engine.directory.rules import DirectoryRules
from engine.directory.semantic import ConceptMatcher

_ZIP = re.compile(r"(?<![\d-])(\d{5})(?:-\d{4})?(?![\d])")
_QUOTES = "\"'“”«»"
_ARTICLES = frozenset({"the", "a", "an", "el", "la", "los", "las"})


@dataclass(frozen=True)
class ParsedQuery:
    text: str
    language: str
    constraints: Constraints
    residual: tuple[str, ...]  # leftover content words, for text ranking only
    intent: bool  # the message asks the directory something
    spans: tuple[tuple[int, int, str], ...]  # (start, end, kind) over the normalised text
    notes: tuple[str, ...]


def _ends_with_phrase(text: str, phrases: tuple[str, ...]) -> bool:
    stripped = text.rstrip()
    return any(stripped.endswith(p) and (len(stripped) == len(p) or not stripped[-len(p) - 1].isalnum())
               for p in phrases)


class QueryParser:
    def __init__(self, rules: DirectoryRules, gazetteer: Gazetteer, names: NameIndex,
                 reserved: frozenset[str]) -> None:
        self.rules = rules
        self.gaz = gazetteer
        self.names = names
        self.reserved = reserved
        self.time = QueryTimeParser(rules.time)
        self.concepts = ConceptMatcher(rules.semantic)
        q = rules.query
        self.single_cues = frozenset(c for c in q.locative_cues if " " not in c)
        self.multi_cues = tuple(c for c in q.locative_cues if " " in c)
        self.county_suffixes = frozenset(s.rstrip(".") for s in q.county_suffixes)
        suffixes = "|".join(re.escape(x) for x in sorted(self.county_suffixes, key=len, reverse=True))
        self._shared_county_suffix = re.compile(
            rf"^\s*(?:,|or|and|&|y|o|/)\s+(?:[a-z][a-z'.-]*\s+){{1,3}}(?:{suffixes}|condados)(?![a-z])")
        articles = ("the ", "el ", "la ", "los ", "las ", "")
        self.recall_cues = tuple(f"{cue} {a}".strip() for cue in q.recall_cues for a in articles)

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _sentence_initial(text: str, start: int) -> bool:
        before = text[:start].rstrip()
        return not before or before[-1] in ".!?¿¡:" or before[-1] in _QUOTES

    @staticmethod
    def _inside_longer_title(original: str, start: int, end: int) -> bool:
        """'Harvest' in 'Harvest of Hope': one capitalised word of a longer title is not that title."""
        before = original[:start].rstrip().split()
        after = original[end:].lstrip().split()
        if before and before[-1][:1].isupper() and not before[-1].endswith((".", "?", "!", ":")) and len(before) > 1:
            return True
        if after and after[0][:1].isupper():
            return True
        return len(after) >= 2 and after[0].lower() in {"of", "de", "and", "&", "for", "del"} and after[1][:1].isupper()

    def _cued(self, folded: str, start: int, end: int, original: str) -> bool:
        before = folded[:start]
        if start > 0 and original[start - 1] in _QUOTES and end < len(original) and original[end] in _QUOTES:
            return True
        if _ends_with_phrase(before, self.recall_cues):
            return True
        after = folded[end:].lstrip()
        after = after[2:].lstrip() if after.startswith("'s") else after
        return any(after.startswith(cue) and (len(after) == len(cue) or not after[len(cue)].isalnum())
                   for cue in self.rules.query.recall_suffix_cues)

    def _place_ok(self, key: tuple[str, ...], tokens: list[tuple[str, int, int]], index: int, folded: str,
                  original: str) -> bool:
        start = tokens[index][1]
        if len(key) >= 2:
            return True
        if index > 0 and tokens[index - 1][0] in self.single_cues:
            return True
        if _ends_with_phrase(folded[:start], self.multi_cues):
            return True
        if original[start].isupper() and not self._sentence_initial(original, start):
            return True
        end = tokens[index][2]
        if original[start].isupper() and any(folded[end:].lstrip().startswith(w + " ") or
                                             folded[end:].strip() == w for w in self.rules.query.intent_words
                                             if len(w) > 3):
            return True  # 'Independence food pantries': a capitalised place right before what is asked for
        word = key[0]
        return len(word) >= 3 and not word.isdigit() and word not in self.reserved

    # ------------------------------------------------------------------ main
    def parse(self, text: str, reference: datetime) -> ParsedQuery:
        original = clean(text)
        folded = fold_same_length(original)
        free = [True] * len(folded)
        spans: list[tuple[int, int, str]] = []
        notes: list[str] = []
        tokens = tokens_with_spans(folded)
        words = [t for t, _, _ in tokens]

        def is_free(start: int, end: int) -> bool:
            return all(free[start:end])

        def take(start: int, end: int, kind: str) -> bool:
            if not is_free(start, end):
                return False
            for i in range(start, end):
                free[i] = False
            spans.append((start, end, kind))
            return True

        names = self._names(tokens, words, folded, original, take)
        places: list[PlaceConstraint] = []
        unknown: list[str] = []
        self._places(tokens, words, folded, original, is_free, take, places, unknown, min_len=2)
        time = self.time.parse(folded, original, free, reference)
        spans.extend(time.spans)
        concepts: list[str] = []
        for request in self.concepts.requests(folded):
            if not take(request.start, request.end, f"concept:{request.concept}"):
                continue
            if request.unsupported:
                notes.append(f"negated_concept_unsupported:{request.concept}")
            elif request.concept not in concepts:
                concepts.append(request.concept)
        self._places(tokens, words, folded, original, is_free, take, places, unknown, min_len=1)
        self._zips(folded, is_free, take, places, unknown)
        self._state_codes(tokens, original, is_free, take, places)
        self._quadrants(tokens, words, spans, take, places)
        self._unknown_places(folded, original, tokens, is_free, take, places, unknown)
        places = self._drop_non_narrowing_states(places, notes)
        residual = tuple(w for w, s, e in tokens if is_free(s, e) and len(w) >= 3 and not w.isdigit()
                         and w not in self.rules.query.stopwords)
        constraints = Constraints(places=tuple(dict.fromkeys(places)), hours=time.hours,
                                  concepts=tuple(concepts), names=tuple(names),
                                  unknown_places=tuple(dict.fromkeys(unknown)))
        intent = constraints.has_structural or bool(concepts) or any(
            w in self.rules.query.intent_words for w in words)
        return ParsedQuery(text=original, language=self._language(words, original), constraints=constraints,
                           residual=residual, intent=intent, spans=tuple(sorted(spans)), notes=tuple(notes))

    # ------------------------------------------------------------------ names
    def _names(self, tokens: list[tuple[str, int, int]], words: list[str], folded: str, original: str,
               take: Callable[[int, int, str], bool]) -> list[NameConstraint]:
        generic = self.names.generic

        def accept(match: NameMatch) -> bool:
            start, end = tokens[match.start][1], tokens[match.end - 1][2]
            cued = self._cued(folded, start, end, original)
            if match.distinctive and len(match.key) >= 2:
                return True
            if match.distinctive:
                return cued or (original[start].isupper() and not self._inside_longer_title(original, start, end))
            # generic words only ('First Baptist Church', 'Iola Food Pantry'): only after a recall cue, and when
            # every word is generic only if the visitor wrote it as a title ('Tell me about The Food Pantry')
            surface = original[start:end]
            titled = all(w[:1].isupper() for w in surface.split() if w[:1].isalpha())
            if any(t not in generic for t in match.key):
                # 'Grace Mobile Pantry open tomorrow?' - but a titled place ('Garden City') stays a place
                own_word = any(t not in generic and t not in self.gaz.place_tokens for t in match.key)
                return cued or (titled and len(match.key) >= 2 and own_word)
            return cued and titled

        found = []
        for match in self.names.find(words, accept):
            start, end = tokens[match.start][1], tokens[match.end - 1][2]
            key = match.key
            while len(key) > 1 and key[0] in _ARTICLES:
                key = key[1:]  # 'the Salvation Army' also names 'Salvation Army - Newton'
            if take(start, end, "name"):
                found.append(NameConstraint(key=key, label=original[start:end]))
        return found

    # ------------------------------------------------------------------ places
    def _places(self, tokens: list[tuple[str, int, int]], words: list[str], folded: str, original: str,
                is_free: Callable[[int, int], bool], take: Callable[[int, int, str], bool],
                places: list[PlaceConstraint], unknown: list[str], min_len: int) -> None:
        q = self.rules.query
        for size in range(min(self.gaz.max_tokens, len(tokens)), min_len - 1, -1):
            for i in range(len(tokens) - size + 1):
                start, end = tokens[i][1], tokens[i + size - 1][2]
                if not is_free(start, end):
                    continue
                key = tuple(words[i:i + size])
                after = i + size
                county_mark = after < len(tokens) and words[after] in self.county_suffixes and is_free(
                    tokens[after][1], tokens[after][2])
                found = self.gaz.lookup(key)
                if not found and size == 1 and county_mark and key[0] in self.gaz.county_initials:
                    found = [self.gaz.county_initials[key[0]]]  # 'PG county': initials need the suffix
                if not found:
                    continue
                by_kind: dict[str, Place] = {p.kind: p for p in found}
                county_prefix = _ends_with_phrase(folded[:start], q.county_prefixes)
                city_prefix = _ends_with_phrase(folded[:start], q.city_prefixes)
                if county_mark or county_prefix:
                    chosen = by_kind.get("county")
                    if chosen is None:
                        continue  # 'Sedgwick County' where only a city Sedgwick exists: left to unknown places
                elif city_prefix:
                    chosen = by_kind.get("city")
                    if chosen is None:
                        continue
                else:
                    chosen = by_kind.get("city") or by_kind.get("county") or by_kind.get("state")
                    if "county" in by_kind and self._shared_county_suffix.match(folded[end:]):
                        chosen = by_kind["county"]  # 'Shawnee or Douglas county': the suffix covers both
                    # a state name listed in the address vocabulary ('dc') is specific enough without a cue,
                    # but only for a state the directory actually covers
                    named_state = chosen is not None and chosen.kind == "state" and chosen.key in self.gaz.state_codes
                    if chosen is None or not (named_state or self._place_ok(key, tokens, i, folded, original)):
                        continue
                stop = tokens[after][2] if county_mark else end
                if chosen.kind == "state" and chosen.key not in self.gaz.state_codes:
                    if take(start, stop, "place:unknown"):
                        unknown.append(original[start:stop])
                    continue
                if take(start, stop, f"place:{chosen.kind}"):
                    places.append(PlaceConstraint(chosen.kind, chosen.key, chosen.label))

    def _zips(self, folded: str, is_free: Callable[[int, int], bool], take: Callable[[int, int, str], bool],
              places: list[PlaceConstraint], unknown: list[str]) -> None:
        for m in _ZIP.finditer(folded):
            if not is_free(m.start(), m.end()):
                continue
            code = m.group(1)
            if code in self.gaz.zips:
                if take(m.start(), m.end(), "place:zip"):
                    places.append(PlaceConstraint("zip", code, code))
            elif take(m.start(), m.end(), "place:unknown"):
                unknown.append(f"ZIP {code}")

    def _state_codes(self, tokens: list[tuple[str, int, int]], original: str, is_free: Callable[[int, int], bool],
                     take: Callable[[int, int, str], bool], places: list[PlaceConstraint]) -> None:
        for _, start, end in tokens:
            surface = original[start:end]
            if len(surface) == 2 and surface.isupper() and surface in self.gaz.state_codes and is_free(start, end):
                place = self.gaz.state_codes[surface]
                if take(start, end, "place:state"):
                    places.append(PlaceConstraint("state", place.key, place.label))

    def _quadrants(self, tokens: list[tuple[str, int, int]], words: list[str], spans: list[tuple[int, int, str]],
                   take: Callable[[int, int, str], bool], places: list[PlaceConstraint]) -> None:
        """'NW DC', 'southeast dc', 'Washington NE': a quadrant word directly before or after a city/state."""
        if not self.gaz.quadrants:
            return
        anchors = [(s, e) for s, e, kind in spans if kind in ("place:city", "place:state")]
        for size in (2, 1):
            for i in range(len(tokens) - size + 1):
                place = self.gaz.quadrants.get(tuple(words[i:i + size]))
                start, end = tokens[i][1], tokens[i + size - 1][2]
                if place is None or not any(0 <= s - end <= 1 or 0 <= start - e <= 1 for s, e in anchors):
                    continue
                if take(start, end, "place:quadrant"):
                    places.append(PlaceConstraint("quadrant", place.key, place.label))

    def _unknown_places(self, folded: str, original: str, tokens: list[tuple[str, int, int]],
                        is_free: Callable[[int, int], bool], take: Callable[[int, int, str], bool],
                        places: list[PlaceConstraint], unknown: list[str]) -> None:
        q = self.rules.query
        skip = self.reserved | q.stopwords
        suffix_alt = "|".join(re.escape(s) for s in sorted(self.county_suffixes, key=len, reverse=True))
        for m in re.finditer(rf"((?:[a-z][a-z'.-]*\s+){{0,2}}[a-z][a-z'.-]*)\s+(?:{suffix_alt})\.?(?![a-z])", folded):
            words = m.group(1).split()
            while words and (words[0] in skip or words[0] in self.single_cues):
                words = words[1:]
            if not words:
                continue
            start = m.start(1) + m.group(1).rfind(" ".join(words))
            if is_free(start, m.end()) and take(start, m.end(), "place:unknown"):
                unknown.append(original[start:m.end()])
        prefix_alt = "|".join(re.escape(p) for p in sorted(q.county_prefixes + q.city_prefixes, key=len, reverse=True))
        for m in re.finditer(rf"(?:{prefix_alt})\s+([a-z][a-z'.-]*(?:\s+[a-z][a-z'.-]*)?)", folded):
            name = [w for w in m.group(1).split() if w not in skip]
            if name and is_free(m.start(1), m.end(1)) and take(m.start(1), m.end(1), "place:unknown"):
                unknown.append(original[m.start(1):m.end(1)])
        if places or unknown:
            return
        for index, (_, start, end) in enumerate(tokens):
            if index == 0 or tokens[index - 1][0] not in self.single_cues or not is_free(start, end):
                continue
            surface = original[start:end]
            word = folded[start:end]
            if not surface[:1].isupper() or word in skip or word in q.non_place_capitalized:
                continue
            stop = end
            for _, s2, e2 in tokens[index + 1:index + 3]:
                if original[s2:e2][:1].isupper() and is_free(s2, e2) and folded[s2:e2] not in skip:
                    stop = e2
                else:
                    break
            if take(start, stop, "place:unknown"):
                unknown.append(original[start:stop])
            break

    def _drop_non_narrowing_states(self, places: list[PlaceConstraint], notes: list[str]) -> list[PlaceConstraint]:
        kept = []
        for place in places:
            if place.kind == "state" and self.gaz.state_coverage.get(place.key, 0.0) >= 1.0:
                notes.append(f"state_not_narrowing:{place.key}")
                continue
            kept.append(place)
        return kept

    def _language(self, words: list[str], original: str) -> str:
        if any(ch in original for ch in "¿¡ñÑ"):
            return "es"
        markers = sum(1 for w in words if w in self.rules.query.spanish_markers)
        return "es" if markers >= 2 and markers >= 0.25 * max(len(words), 1) else "en"
