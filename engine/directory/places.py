"""Places as people say them, resolved against the directory's own gazetteer (built at ingestion).

Aliases are derived, never listed: word abbreviations of every directory place name ('Mtn View', 'So. San
Francisco'), initials plus the state's letter or code ('KCK' for Kansas City, Kansas), a generic last word dropped
('Dodge' for Dodge City) and alternate names of the packaged ZIP source naming a university or college ('University
of Kansas' -> Lawrence, also reordered and as initials). Then word prefixes ('Hutch', 'Ark City') and fuzzy matching
of misspellings (rapidfuzz ratio above a rule threshold). Close or equal candidates make a clarification that names
them. A real town the directory does not list (in or outside its states) stays unknown, so the answer is a
no-match rather than a guess.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np
from rapidfuzz import fuzz, process

from engine.directory.directory_rules import DirectoryRules
from engine.directory.gazetteer import Gazetteer, Place
from engine.directory.geo import EARTH_MILES, Point, UsPlaces, miles
from engine.directory.geo_cache import us_places
from engine.directory.ingest import Directory
from engine.directory.normalize import key_tokens

Key = tuple[str, ...]


@dataclass(frozen=True)
class Resolution:
    how: str  # exact | alias | prefix | fuzzy | suggest (ask) | unlisted | none
    places: tuple[Place, ...] = ()  # one: resolved; several: ambiguous (ask which)
    score: float = 100.0

    @property
    def resolved(self) -> Place | None:
        return self.places[0] if len(self.places) == 1 and self.how != "suggest" else None


class PlaceResolver:
    def __init__(self, directory: Directory, gaz: Gazetteer, rules: DirectoryRules, blocked: frozenset[str]) -> None:
        self.nat = rules.natural
        self.gaz = gaz
        self.blocked = blocked  # stopwords, intent and other reserved words never become places by alias or fuzz
        self.us: UsPlaces = us_places()
        self.states = set(gaz.state_codes) or {r.state for r in directory.records if r.state}
        self.known: dict[Key, Place] = {**gaz.counties, **gaz.cities}  # a city wins over a same-named county
        # counties no record states (read from ZIPs): a bare word naming one is more likely the town of that name
        stated = {k for r in directory.records if not r.county_from_zip for k in r.county_keys}
        self.derived_counties = frozenset(k for r in directory.records for k in r.county_keys) - stated
        self.city_states: dict[str, set[str]] = {}
        for record in directory.records:
            if record.state:
                for town in record.town_keys:
                    self.city_states.setdefault(town, set()).add(record.state)
        self.aliases: dict[Key, set[Place]] = {}
        self._ordinals = {w: n for w, n in rules.time.ordinal_words.items() if w.isalpha() and 1 <= n <= 9}
        self._derive_aliases()
        self._derive_neighbourhoods(directory)
        self._derive_landmarks()
        self._choices = {" ".join(k): p for k, p in self.known.items()}
        self.city_points = self._city_points(directory)
        self.timezone = self._timezone(directory)
        self.record_points: dict[int, Point] = {}
        for record in directory.records:
            point = self._zip_point(record.zip) or (self.city_points.get(record.city_key) if record.city_key else None)
            own = record.point
            # the directory's own coordinates, unless far from its ZIP/town (a failed geocode's default point)
            if own is not None and (point is None or miles(own, point) <= self.nat.coordinate_check_miles):
                point = own
            if point is not None:
                self.record_points[record.source_index] = point
        self._indexes = np.array(list(self.record_points), dtype=np.int64)
        self._lat = np.radians(np.array([p[0] for p in self.record_points.values()], dtype=np.float64))
        self._lon = np.radians(np.array([p[1] for p in self.record_points.values()], dtype=np.float64))

    # ------------------------------------------------------------------ aliases
    def _add(self, key: Key, place: Place) -> None:
        if key and key not in self.known and not (len(key) == 1 and key[0] in self.blocked):
            self.aliases.setdefault(key, set()).add(place)

    def _state_names(self, code: str) -> list[Key]:
        return [k for k, p in self.gaz.states.items() if p.key == code]

    def _derive_aliases(self) -> None:
        abbreviations = self.nat.word_abbreviations
        # two-word towns by their two initials ('JC' for Jersey City) only when no other place of the directory has
        # them, they are no state code, no real town and no word the parser gives a meaning to
        pairs: dict[str, list[Place]] = {}
        for key, place in self.known.items():
            if place.kind == "city" and len(key) == 2 and all(w[:1].isalpha() for w in key):
                pairs.setdefault(key[0][0] + key[1][0], []).append(place)
        for code, found in pairs.items():
            if (len(found) == 1 and code.upper() not in self.gaz.state_codes and (code,) not in self.gaz.states
                    and not self.us.town_states.get((code,))):
                self._add((code,), found[0])
        for key, place in self.known.items():
            options = [(word, *abbreviations.get(word, ())) for word in key]
            if len(key) >= 2:  # a one-word place abbreviated ('so' for South) would be any short word
                for variant in itertools.islice(itertools.product(*options), 64):
                    self._add(tuple(variant), place)
            if place.kind != "city":
                continue
            if len(key) >= 2 and key[-1] in self.nat.droppable_last_words:
                head = key[:-1]
                if head not in self.gaz.states and not self.us.town_states.get(head, set()) & self.states:
                    # 'Point Reyes Station' -> 'Point Reyes', and abbreviated as the whole name is ('Pt. Reyes')
                    for variant in itertools.islice(itertools.product(*options[:-1]), 64):
                        self._add(tuple(variant), place)
            if len(key) >= 2:
                initials = "".join(w[0] for w in key)
                for state in self.city_states.get(place.key, ()):
                    self._add((initials + state.lower(),), place)
                    for name in self._state_names(state):
                        self._add((initials + name[0][0],), place)
                if len(key) >= 3:
                    self._add((initials,), place)
                    # 'O3M' for Old Third Mill: an ordinal word written as its digit among the initials
                    numbered = "".join(str(self._ordinals[w]) if w in self._ordinals else w[0] for w in key)
                    if numbered != initials:
                        self._add((numbered,), place)
                    for cut in range(1, len(key) - 1):  # 'South SF': a multi-word tail as its initials
                        self._add((*key[:cut], "".join(w[0] for w in key[cut:])), place)

    def _derive_neighbourhoods(self, directory: Directory) -> None:
        """A neighbourhood the city field states inside its ZIP's town, also said with the town in front ('Jersey
        City Heights' for 'The Heights' in Jersey City; 'Jersey City Greenville')."""
        for record in directory.records:
            if not record.city_key or not record.zip_towns:
                continue
            place = self.gaz.cities.get(tuple(record.city_key.split()))
            own = tuple(w for w in record.city_key.split() if w not in self.blocked)  # "the", stopwords
            for town, _ in record.zip_towns:
                words = tuple(town.split())
                if place is not None and own and not _contains(own, words):
                    self._add((*words, *own), place)

    def _derive_landmarks(self) -> None:
        self._derived = frozenset(self.aliases)  # the directory's own derived aliases win over the ZIP source's
        words = [key_tokens(w) for w in self.nat.landmark_words]
        for row in self.us.zips.values():
            if row.state not in self.states:
                continue
            place = self.known.get(key_tokens(row.city))
            if place is None or place.kind != "city":
                continue
            for alternate in row.alternates:
                key = key_tokens(alternate)
                if not any(_contains(key, w) for w in words):
                    self._alternate(key, place)
                    continue
                core = tuple(w for w in key if w not in self.nat.landmark_connectors)
                variants = {key, core}
                if key[0] in {w[0] for w in words} and len(key) >= 3 and key[1] in self.nat.landmark_connectors:
                    reordered = (*key[2:], key[0])  # 'University of Kansas' -> 'Kansas University'
                    variants |= {reordered, ("".join(w[0] for w in reordered),)}
                if len(core) >= 2:
                    variants.add(("".join(w[0] for w in core),))
                for variant in variants:
                    if variant and len(variant[0]) >= 2:
                        self._add(variant, place)
                if len(key) >= 3 and key[-1] in {w[-1] for w in words} and key[-2] == "state":
                    self._add(key[:-1], place)  # 'Wichita State' for 'Wichita State University'

    def _alternate(self, key: Key, place: Place) -> None:
        """Another name the ZIP source gives the town of a ZIP ('Nyc', 'Manhattan', 'Shawnee Mission'), unless it
        is a town of its own in the directory's states, a state, or too short to be a name."""
        if len("".join(key)) < 3 or key in self.gaz.states or "".join(key).upper() in self.gaz.state_codes:
            return
        if key in self._derived or self.us.town_states.get(key, set()) & self.states:
            return
        self._add(key, place)

    def _timezone(self, directory: Directory) -> str | None:
        """The directory's time zone: the most common one of its records' ZIP codes."""
        counts: dict[str, int] = {}
        for record in directory.records:
            row = self.us.zips.get(record.zip or "")
            if row is not None and row.timezone:
                counts[row.timezone] = counts.get(row.timezone, 0) + 1
        return max(sorted(counts), key=lambda tz: counts[tz]) if counts else None

    # ------------------------------------------------------------------ coordinates
    def _zip_point(self, code: str | None) -> Point | None:
        row = self.us.zips.get(code or "")
        return row.point if row is not None else None

    def _city_points(self, directory: Directory) -> dict[str, Point]:
        points: dict[str, Point] = {}
        for key, states in self.city_states.items():
            for state in sorted(states):
                point = self.us.towns.get((tuple(key.split()), state))
                if point is not None:
                    points[key] = point
                    break
        fallback: dict[str, list[Point]] = {}
        for record in directory.records:
            point = self._zip_point(record.zip)
            if record.city_key and record.city_key not in points and point is not None:
                fallback.setdefault(record.city_key, []).append(point)
        for key, found in fallback.items():
            points[key] = (sum(p[0] for p in found) / len(found), sum(p[1] for p in found) / len(found))
        return points

    def distances_from(self, point: Point) -> tuple[np.ndarray[Any, np.dtype[np.int64]],
                                                    np.ndarray[Any, np.dtype[np.float64]]]:
        """(record indexes, great-circle miles from ``point``) for every record with a point, vectorised."""
        lat1, lon1 = np.radians(point[0]), np.radians(point[1])
        h = (np.sin((self._lat - lat1) / 2) ** 2
             + np.cos(lat1) * np.cos(self._lat) * np.sin((self._lon - lon1) / 2) ** 2)
        return self._indexes, EARTH_MILES * 2 * np.arcsin(np.minimum(1.0, np.sqrt(h)))

    def point_of(self, place: Place) -> Point | None:
        if place.kind == "zip":
            return self._zip_point(place.key)
        if place.kind == "city":
            return self.city_points.get(place.key)
        return None

    def town_point(self, key: Key) -> Point | None:
        """A real town of the directory's states (listed or not), for 'within 10 miles of <town>'."""
        for state in sorted(self.states):
            point = self.us.towns.get((key, state))
            if point is not None:
                return point
        return None

    def is_zip(self, code: str) -> bool:
        return code in self.us.zips

    # ------------------------------------------------------------------ resolution
    def resolve(self, key: Key, cued: bool, county_only: bool = False) -> Resolution:
        if not key:
            return Resolution("none")
        pool = self.gaz.counties if county_only else self.known
        if key in pool:
            if (not county_only and pool[key].kind == "county" and pool[key].key in self.derived_counties
                    and self.us.town_states.get(key, set()) & self.states):
                return Resolution("unlisted")  # 'Worcester' alone: the town, which the directory does not list
            return Resolution("exact", (pool[key],))
        aliased = [p for p in self.aliases.get(key, ()) if not county_only or p.kind == "county"]
        if aliased:
            return Resolution("alias", tuple(sorted(set(aliased), key=lambda p: p.label)))
        states = self.us.town_states.get(key, set())
        if states & self.states:
            return Resolution("unlisted")  # a real town of the directory's states: no guessing another one
        if all(len(w) < 2 or w in self.blocked for w in key):
            return Resolution("none")
        head = [p for k, p in pool.items() if p.kind == "city" and len(k) > len(key) and k[:len(key)] == key]
        if len(head) == 1 and len("".join(key)) >= self.nat.prefix_min_alone:
            # 'Manitou' for Manitou Springs: the leading words of one listed town, which no town of the
            # directory's states is called (a same-named town in another state is not what is meant)
            return Resolution("prefix", (head[0],))
        inside = [p for k, p in pool.items() if p.kind == "city" and len(k) > len(key) >= 2 and _contains(k, key)]
        if len(inside) == 1:
            # '<X> Point' for the directory's 'Upper <X> Point': two or more whole words of one listed place's
            # name, which no town of the directory's states is called
            return Resolution("inside", (inside[0],))
        found = self._prefix(key, pool)
        if found and not states:
            return Resolution("prefix", found)
        fuzzy = self._fuzzy(key, cued, pool)
        if states and (not fuzzy.places or fuzzy.score < self.nat.fuzzy_cued):
            return Resolution("unlisted")  # a town elsewhere ('Denver'), not a misspelling of one listed here
        return fuzzy

    def _prefix(self, key: Key, pool: dict[Key, Place]) -> tuple[Place, ...]:
        nat = self.nat
        hits: dict[str, Place] = {}
        for place_key, place in pool.items():
            if len(key) == 1:
                word = key[0]
                first = place_key[0]
                rest_ok = all(w in nat.droppable_last_words for w in place_key[1:])
                if (len(word) >= nat.prefix_min_alone and first.startswith(word) and first != word and rest_ok
                        and len(word) / len(first) >= nat.prefix_min_share):
                    hits[place.label] = place
            elif len(key) == len(place_key) and key != place_key and all(
                    p.startswith(w) and (len(w) >= nat.prefix_min_phrase or w == p)
                    for w, p in zip(key, place_key, strict=True)):
                hits[place.label] = place
        return tuple(hits[label] for label in sorted(hits)) if 0 < len(hits) <= 4 else ()

    def _fuzzy(self, key: Key, cued: bool, pool: dict[Key, Place]) -> Resolution:
        text = " ".join(key)
        if len(text.replace(" ", "")) < self.nat.fuzzy_min_length:
            return Resolution("none")
        choices = {" ".join(k): p for k, p in pool.items()}
        threshold = self.nat.fuzzy_cued if cued else self.nat.fuzzy_uncued
        ranked = process.extract(text, list(choices), scorer=fuzz.ratio, limit=5)
        good = [(name, score) for name, score, _ in ranked if score >= threshold]
        if not good:
            # a cued word close to a listed place but not close enough to assume it: ask, naming the candidates
            near = [(name, score) for name, score, _ in ranked if score >= self.nat.fuzzy_suggest]
            if cued and near:
                top = near[0][1]
                return Resolution("suggest", tuple(dict.fromkeys(choices[n] for n, sc in near
                                                                 if top - sc <= self.nat.fuzzy_margin)), top)
            return Resolution("none")
        best = good[0][1]
        close = [choices[name] for name, score in good if best - score <= self.nat.fuzzy_margin]
        unique = tuple(dict.fromkeys(close))
        return Resolution("fuzzy", unique, best)


def _contains(key: Key, part: Key) -> bool:
    return any(key[i:i + len(part)] == part for i in range(len(key) - len(part) + 1))
