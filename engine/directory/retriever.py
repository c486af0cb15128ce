"""TRACE retrieval: clarify, graph candidates, evidence filtering with expansion, explicit no-match.

Variants (which structural layers the knowledge graph carries; everything else falls back to text ranking):

    KG-0  text only: candidates ranked by BM25 over the whole record; no structural constraint enforced
    KG-1  location graph: city / county / ZIP / state enforced exactly; hours only through text ranking
    KG-2  hours graph: weekday / time intervals enforced exactly; location only through text ranking
    KG-3  location + hours graph: every structural constraint enforced exactly (the default)

Names are matched on the name field and semantic constraints need quotable evidence in every variant.
INVARIANT (T-1): under KG-3 every returned record satisfies every extracted constraint (re-checked with
``constraints.check`` before it is returned) and is a record of the loaded directory; no text is invented.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

import numpy as np
import structlog

from engine.directory.constraints import Constraints, check, contains_run
from engine.directory.directory_rules import DirectoryRules
from engine.directory.errors import DirectoryRulesError, DirectoryUsageError
from engine.directory.followup import merge_followup
from engine.directory.gazetteer import build_gazetteer
from engine.directory.geo_cache import us_places
from engine.directory.graph import build_graph
from engine.directory.ingest import Directory, load_directory
from engine.directory.models import SERVED_ZIP, Evidence, Record
from engine.directory.names import NameIndex
from engine.directory.normalize import key_tokens, place_key
from engine.directory.places import PlaceResolver
from engine.directory.query import ParsedQuery, QueryParser
from engine.directory.textindex import TextIndex
from engine.directory.vocab_words import reserved_words

log = structlog.get_logger("grace.directory")


class Variant(StrEnum):
    KG0 = "KG-0"
    KG1 = "KG-1"
    KG2 = "KG-2"
    KG3 = "KG-3"

    @property
    def location_graph(self) -> bool:
        return self in (Variant.KG1, Variant.KG3)

    @property
    def hours_graph(self) -> bool:
        return self in (Variant.KG2, Variant.KG3)


def parse_variant(value: str) -> Variant:
    normal = value.strip().upper().replace("_", "-")
    if not normal.startswith("KG-"):
        normal = normal.replace("KG", "KG-", 1)
    try:
        return Variant(normal)
    except ValueError:
        raise DirectoryUsageError(f"unknown variant {value!r} (use KG-0, KG-1, KG-2 or KG-3)",
                                  code="directory.usage_variant") from None


@dataclass(frozen=True)
class Result:
    source_index: int
    name: str
    evidence: str  # the main verbatim quote supporting the recommendation
    citations: tuple[tuple[str, Evidence], ...]  # (constraint, quote) for every checked constraint
    record: Record
    distance_miles: float | None = None  # from the proximity anchor, when the visitor asked for one


@dataclass(frozen=True)
class Answer:
    status: str  # results | clarify | no_match
    results: tuple[Result, ...]
    question: str | None
    parsed: ParsedQuery
    variant: Variant
    rounds: int = 0
    candidates: int = 0
    reason: str = ""
    timings_ms: dict[str, float] = field(default_factory=dict)


def as_reference(value: datetime | date | None) -> datetime:
    if value is None:
        return datetime.now().replace(second=0, microsecond=0)
    if isinstance(value, datetime):
        return value
    return datetime(value.year, value.month, value.day)


_PROGRAMME = re.compile(r"\s+[-\u2013\u2014]\s+")  # 'Organisation - Programme'


class TraceRetriever:
    """Loaded once per directory; ``answer`` is deterministic for a given text, reference date and variant."""

    def __init__(self, directory: Directory, rules: DirectoryRules | None = None,
                 variant: Variant = Variant.KG3, embeddings: bool | None = None,
                 cache_dir: Path | None = None) -> None:
        if rules is None:
            raise DirectoryRulesError("the retriever needs the directory rules of a verified bundle",
                                      code="directory.rules_missing")
        self.rules = rules
        self.directory = directory
        self.variant = variant
        self.graph = build_graph(directory)
        # source index -> position in directory.records, so ranking never scans the list (dropped records make
        # the two differ); as an array too, for ranking a whole candidate pool at once
        self._positions = {r.source_index: i for i, r in enumerate(directory.records)}
        self._position_array = np.full(max(self._positions, default=-1) + 1, -1, dtype=np.int64)
        for source_index, position in self._positions.items():
            self._position_array[source_index] = position
        self.gazetteer = build_gazetteer(self.graph, self.rules, len(directory.records))
        reserved = reserved_words(self.rules)
        self.names = NameIndex(directory, self.rules, self.gazetteer.place_tokens, reserved)
        # record name tokens and a word -> records index, so a name query never re-tokenises the directory
        self._name_tokens = {r.source_index: key_tokens(r.name) for r in directory.records}
        self._name_postings: dict[str, set[int]] = {}
        for index, words in self._name_tokens.items():
            for word in words:
                self._name_postings.setdefault(word, set()).add(index)
        self.resolver = PlaceResolver(directory, self.gazetteer, self.rules, reserved | self.rules.query.stopwords)
        # the counties the directory says it covers (its county field) when it has one, else those read from ZIPs:
        # one record over the line, placed by its own address ('Morrisville, PA'), does not make a one-county
        # directory ask where; nor do records placed only by their coordinates (no town or ZIP of their own: a
        # failed geocode can put them on another island)
        stated = {k for r in directory.records if not r.county_from_zip for k in r.county_keys}
        located = {k for r in directory.records if r.raw.get("city") or r.raw.get("zip") or any(
            _ZIP_IN_TEXT.search(ev.quote) for ev in r.raw.get("address", ())) for k in r.county_keys}
        self.regions_covered = len(stated or located or {k for r in directory.records for k in r.county_keys}) or 1
        serves_zips = any(key.startswith(SERVED_ZIP) for r in directory.records for key in r.attributes)
        self.parser = QueryParser(self.rules, self.gazetteer, self.names, reserved, self.resolver, serves_zips)
        policy = self.rules.retrieval
        self.text = TextIndex(directory, policy.bm25_k1, policy.bm25_b)
        self.use_embeddings = policy.embeddings_enabled if embeddings is None else embeddings
        if self.use_embeddings:
            self.text.attach_embedder(cache_dir)
        log.info("directory.retriever.ready", directory=directory.id, variant=str(variant),
                 nodes=len(self.graph.nodes), edges=self.graph.edge_count, embeddings=self.use_embeddings)

    @classmethod
    def from_files(cls, directory_path: Path, mapping_path: Path, *, rules: DirectoryRules | None = None,
                   variant: Variant = Variant.KG3, embeddings: bool | None = None,
                   cache_dir: Path | None = None) -> TraceRetriever:
        if rules is None:
            raise DirectoryRulesError("the retriever needs the directory rules of a verified bundle",
                                      code="directory.rules_missing")
        return cls(load_directory(directory_path, mapping_path, rules), rules, variant, embeddings, cache_dir)

    def with_variant(self, variant: Variant) -> TraceRetriever:
        """A view sharing every index, retrieving under another variant."""
        clone = object.__new__(TraceRetriever)
        clone.__dict__.update(self.__dict__)
        clone.variant = variant
        return clone

    # ------------------------------------------------------------------ public
    def parse(self, text: str, reference: datetime | date | None = None) -> ParsedQuery:
        return self._narrowed(self.parser.parse(text, as_reference(reference)))

    def _narrowed(self, parsed: ParsedQuery) -> ParsedQuery:
        """'Greenville, Jersey City': a named town whose every record lies in the other named town (that town is
        its ZIP's main town, or the record's ZIP town) is a neighbourhood of it, so the wider town is dropped."""
        cities = [p for p in parsed.constraints.places if p.kind == "city"]
        if len(cities) != 2 or any(n.startswith("place_region:") for n in parsed.notes):
            return parsed  # a regional name's towns are alternatives of each other, never narrowed
        wider = {b for a in cities for b in cities if a != b and self._inside(a.key, b.key)}
        if len(wider) != 1:
            return parsed
        places = tuple(p for p in parsed.constraints.places if p not in wider)
        return replace(parsed, constraints=replace(parsed.constraints, places=places),
                       notes=(*parsed.notes, *(f"place_wider_dropped:{p.label}" for p in wider)))

    def _inside(self, town: str, wider: str) -> bool:
        held = self.graph.records_at(f"city:{town}")
        if not held:
            return False
        zips = us_places().zips
        for index in held:
            record = self.directory.records[self._position(index)]
            row = zips.get(record.zip or "")
            if wider not in record.town_keys[1:] and (row is None or place_key(row.city) != wider):
                return False
        return True

    def follow(self, text: str, reference: datetime | date | None = None,
               previous: ParsedQuery | None = None) -> ParsedQuery:
        """Parse one turn of a conversation: constraints of earlier turns carry over until the visitor changes
        them (``ParsedQuery.carried`` says which)."""
        parsed = self.parse(text, reference)
        return merge_followup(parsed, previous, self.rules.natural) if previous is not None else parsed

    def answer(self, text: str, reference: datetime | date | None = None,
               previous: ParsedQuery | None = None) -> Answer:
        started = time.perf_counter()
        parsed = self.follow(text, reference, previous)
        parsed_at = time.perf_counter()
        answer = self.retrieve(parsed)
        done = time.perf_counter()
        timings = {"parse": (parsed_at - started) * 1000, "retrieve": (done - parsed_at) * 1000}
        log.debug("retrieval.query.done", directory=self.directory.id, variant=str(self.variant),
                  status=answer.status, results=len(answer.results), rounds=answer.rounds, **timings)
        return replace(answer, timings_ms=timings)

    def retrieve(self, parsed: ParsedQuery) -> Answer:
        c = parsed.constraints
        language = parsed.language
        if c.ambiguous:
            nat = self.rules.natural
            or_word = f" {nat.message('or_word', language)} "
            names = or_word.join(dict.fromkeys(n for a in c.ambiguous for n in a.candidates))
            question = nat.message("clarify_place", language).format(candidates=names)
            return Answer("clarify", (), question, parsed, self.variant, reason="ambiguous_place")
        if c.unknown_places:
            return Answer("no_match", (), None, parsed, self.variant, reason="unknown_place")
        policy = self.rules.retrieval
        needs_clarification = (not (c.places or c.names or c.proximity)
                               if policy.clarify_requires_location else not c.has_structural)
        # the TRACE rule, as data: ask where only when the directory covers more than one region (county)
        needs_clarification = needs_clarification and self.regions_covered >= policy.clarify_min_regions
        if needs_clarification:  # INVARIANT (T-3): no location, no recommendation: one clarification question
            question = self.rules.message("clarify_question", language)
            return Answer("clarify", (), question, parsed, self.variant, reason="no_structural_constraint")
        branches = self.name_candidates(parsed)
        if branches:  # one name, several places: ask which, naming them (never a guess between them)
            nat = self.rules.natural
            or_word = f" {nat.message('or_word', language)} "
            shown = []
            one_town = len({self.directory.records[self._position(i)].city_key for i in branches}) == 1
            for index in branches[:6]:
                record = self.directory.records[self._position(index)]
                where = record.address if one_town and record.address else record.city
                shown.append(f"{record.name} ({where})" if where else record.name)
            question = nat.message("clarify_place", language).format(candidates=or_word.join(shown))
            return Answer("clarify", (), question, parsed, self.variant, reason="ambiguous_name")
        distances: dict[int, float] = {}
        ranked = self._candidates(parsed, distances)
        results, rounds = self._filter(ranked, c, distances)
        stating = [r for r in results if any(r.record.attributes.get(p) for p in c.preferred)]
        if stating:  # records that state the counterpart ('walk-ins welcome'); those stating neither only without
            results = stating
        if not results:  # INVARIANT (T-4): nothing satisfies every constraint: an explicit no match
            return Answer("no_match", (), None, parsed, self.variant, rounds=rounds, candidates=len(ranked),
                          reason="no_candidate_satisfies")
        return Answer("results", tuple(results), None, parsed, self.variant, rounds=rounds, candidates=len(ranked))

    # ------------------------------------------------------------------ steps
    def _candidates(self, parsed: ParsedQuery, distances: dict[int, float]) -> list[int]:
        """Graph query for the structural constraints this variant enforces; ranked by text similarity."""
        c = parsed.constraints
        records = self.directory.records
        pool: set[int] | None = None
        if self.variant.location_graph and c.places:
            pool = self.graph.records_in(c.places, c.places_any)
        if self.variant.hours_graph and c.hours is not None:
            pool = self.graph.records_open_set(c.hours, among=pool)
        if c.names:
            named = self._named(c)
            if pool is not None:  # the branch in the place asked for, before any 'named alone' preference
                named &= pool
            if not parsed.alternatives:
                named = self._named_alone(named, c, programmes=pool is not None) or named
            food = {i for i in named if not records[self._position(i)].non_food}
            pool = food if c.service is None and food else named  # a food listing before a job/money listing
        scores = self._text_scores(parsed)
        if c.proximity is not None:
            return self._by_distance(parsed, pool, scores, distances)
        if pool is None:
            # no graph layer applies: the text index alone proposes candidates (the KG-0 behaviour)
            order = np.argsort(-scores, kind="stable")
            depth = self.rules.retrieval.text_variant_depth
            return [records[i].source_index for i in order[:depth] if scores[i] > 0] or [
                r.source_index for r in records[:depth]]
        return self._preferred_first(self._rank(pool, scores), c)

    def _rank(self, pool: set[int], scores: np.ndarray[Any, np.dtype[np.float64]]) -> list[int]:
        """The pool by text score, best first, ties by source index (vectorised: pools reach 10^4 at scale)."""
        if not pool:
            return []
        indexes = np.fromiter(pool, dtype=np.int64, count=len(pool))
        order = np.lexsort((indexes, -scores[self._position_array[indexes]]))
        ranked: list[int] = indexes[order].tolist()  # Python ints made in C, not 10^5 numpy scalars converted
        return ranked

    def _preferred_first(self, ranked: list[int], c: Constraints) -> list[int]:
        """Records stating a preferred counterpart ('walk-ins welcome') before those stating neither way."""
        if not c.preferred:
            return ranked
        records = self.directory.records

        def states(i: int) -> bool:
            return any(records[self._position(i)].attributes.get(p) for p in c.preferred)

        return [i for i in ranked if states(i)] + [i for i in ranked if not states(i)]

    def _named(self, c: Constraints) -> set[int]:
        """Records whose name holds one of the asked names as a run: candidates from the rarest word's postings.
        Several names ('Feed Your Neighbor at Epiphany Lutheran': a programme at a host) keep the records
        holding all of them when there are such."""
        per_name: list[set[int]] = []
        for name in c.names:
            postings = [self._name_postings.get(t, set()) for t in name.key]
            pool = min(postings, key=len) if postings else set()
            per_name.append({i for i in pool if contains_run(self._name_tokens[i], name.key)})
        every = set.intersection(*per_name) if len(per_name) > 1 else set()
        return every or set().union(*per_name)

    def name_candidates(self, parsed: ParsedQuery) -> list[int]:
        """A name asked for without a place that several records in different towns answer to: the branches of
        a chain ('Salvation Army': the exact name and 'Salvation Army of <town>') or, when no record bears
        exactly the asked name, every holder of it. Empty when one town (or one record) answers."""
        c = parsed.constraints
        if not c.names or c.places or c.proximity or c.unknown_places or parsed.alternatives:
            return []
        named = self._named(c)
        records = self.directory.records
        blocked = self.names.generic | self.gazetteer.place_tokens | self.rules.query.stopwords
        if not self._named_alone(named, c):
            # no record bears exactly the asked name: its core (generic words trimmed off both ends: 'the Fish
            # food pantry' -> 'fish') also finds the branches that put the core beside their town and generic
            # words only ('Archbold Fish Pantry', 'Wauseon - Fish Food Pantry'), so a bare name is never matched
            # to one of them by its generic words
            for name in c.names:
                core = self.names.trim(name.key)
                if core and core != name.key and self.names.distinctive(core):
                    held = self._named(replace(c, names=(replace(name, key=core),)))
                    named |= {i for i in held if not set(self._name_tokens[i]) - set(core) - blocked}
        asked = {t for n in c.names for t in n.key}
        exact = self._named_alone(named, c)
        if exact:  # a record bears the name: only chain branches (extra words are places or generic) compete
            named = {i for i in named if not set(self._name_tokens[i]) - asked - blocked}
        towns = {records[self._position(i)].city_key for i in named} - {None}  # a record naming no town: none
        if len(named) < 2:
            return []
        if len(towns) < 2:
            # one town: its sites (addresses; a lunch and a dinner row at one address are one site, a record
            # stating no address is none) are all shown when one answer holds them, else the visitor picks one
            # ('God's Kitchen' at five street corners of one city)
            sites = {" ".join(key_tokens(records[self._position(i)].address or "")) for i in named} - {""}
            if len(sites) <= self.rules.retrieval.k:
                return []
        return sorted(named)

    def _named_alone(self, named: set[int], c: Constraints, programmes: bool = False) -> set[int]:
        """Records whose whole name (generic words aside) is the name asked for: the named record alone; with
        ``programmes`` (a place is given) also those naming it before a programme ('Open Door Ministries -
        Father's Table' beside 'Open Door Ministries - Pantry')."""
        generic = self.names.generic
        wanted = {tuple(t for t in n.key if t not in generic) for n in c.names}
        records = self.directory.records

        def core(text: str) -> tuple[str, ...]:
            return tuple(t for t in key_tokens(text) if t not in generic)

        return {i for i in named
                if core(records[self._position(i)].name) in wanted
                or (programmes and core(_PROGRAMME.split(records[self._position(i)].name, maxsplit=1)[0]) in wanted)}

    def _by_distance(self, parsed: ParsedQuery, pool: set[int] | None,
                     scores: np.ndarray[Any, np.dtype[np.float64]], distances: dict[int, float]) -> list[int]:
        """Nearest first (text score breaks ties); a stated radius caps it, else the rule's default radius."""
        prox = parsed.constraints.proximity
        assert prox is not None
        limit = prox.radius if prox.radius is not None else self.rules.natural.default_radius_miles
        indexes, all_miles = self.resolver.distances_from(prox.point)
        ranked = []
        for index, distance in zip(indexes[all_miles <= limit].tolist(), all_miles[all_miles <= limit].tolist(),
                                   strict=True):
            if pool is None or index in pool:
                ranked.append((round(distance, 3), -scores[self._position(index)], index))
        ranked.sort()
        distances.update({index: distance for distance, _, index in ranked})
        return [index for _, _, index in ranked]

    def _position(self, source_index: int) -> int:
        return self._positions[source_index]

    def _text_scores(self, parsed: ParsedQuery) -> np.ndarray[Any, np.dtype[np.float64]]:
        labels = [self.rules.semantic.concepts[cid].label("en") for cid in parsed.constraints.concepts]
        text = " ".join([parsed.text, *labels])
        scores = self.text.scores(text)
        embedder = self.text.embedder
        if self.use_embeddings and embedder is not None:
            weight = self.rules.retrieval.embeddings_weight
            top = float(scores.max()) if scores.size and scores.max() > 0 else 1.0
            scores = (1 - weight) * (scores / top) + weight * embedder.similarities(parsed.text)
        return scores

    def _filter(self, ranked: list[int], c: Constraints,
                distances: dict[int, float] | None = None) -> tuple[list[Result], int]:
        """Evidence filtering over top-k chunks; when too few pass, fetch the next k (until exhausted)."""
        k = self.rules.retrieval.k
        results: list[Result] = []
        rounds = 0
        for offset in range(0, len(ranked), k):
            if rounds >= self.rules.retrieval.max_rounds:
                break
            rounds += 1
            for index in ranked[offset:offset + k]:
                record = self.directory.records[self._position(index)]
                # INVARIANT (T-1): a record is returned only when every enforced constraint holds for it
                verdict = check(record, c, places=self.variant.location_graph, hours=self.variant.hours_graph)
                if verdict.ok:
                    distance = distances.get(index) if c.proximity is not None and distances else None
                    evidence = list(verdict.evidence)
                    located = record.raw.get("zip") or record.raw.get("address") or record.raw.get("city")
                    if distance is not None and located:
                        evidence.append(("distance", located[0]))  # where the distance was measured from
                    results.append(replace(_result(record, evidence), distance_miles=distance))
                    if len(results) >= k:
                        return results, rounds
        return results, rounds


_ZIP_IN_TEXT = re.compile(r"(?<!\d)\d{5}(?:-\d{4})?(?!\d)")


def _result(record: Record, evidence: list[tuple[str, Evidence]]) -> Result:
    def pick(prefix: str) -> Evidence | None:
        return next((ev for label, ev in evidence if label.startswith(prefix)), None)

    main = (pick("concept:") or pick("service:") or pick("hours") or pick("name") or pick("city") or pick("county")
            or pick("zip") or pick("distance") or next(iter(record.raw.get("name") or ()), None))
    quote = main.quote if main is not None else record.name
    return Result(record.source_index, record.name, quote, tuple(evidence), record)
