"""Regional and informal place names (rule data ``directory/regional_names``) resolved against one directory.

An entry applies when the directory has records in its state. It stands for the directory places it lists of one
kind (counties, towns or ZIPs: alternatives of each other), plus the state when the directory spans several states
(a county name repeats across states). An applicable entry none of whose places the directory lists is an unknown
place, so the answer is an explicit no match rather than records elsewhere. A township ('Lawrence Township') is
derived from the ZIP source as the directory towns inside it (``_municipalities``); another name the ZIP source gives
some ZIP codes (a city or neighbourhood sharing its main town's post office: a suburb or a neighbourhood name) stands
for exactly those ZIP codes (``_zip_alternates``), never for the whole main town; a compass part of a large town
('West <town>', 'southwest <town>') is the town's ZIP codes lying that way from its centre (``_compass_areas``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.directory.constraints import PlaceConstraint
from engine.directory.directory_rules import DirectoryRules
from engine.directory.gazetteer import Gazetteer
from engine.directory.geo import miles
from engine.directory.geo_cache import us_places
from engine.directory.normalize import key_tokens

Key = tuple[str, ...]


@dataclass(frozen=True)
class RegionMatch:
    places: tuple[PlaceConstraint, ...]  # empty: the region is outside what the directory lists


def build_regions(rules: DirectoryRules, gaz: Gazetteer,
                  blocked: frozenset[str] = frozenset()) -> dict[Key, RegionMatch]:
    table: dict[Key, RegionMatch] = {}
    several_states = len(gaz.state_codes) > 1
    for entry in rules.regions:
        if entry.state not in gaz.state_codes:
            continue
        places: list[PlaceConstraint] = []
        for name in entry.counties:
            place = gaz.counties.get(key_tokens(name))
            if place is not None:
                places.append(PlaceConstraint("county", place.key, place.label))
        for name in entry.cities:
            place = gaz.cities.get(key_tokens(name))
            if place is not None:
                places.append(PlaceConstraint("city", place.key, place.label))
        places.extend(PlaceConstraint("zip", z, z) for z in entry.zips if z in gaz.zips)
        if places and several_states:
            state = gaz.state_codes[entry.state]
            places.append(PlaceConstraint("state", state.key, state.label))
        for key in entry.names:
            table.setdefault(key, RegionMatch(tuple(dict.fromkeys(places))))
    for key, match in _municipalities(rules, gaz).items():
        table.setdefault(key, match)
    for key, match in _zip_alternates(rules, gaz, blocked).items():
        table.setdefault(key, match)
    for key, match in _compass_areas(rules, gaz).items():
        table.setdefault(key, match)
    return table


def _bearing(origin: tuple[float, float], point: tuple[float, float]) -> float:
    """Initial great-circle bearing from ``origin`` to ``point``, degrees clockwise from north."""
    la1, lo1, la2, lo2 = map(math.radians, (*origin, *point))
    x = math.sin(lo2 - lo1) * math.cos(la2)
    y = math.cos(la1) * math.sin(la2) - math.sin(la1) * math.cos(la2) * math.cos(lo2 - lo1)
    return math.degrees(math.atan2(x, y)) % 360


def _compass_areas(rules: DirectoryRules, gaz: Gazetteer) -> dict[Key, RegionMatch]:
    """'West <town>', 'southwest <town>', '<direction>side <town>': for each directory town with enough ZIP codes (ZIP
    source, standard ZIPs whose main town it is), the ZIP codes whose centroid lies within the rule's half width of
    the direction's bearing from the town's centre and far enough from it. Skipped for a directory that writes
    address quadrants ('NW' in DC, read from the records themselves) and for words naming a real town."""
    compass = rules.natural.compass
    states = set(gaz.state_codes)
    if compass is None or not states or gaz.quadrants:
        return {}
    us = us_places()
    towns: dict[Key, list[tuple[str, tuple[float, float]]]] = {}
    for row in us.zips.values():
        if row.state in states and row.standard:
            key = key_tokens(row.city)
            if key in gaz.cities:
                towns.setdefault(key, []).append((row.zip, row.point))
    table: dict[Key, RegionMatch] = {}
    for town, rows in towns.items():
        if len(rows) < compass.min_town_zips:
            continue
        centre = (sum(p[0] for _, p in rows) / len(rows), sum(p[1] for _, p in rows) / len(rows))
        placed = [(z, _bearing(centre, p)) for z, p in rows if miles(centre, p) >= compass.min_miles]
        for word, bearing in compass.directions.items():
            zips = sorted(z for z, b in placed if z in gaz.zips
                          and abs((b - bearing + 180) % 360 - 180) <= compass.half_width)
            match = RegionMatch(tuple(PlaceConstraint("zip", z, z) for z in zips))
            for key in ((word, *town), (f"{word}side", *town), (word, "side", *town), (word, "side", "of", *town),
                        (f"{word}side", "of", *town), (*town, word, "side"), (*town, f"{word}side")):
                if key not in gaz.cities and not us.town_states.get(key):
                    table.setdefault(key, match)
    return table


def _zip_alternates(rules: DirectoryRules, gaz: Gazetteer, blocked: frozenset[str]) -> dict[Key, RegionMatch]:
    """Another name of two or more words the ZIP source (USPS acceptable place names) gives some ZIP codes of the
    directory's states, as those ZIP codes: a suburb is the ZIPs of its main town that list it, not the main town.
    A name that is some ZIP's main town, a directory town or county, a state, a landmark ('<Town> State University',
    read as its town by the place resolver) or made of reserved words is left to the other readers; one word alone
    ('Miles', 'College') could be any word of a query. A name none of whose ZIP codes the directory lists is an
    unknown place (an explicit no match, never records of the main town elsewhere)."""
    states = set(gaz.state_codes)
    if not states:
        return {}
    landmarks = [key_tokens(w) for w in rules.natural.landmark_words]
    rows = [row for row in us_places().zips.values() if row.state in states]
    mains = {key_tokens(row.city) for row in rows}
    groups: dict[Key, set[str]] = {}
    for row in rows:
        for name in row.alternates:
            key = key_tokens(name)
            if (len(key) < 2 or key in mains or key in gaz.cities or key in gaz.counties or key in gaz.states
                    or all(word in blocked for word in key) or any(_contains(key, w) for w in landmarks if w)):
                continue
            groups.setdefault(key, set()).add(row.zip)
    return {key: RegionMatch(tuple(PlaceConstraint("zip", z, z) for z in sorted(zips) if z in gaz.zips))
            for key, zips in groups.items()}


def _municipalities(rules: DirectoryRules, gaz: Gazetteer) -> dict[Key, RegionMatch]:
    """'Hamilton Township' as every directory town inside it, derived from the ZIP source: a ZIP naming the township
    lists its villages among its other names ('Hamilton Square', 'Mercerville'). A name that is some ZIP's main
    town of the state is a town of its own, never a village ('Trenton' is listed for a Lawrence Township ZIP)."""
    words = rules.natural.municipality_words
    states = set(gaz.state_codes)
    if not words or not states:
        return {}
    rows = [row for row in us_places().zips.values() if row.state in states]
    mains = {key_tokens(row.city) for row in rows}
    groups: dict[Key, set[Key]] = {}
    for row in rows:
        names = [key_tokens(name) for name in (row.city, *row.alternates)]
        for name in names:
            if len(name) >= 2 and name[-1] in words:
                members = groups.setdefault(name[:-1], set())
                members.update({name[:-1], name})
                members.update(n for n in names if n not in mains)
    table: dict[Key, RegionMatch] = {}
    for head, members in groups.items():
        places = [PlaceConstraint("city", p.key, p.label) for m in sorted(members) if (p := gaz.cities.get(m))]
        if places:  # before the ZIP source's own alias, which names the ZIP's main town ('Ewing Twp' -> Trenton)
            for word in words:
                table[(*head, word)] = RegionMatch(tuple(places))
    return table


def _contains(key: Key, part: Key) -> bool:
    return any(key[i:i + len(part)] == part for i in range(len(key) - len(part) + 1))
