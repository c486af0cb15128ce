"""Regional and informal place names (rule data ``directory/regional_names``) resolved against one directory.

An entry applies when the directory has records in its state. It stands for the directory places it lists of one
kind (counties, towns or ZIPs: alternatives of each other), plus the state when the directory spans several states
(a county name repeats across states). An applicable entry none of whose places the directory lists is an unknown
place, so the answer is an explicit no match rather than records elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.directory.constraints import PlaceConstraint
from engine.directory.directory_rules import DirectoryRules
from engine.directory.gazetteer import Gazetteer
from engine.directory.normalize import key_tokens

Key = tuple[str, ...]


@dataclass(frozen=True)
class RegionMatch:
    places: tuple[PlaceConstraint, ...]  # empty: the region is outside what the directory lists


def build_regions(rules: DirectoryRules, gaz: Gazetteer) -> dict[Key, RegionMatch]:
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
    return table
