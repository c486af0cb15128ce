"""Query parsing: visitor text -> structural constraints (places, hours, names) + semantic constraints.

Order matters and is fixed: pantry names first (a name may contain a place or a weekday), then multi-word place
names, time expressions, semantic concepts, single-word places, ZIP codes and state codes, and finally places the
directory does not know ('Foo County', 'in Springfield'), which make the answer an explicit no-match. Each
recognised span is consumed so one word never counts twice. Place names come from the directory's gazetteer.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime

from engine.directory.constraints import AmbiguousPlace, Constraints, NameConstraint, PlaceConstraint, Proximity
from engine.directory.directory_rules import DirectoryRules
from engine.directory.gazetteer import Gazetteer, Place
from engine.directory.names import NameIndex, NameMatch
from engine.directory.normalize import clean, fold_same_length, key_tokens, tokens_with_spans
from engine.directory.places import PlaceResolver, Resolution
from engine.directory.query_time import QueryTimeParser
from engine.directory.regions import build_regions
from engine.directory.semantic import ConceptMatcher
from engine.directory.vocab_words import standalone_words
from engine.kernel.ports import CarriedKind

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
    alternatives: bool = False  # the visitor asks for other places than the one named
    carried: tuple[CarriedKind, ...] = ()  # constraint kinds carried over from earlier turns of the conversation
    reset: bool = False  # the visitor started a new search: nothing is carried
    standalone: bool = False  # names a place (or a pantry) and what is wanted: a new request, not a follow-up


def _singular(word: str, kinds: frozenset[str]) -> str | None:
    """The kind word ``word`` is, or is the plural of ('schools', 'libraries', 'churches')."""
    for form in (word, word.removesuffix("s"), word.removesuffix("es"), word.removesuffix("ies") + "y"):
        if form in kinds:
            return form
    return None


def _plural(kind: str) -> tuple[str, ...]:
    if kind.endswith("y"):
        return (kind[:-1] + "ies",)
    return (kind + "es",) if kind.endswith(("ch", "sh", "s", "x")) else (kind + "s",)


def _ends_with_phrase(text: str, phrases: tuple[str, ...]) -> bool:
    stripped = text.rstrip()
    return any(stripped.endswith(p) and (len(stripped) == len(p) or not stripped[-len(p) - 1].isalnum())
               for p in phrases)


class QueryParser:
    def __init__(self, rules: DirectoryRules, gazetteer: Gazetteer, names: NameIndex,
                 reserved: frozenset[str], resolver: PlaceResolver | None = None, serves_zips: bool = False) -> None:
        self.rules = rules
        self.serves_zips = serves_zips  # some record states the ZIP codes it serves ('Zip Codes Served: ...')
        self.resolver = resolver
        self._alias_longest = max((len(k) for k in resolver.aliases), default=0) if resolver is not None else 0
        self.gaz = gazetteer
        self.names = names
        self.reserved = reserved
        self.standalone = standalone_words(rules)
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
        self.regions = build_regions(rules, gazetteer, reserved | rules.query.stopwords)
        self._region_len = max((len(k) for k in self.regions), default=0)

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
        after = index + len(key)
        if after < len(tokens):  # 'Liberal KS', 'Liberal, Kansas': a state of the directory right after it
            _, code_start, code_end = tokens[after]
            code = original[code_start:code_end]
            if (code.isupper() and code in self.gaz.state_codes) or any(
                    tuple(w for w, _, _ in tokens[after:after + len(k)]) == k and p.key in self.gaz.state_codes
                    for k, p in self.gaz.states.items()):
                return True
        if index > 0 and tokens[index - 1][0] in self.single_cues:
            return True
        if _ends_with_phrase(folded[:start], self.multi_cues):
            return True
        if original[start].isupper() and not self._sentence_initial(original, start):
            return True
        end = tokens[index][2]
        if (original[start].isupper() or key[0] not in self.standalone) and any(
                folded[end:].lstrip().startswith(w + " ") or folded[end:].strip() == w
                for w in self.rules.query.intent_words if len(w) > 3):
            # 'Independence food pantries', 'pueblo food pantries': a place right before what is asked for,
            # capitalised or a word that has no meaning alone
            return True
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

        places: list[PlaceConstraint] = []
        unknown: list[str] = []
        # a regional name is a place even where a pantry's name contains it ('Gulf Coast Community Ministries')
        self._regional(tokens, words, original, take, places, unknown, notes)
        outside = frozenset(unknown)  # a regional name the directory lists nothing of: no other reading
        names, excluded_names = self._names(tokens, words, folded, original, take)
        ambiguous: list[AmbiguousPlace] = []
        proximity = self._proximity(tokens, words, folded, original, is_free, take, unknown, ambiguous)
        if proximity is not None and proximity.radius is None:
            for pattern in self.rules.natural.radius_anywhere_patterns:
                m = pattern.search(folded)
                if m and take(m.start(), m.end(), "proximity:radius"):
                    proximity = replace(proximity, radius=float(m.group(1)))
                    break
        self._aliases(tokens, words, folded, original, is_free, take, places, ambiguous, min_len=2)
        self._places(tokens, words, folded, original, is_free, take, places, unknown, min_len=2)
        self._aliases(tokens, words, folded, original, is_free, take, places, ambiguous, min_len=1)
        time = self.time.parse(folded, original, free, reference)
        spans.extend(time.spans)
        concepts: list[str] = []
        excluded: list[str] = []
        preferred: list[str] = []
        vocab = self.rules.semantic.concepts
        for request in self.concepts.requests(folded):
            if self._place_word_first(tokens, words, original, request.start):
                continue  # 'Mobile food pantry': a capitalised directory place, not the 'mobile pantry' concept
            if not take(request.start, request.end, f"concept:{request.concept}"):
                continue
            concept = vocab[request.concept]
            if request.unsupported:
                notes.append(f"negated_concept_unsupported:{request.concept}")
            elif request.excluded:
                excluded.append(request.concept)
            elif concept.excludes and concept.unstated_satisfies:
                excluded.extend(concept.excludes)  # 'no appointment': not requiring one is enough
                preferred.append(request.concept)
            elif request.concept not in concepts:
                concepts.append(request.concept)
        self._places(tokens, words, folded, original, is_free, take, places, unknown, min_len=1)
        served_zip = self._zips(folded, is_free, take, places, unknown)
        self._state_codes(tokens, original, is_free, take, places)
        self._quadrants(tokens, words, spans, take, places)
        if not (any(p.kind != "state" for p in places) or unknown or ambiguous or proximity or names):
            self._scan(tokens, words, folded, original, is_free, take, places, unknown, ambiguous, notes)
        self._unknown_places(folded, original, tokens, is_free, take, places, unknown)
        unknown = self._resolve_unknown(unknown, places, ambiguous, notes, keep=outside)
        places = self._drop_non_narrowing_states(places, notes)
        service = self._service(folded)
        residual = tuple(w for w, s, e in tokens if is_free(s, e) and len(w) >= 3 and not w.isdigit()
                         and w not in self.rules.query.stopwords)
        constraints = Constraints(places=tuple(dict.fromkeys(places)), hours=time.hours,
                                  concepts=tuple(concepts), names=tuple(names),
                                  excluded_names=tuple(excluded_names), served_zip=served_zip,
                                  unknown_places=tuple(dict.fromkeys(unknown)), proximity=proximity,
                                  ambiguous=tuple(ambiguous), service=service,
                                  excluded=tuple(dict.fromkeys(excluded)), preferred=tuple(dict.fromkeys(preferred)),
                                  places_any=self._listed_apart(places, folded))
        intent = (constraints.has_structural or bool(concepts) or bool(excluded) or bool(preferred)
                  or bool(ambiguous) or service is not None or any(w in self.rules.query.intent_words for w in words))
        nat = self.rules.natural
        asks = any(w in self.rules.query.intent_words for w in words)
        return ParsedQuery(text=original, language=self._language(words, original), constraints=constraints,
                           residual=residual, intent=intent, spans=tuple(sorted(spans)), notes=tuple(notes),
                           alternatives=_has_phrase(folded, nat.alternatives_cues),
                           reset=_has_phrase(folded, nat.reset_cues),
                           standalone=asks and (constraints.has_location or bool(ambiguous) or bool(names))
                           and not _starts_with_phrase(folded, nat.continue_cues))

    def _listed_apart(self, places: list[PlaceConstraint], folded: str) -> bool:
        """ZIP codes of an area and towns listed together ('<area>, <town> or <area>') are alternatives when no
        ZIP's main town (ZIP source) is one of the towns: their intersection is empty by construction. A ZIP
        inside a named town ('<ZIP>, <town>') still narrows it."""
        zips = [p.key for p in places if p.kind == "zip"]
        towns = {p.key for p in places if p.kind == "city"}
        if not zips or not towns or self.resolver is None or any(p.kind not in ("zip", "city") for p in places):
            return False
        if not re.search(r"\bor\b|\bo\b|\bou\b|,|/|&|\band\b|\by\b", folded):
            return False
        rows = self.resolver.us.zips
        return not any(row is not None and " ".join(key_tokens(row.city)) in towns
                       for row in (rows.get(z) for z in zips))

    def _inside_longer_place(self, words: list[str], i: int, size: int) -> bool:
        for before in range(0, 3):
            for after in range(0, 3):
                if not (before or after) or i - before < 0 or i + size + after > len(words):
                    continue
                longer = tuple(words[i - before:i + size + after])
                if self.gaz.lookup(longer) or (self.resolver is not None and longer in self.resolver.aliases):
                    return True  # 'South SF' is the directory's South San Francisco, not 'SF' after 'south'
        return False

    def _inside_whole_name(self, words: list[str], i: int, size: int) -> bool:
        """The words around a regional name spell a record's whole name (or a whole part of it)."""
        longest = self.names.max_len
        for first in range(max(0, i - longest), i + 1):
            for last in range(i + size, min(len(words), first + longest) + 1):
                key = hash(tuple(words[first:last]))
                if last - first > size and (key in self.names.wholes or key in self.names.heads):
                    return True
        return False

    def _state_after(self, words: list[str], index: int) -> bool:
        """'Montgomery Alabama', 'Columbus, OH': a state name or code right after marks the words as a town."""
        return any(tuple(words[index:index + n]) in self.gaz.states or (
            n == 1 and index < len(words) and words[index].upper() in self.gaz.state_codes) for n in (1, 2))

    def _unlisted_town(self, key: tuple[str, ...]) -> bool:
        """A real town of a state the directory covers that is not one of the directory's towns."""
        if self.resolver is None or key in self.gaz.cities or " ".join(key) not in self.resolver.derived_counties:
            return False
        return any((key, state) in self.resolver.us.towns for state in self.gaz.state_codes)

    def _place_word_first(self, tokens: list[tuple[str, int, int]], words: list[str], original: str,
                          start: int) -> bool:
        """The phrase starts with a capitalised word naming a directory place."""
        for i, (_, s, _) in enumerate(tokens):
            if s == start:
                return original[s:s + 1].isupper() and bool(self.gaz.lookup((words[i],)))
        return False

    # ------------------------------------------------------------------ places as people say them
    def _regional(self, tokens: list[tuple[str, int, int]], words: list[str], original: str,
                  take: Callable[[int, int, str], bool], places: list[PlaceConstraint], unknown: list[str],
                  notes: list[str]) -> None:
        """Regional and informal names from the rule data, longest first ('the Mississippi Gulf Coast', 'NoHo')."""
        for size in range(min(self._region_len, len(tokens)), 0, -1):
            for i in range(len(tokens) - size + 1):
                match = self.regions.get(tuple(words[i:i + size]))
                start, end = tokens[i][1], tokens[i + size - 1][2]
                if match is None or self._inside_longer_place(words, i, size):
                    continue  # 'Long Island City' is a directory town, not the region 'Long Island'
                if self._inside_whole_name(words, i, size):
                    continue  # 'Ballard Food Bank' is one record's whole name, not the neighbourhood's pantries
                if not take(start, end, "place:region"):
                    continue
                said = original[start:end]
                if match.places:
                    places.extend(match.places)
                    notes.append(f"place_region:{said}->{','.join(p.label for p in match.places)}")
                else:
                    unknown.append(said)

    def _cue_before(self, tokens: list[tuple[str, int, int]], index: int, folded: str) -> bool:
        start = tokens[index][1]
        return (index > 0 and tokens[index - 1][0] in self.single_cues) or _ends_with_phrase(
            folded[:start], self.multi_cues)

    def _intent_after(self, folded: str, end: int) -> bool:
        rest = folded[end:].lstrip(" ,")
        return any(rest.startswith(w) and (len(rest) == len(w) or not rest[len(w)].isalnum())
                   for w in self.rules.query.intent_words if len(w) > 3)

    def _add_resolution(self, resolution: Resolution, said: str, places: list[PlaceConstraint],
                        ambiguous: list[AmbiguousPlace], notes: list[str]) -> bool:
        if resolution.resolved is not None:
            place = resolution.resolved
            places.append(PlaceConstraint(place.kind, place.key, place.label))
            notes.append(f"place_{resolution.how}:{said}->{place.label}")
            return True
        if len(resolution.places) > 1 or (resolution.how == "suggest" and resolution.places):
            ambiguous.append(AmbiguousPlace(said, tuple(p.label for p in resolution.places)))
            return True
        return False

    def _aliases(self, tokens: list[tuple[str, int, int]], words: list[str], folded: str, original: str,
                 is_free: Callable[[int, int], bool], take: Callable[[int, int, str], bool],
                 places: list[PlaceConstraint], ambiguous: list[AmbiguousPlace], min_len: int) -> None:
        """Derived aliases and landmark names ('KCK', 'Mtn View', 'University of Kansas'); one word needs a cue,
        a capital or to come right before what is asked for."""
        if self.resolver is None:
            return
        for size in range(min(self._alias_longest, len(tokens)), min_len - 1, -1):
            for i in range(len(tokens) - size + 1):
                start, end = tokens[i][1], tokens[i + size - 1][2]
                key = tuple(words[i:i + size])
                found = self.resolver.aliases.get(key)
                if not found or not is_free(start, end) or self._inside_longer_place(words, i, size):
                    continue
                if size == 1 and not (self._cue_before(tokens, i, folded) or original[start].isupper()
                                      or self._intent_after(folded, end)):
                    continue
                if take(start, end, "place:alias"):
                    self._add_resolution(Resolution("alias", tuple(sorted(found, key=lambda p: p.label))),
                                         original[start:end], places, ambiguous, [])

    def _resolve_unknown(self, unknown: list[str], places: list[PlaceConstraint], ambiguous: list[AmbiguousPlace],
                         notes: list[str], keep: frozenset[str] = frozenset()) -> list[str]:
        """A place word the gazetteer does not know exactly: alias, prefix or misspelling of a directory place?"""
        if self.resolver is None:
            return unknown
        kept = []
        suffixes = self.county_suffixes
        for said in unknown:
            key = key_tokens(said)
            county = bool(key) and key[-1] in suffixes
            core = key[:-1] if county else key
            if said.startswith("ZIP ") or said in keep or not self._add_resolution(
                    self.resolver.resolve(core, cued=True, county_only=county), said, places, ambiguous, notes):
                kept.append(said)
        return kept

    def _scan(self, tokens: list[tuple[str, int, int]], words: list[str], folded: str, original: str,
              is_free: Callable[[int, int], bool], take: Callable[[int, int, str], bool],
              places: list[PlaceConstraint], unknown: list[str], ambiguous: list[AmbiguousPlace],
              notes: list[str]) -> None:
        """No place found: free words in a place position ('around wichta', 'Lawrance food pantries')."""
        if self.resolver is None:
            return
        skip = self.reserved | self.rules.query.stopwords
        for i in range(len(tokens) - 1):  # 'D.C.': a state code written with dots
            size = 2
            key = tuple(words[i:i + size])
            state = self.gaz.state_codes.get("".join(key).upper()) if all(len(w) == 1 for w in key) else None
            start, end = tokens[i][1], tokens[i + size - 1][2]
            if state is not None and "." in original[start:end + 1] and take(start, end, "place:state"):
                places.append(PlaceConstraint("state", state.key, state.label))
                return
        for size in (3, 2, 1):
            for i in range(len(tokens) - size + 1):
                start, end = tokens[i][1], tokens[i + size - 1][2]
                key = tuple(words[i:i + size])
                county_next = i + size < len(tokens) and words[i + size] in self.county_suffixes
                if (not is_free(start, end) or key[0] in skip or key[-1] in self.rules.query.stopwords
                        or any(w.isdigit() for w in key) or county_next):
                    continue
                cued = self._cue_before(tokens, i, folded) or self._intent_after(folded, end) or (
                    original[start].isupper() and not self._sentence_initial(original, start)) or (
                    self._state_after(words, i + size))
                resolution = self.resolver.resolve(key, cued=cued)
                if resolution.how == "unlisted":
                    if cued and take(start, end, "place:unknown"):
                        unknown.append(original[start:end])
                        return
                    continue
                if resolution.how in ("prefix", "alias") and not cued:
                    continue
                if resolution.places and take(start, end, "place:resolved"):
                    self._add_resolution(resolution, original[start:end], places, ambiguous, notes)
                    return

    def _proximity(self, tokens: list[tuple[str, int, int]], words: list[str], folded: str, original: str,
                   is_free: Callable[[int, int], bool], take: Callable[[int, int, str], bool],
                   unknown: list[str], ambiguous: list[AmbiguousPlace]) -> Proximity | None:
        """'near 66044', 'closest to 67202', 'within 10 miles of Topeka', 'near me ... 66044': a distance anchor.
        A town named with a plain 'near' or 'in' keeps the exact-town meaning."""
        if self.resolver is None:
            return None
        nat = self.rules.natural
        for index, (_, start, _end) in enumerate(tokens):
            before = folded[:start].rstrip()
            radius = None
            for pattern in nat.radius_patterns:
                m = pattern.search(before + " ")
                if m:
                    radius = float(m.group(1))
                    break
            nearest = any(before.endswith(c) and (len(before) == len(c) or not before[-len(c) - 1].isalnum())
                          for c in nat.anchor_cues)
            if radius is None and not nearest:
                continue
            zip_cue = 0
            while index + zip_cue < len(tokens) and words[index + zip_cue] in ("zip", "code", "zipcode"):
                zip_cue += 1
            if index + zip_cue < len(tokens) and _is_zip(words[index + zip_cue]):
                _, _, e2 = tokens[index + zip_cue]
                point = self.resolver.point_of(Place("zip", words[index + zip_cue], words[index + zip_cue]))
                if point is not None and take(start, e2, "proximity:zip"):
                    return Proximity(point, words[index + zip_cue], radius)
                continue
            zip_only = radius is None and any(before.endswith(c) for c in nat.zip_only_cues) and not any(
                before.endswith(c) for c in nat.anchor_cues if c not in nat.zip_only_cues)
            if zip_only:
                # 'near Stanford': a real town the directory does not list has no exact reading; rank by distance
                for size in (3, 2, 1):
                    key = tuple(words[index:index + size])
                    if index + size > len(tokens):
                        continue
                    if self.gaz.lookup(key) or key in self.resolver.aliases:
                        break  # a listed place ('Johnson City'): the exact reading, not a shorter town ('Johnson')
                    point = self.resolver.town_point(key)
                    stop = tokens[index + size - 1][2]
                    if point is not None and is_free(start, stop) and take(start, stop, "proximity:town"):
                        return Proximity(point, original[start:stop], radius)
                continue
            for size in (3, 2, 1):
                if index + size > len(tokens):
                    continue
                key = tuple(words[index:index + size])
                stop = tokens[index + size - 1][2]
                found = self.gaz.lookup(key)
                place = next((p for p in found if p.kind == "city"), None)
                if place is None:
                    resolution = self.resolver.resolve(key, cued=True)
                    place = resolution.resolved if resolution.resolved is not None and (
                        resolution.resolved.kind == "city") else None
                point = self.resolver.point_of(place) if place is not None else self.resolver.town_point(key)
                if point is not None and is_free(start, stop) and take(start, stop, "proximity:place"):
                    return Proximity(point, place.label if place is not None else original[start:stop], radius)
        # 'near me' anywhere + a ZIP anywhere: the ZIP is where the visitor is
        if any(_has_phrase(folded, (cue,)) for cue in nat.anywhere_cues):
            for m in _ZIP.finditer(folded):
                point = self.resolver.point_of(Place("zip", m.group(1), m.group(1)))
                if point is not None and is_free(m.start(), m.end()) and take(m.start(), m.end(), "proximity:zip"):
                    return Proximity(point, m.group(1), None)
        return None

    def _service(self, folded: str) -> str | None:
        for service in self.rules.natural.services.values():
            if any(p.search(folded) for p in service.query_patterns):
                return service.id
        return None

    # ------------------------------------------------------------------ names
    def _names(self, tokens: list[tuple[str, int, int]], words: list[str], folded: str, original: str,
               take: Callable[[int, int, str], bool]) -> tuple[list[NameConstraint], list[NameConstraint]]:
        """Names the visitor asks for, and names they exclude ('not the Salvation Army')."""
        generic = self.names.generic

        def accept(match: NameMatch) -> bool:
            start, end = tokens[match.start][1], tokens[match.end - 1][2]
            cued = self._cued(folded, start, end, original)
            surface = original[start:end]
            spelled = self.names.spelled_out.get(match.key[0]) if len(match.key) == 1 else None
            if spelled is not None and self._place_words_only(spelled):
                return False  # 'WNY': the initials of a town the directory lists, not of the pantry named after it
            if (len(match.key) == 1 and match.key[0] in self.names.acronyms and surface.isupper()
                    and surface not in self.gaz.state_codes and match.key[0] not in self.names.blocked
                    and not any(r.start < end and start < r.end for r in self.concepts.requests(folded))):
                return True  # 'students at UT': the capitals a record's name spells, not a state elsewhere
            if self._place_words_only(match.key):
                return False  # 'Elizabeth NJ', 'North Plainfield': a town (and state) the visitor names, not a pantry
            if match.distinctive and len(match.key) >= 2:
                return True
            if match.distinctive:
                return cued or (original[start].isupper() and not self._inside_longer_title(original, start, end))
            # generic words only ('First Baptist Church', 'Iola Food Pantry'): only after a recall cue, and when
            # every word is generic only if the visitor wrote it as a title ('Tell me about The Food Pantry')
            titled = all(w[:1].isupper() for w in surface.split() if w[:1].isalpha())
            if titled and len(match.key) >= 3 and hash(match.key) in self.names.wholes:
                return True  # 'Trenton Area Soup Kitchen' written as a title: a whole name, not place + service
            if any(t not in generic for t in match.key):
                # 'Grace Mobile Pantry open tomorrow?' - but a titled place ('Garden City') stays a place
                own_word = any(t not in generic and t not in self.gaz.place_tokens for t in match.key)
                return cued or (titled and len(match.key) >= 2 and own_word)
            return cued and titled

        found: list[NameConstraint] = []
        excluded: list[NameConstraint] = []
        for match in self.names.find(words, accept):
            start, end = tokens[match.start][1], tokens[match.end - 1][2]
            key = match.key
            while len(key) > 1 and key[0] in _ARTICLES:
                key = key[1:]  # 'the Salvation Army' also names 'Salvation Army - Newton'
            key = self.names.spelled_out.get(key[0], key) if len(key) == 1 else key  # 'MCCC': the words it spells
            if take(start, end, "name"):
                # 'not the Salvation Army', 'other than Hopelink': records of that name are excluded
                negated = any(p.search(folded[max(0, start - 30):start]) for p in self.rules.natural.name_negation)
                (excluded if negated else found).append(NameConstraint(key=key, label=original[start:end]))
        excluded.extend(self._negated_kinds(tokens, words, folded, original, take))
        return found, excluded

    def _negated_kinds(self, tokens: list[tuple[str, int, int]], words: list[str], folded: str, original: str,
                       take: Callable[[int, int, str], bool]) -> list[NameConstraint]:
        """'not a school', "aren't at the library": a kind of host right after a name negation excludes the
        records whose name states it (singular or plural), as a negated name does."""
        nat = self.rules.natural
        out: list[NameConstraint] = []
        for i, word in enumerate(words):
            kind = _singular(word, nat.negatable_kinds)
            start, end = tokens[i][1], tokens[i][2]
            if kind is None or not any(p.search(folded[max(0, start - 30):start]) for p in nat.name_negation):
                continue
            if take(start, end, "name"):
                out.append(NameConstraint(key=(kind,), label=original[start:end]))
                out.append(NameConstraint(key=_plural(kind), label=original[start:end]))
        return out

    def _place_words_only(self, key: tuple[str, ...]) -> bool:
        """Every word is a word of a directory town or county or a state's name or code, and the words are not one
        record's whole name: the visitor names a place that pantry names happen to contain."""
        if hash(key) in self.names.wholes:
            return False
        if self.gaz.lookup(key):
            return True
        states = set(self.gaz.states) | {(c.lower(),) for c in self.gaz.state_codes}
        return any(len(key) > n and key[-n:] in states and bool(self.gaz.lookup(key[:-n])) for n in (1, 2))

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
                if county_mark and found and not any(p.kind == "county" for p in found) and (
                        original[tokens[after][1]:tokens[after][2]] in self.gaz.state_codes):
                    county_mark = False  # 'La Junta CO': the state code, not 'Co.' for county
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
                elif "state" in by_kind and folded[:start].rstrip().endswith(",") and any(
                        self.gaz.lookup(tuple(words[i - n:i])) for n in (1, 2, 3) if i - n >= 0):
                    chosen = by_kind["state"]  # 'Troy, New York': a state name qualifying the place before it
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
                if chosen.kind == "county" and not (county_mark or county_prefix) and self._unlisted_town(key):
                    # 'Worcester' said alone: the town (which the directory does not list), not its county
                    if take(start, stop, "place:unknown"):
                        unknown.append(original[start:stop])
                    continue
                if chosen.kind == "state" and chosen.key not in self.gaz.state_codes:
                    if take(start, stop, "place:unknown"):
                        unknown.append(original[start:stop])
                    continue
                if take(start, stop, f"place:{chosen.kind}"):
                    places.append(PlaceConstraint(chosen.kind, chosen.key, chosen.label))

    def _zips(self, folded: str, is_free: Callable[[int, int], bool], take: Callable[[int, int, str], bool],
              places: list[PlaceConstraint], unknown: list[str]) -> str | None:
        """ZIP codes as places; in a directory stating the ZIPs it serves, one the visitor lives in ('I live in
        94116') is returned instead: records serving it, wherever they are."""
        served: str | None = None
        for m in _ZIP.finditer(folded):
            if not is_free(m.start(), m.end()):
                continue
            code = m.group(1)
            before = folded[max(0, m.start() - 30):m.start()]
            real = code in self.gaz.zips or (self.resolver is not None and code in self.resolver.us.zips)
            if (self.serves_zips and served is None and real
                    and any(p.search(before) for p in self.rules.natural.residence_zip_cues)):
                if take(m.start(), m.end(), "served_zip"):
                    served = code
                continue
            if code in self.gaz.zips:
                if take(m.start(), m.end(), "place:zip"):
                    places.append(PlaceConstraint("zip", code, code))
            elif take(m.start(), m.end(), "place:unknown"):
                unknown.append(f"ZIP {code}")
        return served

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


def _has_phrase(text: str, phrases: tuple[str, ...]) -> bool:
    return any(re.search(rf"(?<![a-z0-9]){re.escape(p)}(?![a-z0-9])", text) for p in phrases)


def _is_zip(word: str) -> bool:
    return len(word) == 5 and word.isdigit()


def _starts_with_phrase(text: str, phrases: tuple[str, ...]) -> bool:
    stripped = text.lstrip(" ¿¡.,-")
    return any(stripped.startswith(p) and (len(stripped) == len(p) or not stripped[len(p)].isalnum())
               for p in phrases)
