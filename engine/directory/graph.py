"""The knowledge graph of structural facts: record -> city -> county, record -> ZIP/state, record -> weekday.

Nodes are ``kind:key`` strings; edges carry a relation and, for opening hours, the interval. Constraint queries
walk the indices built from these edges, so a structural constraint is enforced exactly (set membership), never
by similarity. The gazetteer for query parsing is read from the same nodes: place names come from the directory.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from engine.directory.constraints import PLACE_KINDS, HoursConstraint, PlaceConstraint, slot_matches
from engine.directory.ingest import Directory
from engine.directory.models import Slot


@dataclass(frozen=True)
class Edge:
    relation: str
    target: str
    slot: Slot | None = None


@dataclass
class KnowledgeGraph:
    nodes: dict[str, str] = field(default_factory=dict)  # node id -> display label
    edges: dict[str, list[Edge]] = field(default_factory=lambda: defaultdict(list))
    incoming: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    seasonal: set[int] = field(default_factory=set)
    # read-side indices (the graph is not changed once built): place node -> records, and weekday node -> record
    # -> its openings that day, so a query never splits node ids or scans edge lists. ``build_indexes`` fills them
    # in one pass at load; a node first asked for after that (a graph built by hand) is indexed on first use.
    _at: dict[str, frozenset[int]] = field(default_factory=dict)
    _open: dict[str, dict[int, tuple[Slot, ...]]] = field(default_factory=dict)
    # weekday node -> (that day's openings, seasonal) -> the records sharing exactly them: an hours query checks
    # each distinct opening pattern once and unions record sets, never loops over 10^5 records
    _open_groups: dict[str, dict[tuple[tuple[Slot, ...], bool], frozenset[int]]] = field(default_factory=dict)

    def add_node(self, node: str, label: str) -> None:
        self.nodes.setdefault(node, label)

    def add_edge(self, source: str, relation: str, target: str, slot: Slot | None = None) -> None:
        self.edges[source].append(Edge(relation, target, slot))
        self.incoming[target].add(source)

    def build_indexes(self) -> None:
        """Every place and weekday index in one pass over the record edges. Built lazily, the first query naming
        a large node (a state, a weekday: 10^5 records at scale) paid the whole scan: the latency tail."""
        at: dict[str, list[int]] = defaultdict(list)
        opening: dict[str, dict[int, list[Slot]]] = defaultdict(lambda: defaultdict(list))
        for source, edges in self.edges.items():
            if not source.startswith("record:"):
                continue
            index = int(source.split(":", 1)[1])
            for edge in edges:
                if edge.slot is not None:
                    opening[edge.target][index].append(edge.slot)
                elif edge.target.split(":", 1)[0] in PLACE_KINDS:
                    at[edge.target].append(index)
        self._at.update((node, frozenset(indexes)) for node, indexes in at.items())
        for node, per in opening.items():
            self._open_groups[node] = self._grouped({i: tuple(slots) for i, slots in per.items()})

    def _grouped(self, openings: dict[int, tuple[Slot, ...]]) -> dict[tuple[tuple[Slot, ...], bool], frozenset[int]]:
        groups: dict[tuple[tuple[Slot, ...], bool], list[int]] = defaultdict(list)
        for index, slots in openings.items():
            groups[(slots, index in self.seasonal)].append(index)
        return {key: frozenset(indexes) for key, indexes in groups.items()}

    @property
    def edge_count(self) -> int:
        return sum(len(v) for v in self.edges.values())

    # ------------------------------------------------------------------ queries
    def records_at(self, node: str) -> set[int]:
        """Records linked to a place node (directly: LOCATED_IN / IN_COUNTY / HAS_ZIP / IN_STATE)."""
        found = self._at.get(node)
        if found is None:
            found = frozenset(int(source.split(":", 1)[1]) for source in self.incoming.get(node, ())
                              if source.startswith("record:"))
            self._at[node] = found
        return set(found)

    def _openings(self, node: str) -> dict[int, tuple[Slot, ...]]:
        found = self._open.get(node)
        if found is None:
            found = {}
            for source in self.incoming.get(node, ()):
                if source.startswith("record:"):
                    slots = tuple(e.slot for e in self.edges[source] if e.target == node and e.slot is not None)
                    if slots:
                        found[int(source.split(":", 1)[1])] = slots
            self._open[node] = found
        return found

    def records_in(self, places: tuple[PlaceConstraint, ...], any_kind: bool = False) -> set[int]:
        """Same-kind places are alternatives; kinds intersect, unless ``any_kind`` makes every place one."""
        if any_kind:
            return {i for place in places for i in self.records_at(f"{place.kind}:{place.key}")}
        result: set[int] | None = None
        for kind in PLACE_KINDS:
            group = [p for p in places if p.kind == kind]
            if not group:
                continue
            found: set[int] = set()
            for place in group:
                found |= self.records_at(f"{kind}:{place.key}")
            result = found if result is None else result & found
        return result if result is not None else set()

    def records_open_set(self, hours: HoursConstraint, among: set[int] | None = None) -> set[int]:
        """The records ``records_open`` returns, as a set: each distinct opening pattern of a day is checked once
        and its records taken as a whole (set operations), so the cost follows the patterns, not the records."""
        days = set(hours.days) | {d.weekday() for d in hours.dates}
        found: set[int] = set()
        for day in sorted(days) if days else range(7):
            node = f"weekday:{day}"
            groups = self._open_groups.get(node)
            if groups is None:
                groups = self._open_groups[node] = self._grouped(self._openings(node))
            for (slots, seasonal), indexes in groups.items():
                if any(slot_matches(slot, hours, seasonal) for slot in slots):
                    found |= indexes if among is None else indexes & among
        return found

    def records_open(self, hours: HoursConstraint, among: set[int] | None = None) -> dict[int, tuple[Slot, ...]]:
        """Records with an opening edge matching the hours constraint, and the matching openings."""
        days = set(hours.days) | {d.weekday() for d in hours.dates}
        day_nodes = [f"weekday:{d}" for d in sorted(days)] if days else [f"weekday:{d}" for d in range(7)]
        found: dict[int, list[Slot]] = defaultdict(list)
        for node in day_nodes:
            openings = self._openings(node)
            indexes = (among if among is not None and len(among) < len(openings) else openings)
            for index in indexes:
                if among is not None and index not in among:
                    continue
                seasonal = index in self.seasonal
                found[index].extend(slot for slot in openings.get(index, ()) if slot_matches(slot, hours, seasonal))
        return {k: tuple(v) for k, v in found.items() if v}

    def label(self, node: str) -> str:
        return self.nodes.get(node, node.split(":", 1)[-1])


def build_graph(directory: Directory) -> KnowledgeGraph:
    graph = KnowledgeGraph()
    city_county: dict[str, Counter[str]] = defaultdict(Counter)
    for record in directory.records:
        node = f"record:{record.source_index}"
        graph.add_node(node, record.name)
        if record.city_key and record.city:
            graph.add_node(f"city:{record.city_key}", record.city)
            graph.add_edge(node, "LOCATED_IN", f"city:{record.city_key}")
        for key, label in record.zip_towns:
            if key != record.city_key:
                graph.add_node(f"city:{key}", label)
                graph.add_edge(node, "LOCATED_IN", f"city:{key}")
        for key, display in zip(record.county_keys, record.counties, strict=True):
            graph.add_node(f"county:{key}", display)
            graph.add_edge(node, "IN_COUNTY", f"county:{key}")
            for town in record.town_keys:
                city_county[town][key] += 1
        if record.zip:
            graph.add_node(f"zip:{record.zip}", record.zip)
            graph.add_edge(node, "HAS_ZIP", f"zip:{record.zip}")
        if record.state:
            graph.add_node(f"state:{record.state}", record.state)
            graph.add_edge(node, "IN_STATE", f"state:{record.state}")
        if record.quadrant:
            graph.add_node(f"quadrant:{record.quadrant}", record.quadrant)
            graph.add_edge(node, "IN_QUADRANT", f"quadrant:{record.quadrant}")
        if record.schedule.seasonal:
            graph.seasonal.add(record.source_index)
        for slot in record.schedule.slots:
            graph.add_node(f"weekday:{slot.day}", str(slot.day))
            graph.add_edge(node, "OPEN_ON", f"weekday:{slot.day}", slot)
    for city, counties in city_county.items():
        for county in counties:
            graph.add_edge(f"city:{city}", "PART_OF", f"county:{county}")
    graph.build_indexes()
    return graph
