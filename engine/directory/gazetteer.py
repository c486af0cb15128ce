"""Place names recognised in queries, read from the directory's own knowledge graph (never a fixed list)."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.directory.directory_rules import DirectoryRules
from engine.directory.graph import KnowledgeGraph
from engine.directory.normalize import key_tokens


@dataclass(frozen=True)
class Place:
    kind: str  # city | county | state
    key: str
    label: str


@dataclass
class Gazetteer:
    cities: dict[tuple[str, ...], Place] = field(default_factory=dict)
    counties: dict[tuple[str, ...], Place] = field(default_factory=dict)
    states: dict[tuple[str, ...], Place] = field(default_factory=dict)
    state_codes: dict[str, Place] = field(default_factory=dict)
    zips: set[str] = field(default_factory=set)
    max_tokens: int = 1
    place_tokens: frozenset[str] = frozenset()
    state_coverage: dict[str, float] = field(default_factory=dict)  # share of records in each state
    county_initials: dict[str, Place] = field(default_factory=dict)  # 'pg' -> Prince George's (unambiguous only)
    quadrants: dict[tuple[str, ...], Place] = field(default_factory=dict)  # ('northwest',) -> NW, if present

    def lookup(self, key: tuple[str, ...]) -> list[Place]:
        found = [table[key] for table in (self.cities, self.counties, self.states) if key in table]
        return found


def build_gazetteer(graph: KnowledgeGraph, rules: DirectoryRules, total_records: int) -> Gazetteer:
    gaz = Gazetteer()
    tokens: set[str] = set()
    for node, label in graph.nodes.items():
        kind, key = node.split(":", 1)
        if kind == "city":
            gaz.cities[tuple(key.split())] = Place("city", key, label)
        elif kind == "county":
            gaz.counties[tuple(key.split())] = Place("county", key, label)
        elif kind == "zip":
            gaz.zips.add(key)
        else:
            continue
        if kind in ("city", "county"):
            tokens.update(key.split())
    present = {n.split(":", 1)[1] for n in graph.nodes if n.startswith("state:")}
    for code, names in rules.address.states.items():
        label = names[0].title() if names else code
        place = Place("state", code, label)
        for name in names:
            gaz.states.setdefault(key_tokens(name), place)
        if code in present:
            gaz.state_codes[code] = place
            gaz.state_coverage[code] = len(graph.records_at(f"state:{code}")) / max(total_records, 1)
    gaz.county_initials = _initials(gaz)
    for code, names in rules.address.quadrants.items():
        if f"quadrant:{code}" in graph.nodes:
            for name in names:
                gaz.quadrants[key_tokens(name)] = Place("quadrant", code, code)
    gaz.max_tokens = max((len(k) for table in (gaz.cities, gaz.counties, gaz.states) for k in table), default=1)
    gaz.place_tokens = frozenset(tokens)
    return gaz


def _initials(gaz: Gazetteer) -> dict[str, Place]:
    """Initials of multi-word county names ('PG county'); a clash with another county or a place drops them."""
    seen: dict[str, list[Place]] = {}
    for key, place in gaz.counties.items():
        if len(key) >= 2 and all(t.isalpha() for t in key):
            seen.setdefault("".join(t[0] for t in key), []).append(place)
    return {code: found[0] for code, found in seen.items()
            if len(found) == 1 and not gaz.lookup((code,)) and code not in gaz.state_codes}
