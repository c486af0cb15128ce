"""Typed, pre-compiled vocabularies from the ``directory/*.json`` files of a loaded rule bundle.

The files are read only from the in-memory ``RuleBundle`` the caller verified (``directory_rules``): nothing is
re-read from disk after verification and there is no fallback to the ``rules/`` folder. The bundle loader has
already validated each file against ``rules/schemas/directory_<stem>.schema.json``; every regular expression is
compiled here so a bad pattern fails at load (``directory.rules_regex_invalid``), never in the middle of a query.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import structlog

from engine.directory.errors import DirectoryRulesError
from engine.errors import RuleBundleError
from engine.rules.loader import DEFAULT_RULES_DIR, RuleBundle
from engine.text import fold

log = structlog.get_logger("grace.directory")

RULE_FILES = ("time_vocabulary", "query_vocabulary", "address_vocabulary", "semantic_constraints", "messages",
              "retrieval", "natural_queries", "regional_names")


def _words(values: list[str]) -> tuple[str, ...]:
    return tuple(fold(v).strip() for v in values if v.strip())


def _lang_words(data: dict[str, list[str]]) -> tuple[str, ...]:
    return tuple(w for values in data.values() for w in _words(values))


def _compile(pattern: str, where: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise DirectoryRulesError(f"{where}: bad regular expression {pattern!r} ({exc})",
                                  code="directory.rules_regex_invalid") from exc


@dataclass(frozen=True)
class Daypart:
    id: str
    start: int
    end: int
    words: tuple[str, ...]


@dataclass(frozen=True)
class TimeVocabulary:
    day_words: dict[str, int]  # full names (EN/ES, plurals) -> day
    day_abbreviations: dict[str, int]
    compact_day_codes: dict[str, int]
    month_words: dict[str, int]
    ordinal_words: dict[str, int]
    am_words: tuple[str, ...]
    pm_words: tuple[str, ...]
    noon_words: tuple[str, ...]
    midnight_words: tuple[str, ...]
    day_range_connectors: tuple[str, ...]
    list_connectors: tuple[str, ...]
    time_range_connectors: tuple[str, ...]
    filler_words: frozenset[str]
    between_words: tuple[str, ...]
    range_openers: tuple[str, ...]
    irregular_patterns: tuple[re.Pattern[str], ...]
    monthly_patterns: tuple[re.Pattern[str], ...]
    all_week_patterns: tuple[re.Pattern[str], ...]
    all_day_patterns: tuple[re.Pattern[str], ...]
    closed_words: tuple[str, ...]
    relative_to_day_words: tuple[str, ...]
    dayparts: tuple[Daypart, ...]
    relative_days: tuple[tuple[str, int], ...]  # (phrase, offset), longest phrase first
    now_words: tuple[str, ...]
    open_words: frozenset[str]
    dated_weekday_prefixes: tuple[str, ...]
    weekend_words: tuple[str, ...]
    weekday_group_words: tuple[str, ...]
    time_relations: tuple[tuple[str, str], ...]  # (phrase, relation), longest phrase first
    negation_cues: tuple[str, ...] = ()  # 'not', 'except': the weekday / daypart after them is excluded
    negation_fillers: frozenset[str] = frozenset()  # words allowed between a negation cue and its time word
    indifference_cues: tuple[str, ...] = ()  # 'closed Mondays is fine': no constraint at all
    negated_day_closed: bool = False  # 'not on Tuesday': the record must not open that day (else: any other day)
    contact_hours: tuple[re.Pattern[str], ...] = ()  # 'call the office Monday-Friday': no opening of the site


@dataclass(frozen=True)
class QueryVocabulary:
    locative_cues: tuple[str, ...]
    county_suffixes: tuple[str, ...]
    county_prefixes: tuple[str, ...]
    city_prefixes: tuple[str, ...]
    zip_cues: tuple[str, ...]
    intent_words: tuple[str, ...]
    recall_cues: tuple[str, ...]
    recall_suffix_cues: tuple[str, ...]
    generic_name_words: frozenset[str]
    stopwords: frozenset[str]
    common_words: frozenset[str]
    spanish_markers: frozenset[str]
    non_place_capitalized: frozenset[str]


@dataclass(frozen=True)
class AddressVocabulary:
    states: dict[str, tuple[str, ...]]  # code -> folded names
    county_suffixes: tuple[str, ...]
    independent_city_patterns: tuple[re.Pattern[str], ...]
    unknown_county_patterns: tuple[re.Pattern[str], ...]
    street_words: frozenset[str]
    place_suffix_words: frozenset[str]
    place_prefix_words: frozenset[str]
    directional_words: frozenset[str]
    quadrants: dict[str, tuple[str, ...]] = field(default_factory=dict)  # 'NW' -> ('nw', 'northwest', ...)


@dataclass(frozen=True)
class Concept:
    id: str
    labels: dict[str, str]
    query_patterns: tuple[re.Pattern[str], ...]
    evidence_patterns: tuple[re.Pattern[str], ...]
    negative_patterns: tuple[re.Pattern[str], ...]
    tags: frozenset[str]
    negation: str | None
    excludes: tuple[str, ...] = ()  # the concepts this one is the negation of ('walk_in' excludes 'appointment')
    unstated_satisfies: bool = False  # with excludes: a record stating neither way satisfies it

    def label(self, language: str) -> str:
        return self.labels.get(language) or self.labels["en"]


@dataclass(frozen=True)
class SemanticVocabulary:
    negation_cues: tuple[re.Pattern[str], ...]
    concepts: dict[str, Concept]
    negated_after: tuple[re.Pattern[str], ...] = ()  # '... not required' right after an evidence phrase
    negated_before: tuple[re.Pattern[str], ...] = ()  # 'no ...' / 'without ...' right before it
    self_negation_cues: tuple[re.Pattern[str], ...] = ()  # 'I am not a ...': about the visitor, not a record


@dataclass(frozen=True)
class RetrievalPolicy:
    k: int
    max_rounds: int
    bm25_k1: float
    bm25_b: float
    max_name_ngram: int
    min_token_length: int
    embeddings_enabled: bool
    embeddings_weight: float
    text_variant_depth: int
    clarify_requires_location: bool
    latency_queries: int
    clarify_min_regions: int = 1  # ask where only when the directory's records span at least this many counties


@dataclass(frozen=True)
class RegionalName:
    """A regional or informal name and the places it stands for (one kind: counties, towns or ZIPs)."""

    names: tuple[tuple[str, ...], ...]  # folded token keys
    state: str
    counties: tuple[str, ...] = ()
    cities: tuple[str, ...] = ()
    zips: tuple[str, ...] = ()


@dataclass(frozen=True)
class ServiceType:
    id: str
    query_patterns: tuple[re.Pattern[str], ...]
    record_patterns: tuple[re.Pattern[str], ...]
    food_words_in_name: tuple[str, ...]
    # a record evidencing the service in any text and matching none of these offers no food ('SNAP assistance
    # available' on a hospital's listing); empty: only a service in the name makes a record non-food
    food_offer_patterns: tuple[re.Pattern[str], ...] = ()


@dataclass(frozen=True)
class CompassAreas:
    directions: dict[str, float]  # direction word (and abbreviation) -> bearing, degrees clockwise from north
    half_width: float
    min_miles: float
    min_town_zips: int


@dataclass(frozen=True)
class NaturalVocabulary:
    """Places as people say them, proximity, services, name-alone and follow-up policy."""

    word_abbreviations: dict[str, tuple[str, ...]]
    droppable_last_words: frozenset[str]
    landmark_words: tuple[str, ...]
    landmark_connectors: frozenset[str]
    prefix_min_alone: int
    prefix_min_phrase: int
    prefix_min_share: float
    fuzzy_min_length: int
    fuzzy_cued: float
    fuzzy_uncued: float
    fuzzy_margin: float
    fuzzy_suggest: float  # below the match threshold but above this: ask "Did you mean ...?"
    city_variant_ratio: float  # two spellings of one town in the same state and county ('Silver Springs')
    radius_patterns: tuple[re.Pattern[str], ...]
    radius_anywhere_patterns: tuple[re.Pattern[str], ...]  # 'near 95112 within 3 miles'
    anchor_cues: tuple[str, ...]  # longest first
    zip_only_cues: tuple[str, ...]
    anywhere_cues: tuple[str, ...]
    default_radius_miles: float
    miles_decimals: int
    coordinate_check_miles: float
    services: dict[str, ServiceType]
    only_patterns: tuple[re.Pattern[str], ...]
    alternatives_cues: tuple[str, ...]
    carry: frozenset[str]
    reset_cues: tuple[str, ...]
    continue_cues: tuple[str, ...]  # 'what about ...', 'and ...': a follow-up even when it names a place and food
    max_history_turns: int
    messages: dict[str, dict[str, str]]
    municipality_words: frozenset[str] = frozenset()  # 'township': a municipality holding villages of other names
    city_misspelling_ratio: float = 100.0  # a spelling that is no real town, beside a real one ('Kurtisown')
    name_negation: tuple[re.Pattern[str], ...] = ()  # 'not the', 'other than' right before a name: excluded
    negatable_kinds: frozenset[str] = frozenset()  # 'school', 'church': 'not at a school' excludes those names
    served_zip_patterns: tuple[re.Pattern[str], ...] = ()  # a record's passage listing the ZIP codes it serves
    residence_zip_cues: tuple[re.Pattern[str], ...] = ()  # 'I live in' right before a ZIP code
    compass: CompassAreas | None = None  # 'West <town>': a compass part of a large town, by ZIP centroids

    def message(self, key: str, language: str) -> str:
        entry = self.messages[key]
        return str(entry.get(language) or entry["en"])


@dataclass(frozen=True)
class DirectoryRules:
    root: Path
    versions: dict[str, str]
    content_hash: str
    time: TimeVocabulary
    query: QueryVocabulary
    address: AddressVocabulary
    semantic: SemanticVocabulary
    messages: dict[str, Any]
    retrieval: RetrievalPolicy
    natural: NaturalVocabulary
    regions: tuple[RegionalName, ...] = ()

    def message(self, key: str, language: str) -> str:
        entry = self.messages[key]
        return str(entry.get(language) or entry["en"])


def _time(data: dict[str, Any]) -> TimeVocabulary:
    day_words: dict[str, int] = {}
    day_abbreviations: dict[str, int] = {}
    for entry in data["weekdays"]:
        for word in _lang_words(entry["names"]):
            day_words[word] = entry["day"]
        for word in _words(entry["abbreviations"]):
            day_abbreviations[word] = entry["day"]
    month_words = {w: e["month"] for e in data["months"] for w in _lang_words(e["names"])}
    ordinal_words = {w: e["week"] for e in data["ordinals"] for w in _words(e["words"])}
    relative = sorted(((w, e["offset"]) for e in data["relative_days"] for w in _lang_words(e["words"])),
                      key=lambda item: -len(item[0]))
    relations = sorted(((w, rel) for rel, words in data["time_relations"].items() for w in _lang_words(words)),
                       key=lambda item: -len(item[0]))

    def pats(key: str) -> tuple[re.Pattern[str], ...]:
        return tuple(_compile(p, f"time_vocabulary.{key}") for p in data[key])

    dayparts = tuple(Daypart(d["id"], d["start"], d["end"], _lang_words(d["words"])) for d in data["dayparts"])
    for part in dayparts:
        if part.end <= part.start:
            raise DirectoryRulesError(f"daypart {part.id}: end must be after start", code="directory.rules_daypart")
    return TimeVocabulary(
        day_words=day_words, day_abbreviations=day_abbreviations,
        compact_day_codes=dict(data["compact_day_codes"]), month_words=month_words,
        ordinal_words=ordinal_words,
        am_words=_words(data["meridiem"]["am"]), pm_words=_words(data["meridiem"]["pm"]),
        noon_words=_words(data["noon_words"]), midnight_words=_words(data["midnight_words"]),
        day_range_connectors=_words(data["day_range_connectors"]), list_connectors=_words(data["list_connectors"]),
        time_range_connectors=_words(data["time_range_connectors"]),
        filler_words=frozenset(_words(data["filler_words"])),
        between_words=_words(data["between_words"]), range_openers=_words(data["range_openers"]),
        irregular_patterns=pats("irregular_patterns"), monthly_patterns=pats("monthly_patterns"),
        all_week_patterns=pats("all_week_patterns"), all_day_patterns=pats("all_day_patterns"),
        closed_words=_words(data["closed_words"]), relative_to_day_words=_words(data["relative_to_day_words"]),
        dayparts=dayparts, relative_days=tuple(relative), now_words=_lang_words(data["now_words"]),
        open_words=frozenset(_words(data["open_words"])),
        dated_weekday_prefixes=_lang_words(data["dated_weekday_prefixes"]),
        weekend_words=_lang_words(data["weekend_words"]), weekday_group_words=_lang_words(data["weekday_group_words"]),
        time_relations=tuple(relations),
        negation_cues=_lang_words(data.get("negation_cues", {})),
        negation_fillers=frozenset(_words(data.get("negation_fillers", []))),
        indifference_cues=_lang_words(data.get("indifference_cues", {})),
        negated_day_closed=bool(data.get("negated_day_closed", False)),
        contact_hours=pats("contact_hours_patterns") if "contact_hours_patterns" in data else (),
    )


def _query(data: dict[str, Any]) -> QueryVocabulary:
    return QueryVocabulary(
        locative_cues=_lang_words(data["locative_cues"]), county_suffixes=_words(data["county_suffixes"]),
        county_prefixes=_lang_words(data["county_prefixes"]), city_prefixes=_lang_words(data["city_prefixes"]),
        zip_cues=_lang_words(data["zip_cues"]), intent_words=_lang_words(data["intent_words"]),
        recall_cues=tuple(sorted(_lang_words(data["recall_cues"]), key=len, reverse=True)),
        recall_suffix_cues=_lang_words(data["recall_suffix_cues"]),
        generic_name_words=frozenset(_words(data["generic_name_words"])),
        stopwords=frozenset(_lang_words(data["stopwords"])), common_words=frozenset(_words(data["common_words"])),
        spanish_markers=frozenset(_words(data["spanish_markers"])),
        non_place_capitalized=frozenset(_words(data["non_place_capitalized"])),
    )


def _address(data: dict[str, Any]) -> AddressVocabulary:
    return AddressVocabulary(
        states={e["code"]: _words(e["names"]) for e in data["states"]},
        county_suffixes=_words(data["county_suffixes"]),
        independent_city_patterns=tuple(_compile(p, "address_vocabulary.independent_city_patterns")
                                        for p in data["independent_city_patterns"]),
        unknown_county_patterns=tuple(_compile(p, "address_vocabulary.unknown_county_patterns")
                                      for p in data["unknown_county_patterns"]),
        street_words=frozenset(_words(data["street_words"])),
        place_suffix_words=frozenset(_words(data["place_suffix_words"])),
        place_prefix_words=frozenset(_words(data["place_prefix_words"])),
        directional_words=frozenset(w.strip(".") for w in _words(data["directional_words"])),
        quadrants={e["code"]: _words(e["names"]) for e in data.get("quadrants", [])},
    )


def _semantic(data: dict[str, Any]) -> SemanticVocabulary:
    concepts: dict[str, Concept] = {}
    for entry in data["concepts"]:
        cid = entry["id"]
        if cid in concepts:
            raise DirectoryRulesError(f"concept {cid} defined twice", code="directory.rules_concept_duplicate")
        where = f"semantic_constraints.{cid}"
        concepts[cid] = Concept(
            id=cid, labels=dict(entry["labels"]),
            query_patterns=tuple(_compile(p, where) for p in entry["query_patterns"]),
            evidence_patterns=tuple(_compile(p, where) for p in entry["evidence_patterns"]),
            negative_patterns=tuple(_compile(p, where) for p in entry["negative_patterns"]),
            tags=frozenset(entry["tags"]), negation=entry.get("negation"),
            excludes=tuple(entry.get("excludes", ())), unstated_satisfies=bool(entry.get("unstated_satisfies")),
        )
    for concept in concepts.values():
        if any(e not in concepts for e in concept.excludes):
            raise DirectoryRulesError(f"concept {concept.id}: excludes an unknown concept",
                                      code="directory.rules_concept_unknown")
        if concept.negation is not None and concept.negation not in concepts:
            raise DirectoryRulesError(f"concept {concept.id}: negation {concept.negation} is not a concept",
                                      code="directory.rules_concept_unknown")
    cues = tuple(_compile(p, "semantic_constraints.negation_cues") for p in data["negation_cues"])
    after = tuple(_compile(p, "semantic_constraints.evidence_negation_after")
                  for p in data.get("evidence_negation_after", []))
    before = tuple(_compile(p, "semantic_constraints.evidence_negation_before")
                   for p in data.get("evidence_negation_before", []))
    own = tuple(_compile(p, "semantic_constraints.self_negation_cues") for p in data.get("self_negation_cues", []))
    return SemanticVocabulary(negation_cues=cues, concepts=concepts, negated_after=after, negated_before=before,
                              self_negation_cues=own)


def _retrieval(data: dict[str, Any]) -> RetrievalPolicy:
    return RetrievalPolicy(
        k=data["k"], max_rounds=data["max_rounds"], bm25_k1=float(data["bm25"]["k1"]), bm25_b=float(data["bm25"]["b"]),
        max_name_ngram=data["name_match"]["max_ngram"], min_token_length=data["name_match"]["min_token_length"],
        embeddings_enabled=bool(data["embeddings"]["enabled"]), embeddings_weight=float(data["embeddings"]["weight"]),
        text_variant_depth=data["text_variant_depth"],
        clarify_requires_location=bool(data["clarify_requires_location"]),
        latency_queries=data["latency_queries"],
        clarify_min_regions=int(data.get("clarify_min_regions", 1)),
    )


def _natural(data: dict[str, Any]) -> NaturalVocabulary:
    where = "natural_queries"

    def pats(values: list[str], key: str) -> tuple[re.Pattern[str], ...]:
        return tuple(_compile(p, f"{where}.{key}") for p in values)

    services = {
        sid: ServiceType(sid, pats(e["query_patterns"], f"services.{sid}"),
                         pats(e["record_patterns"], f"services.{sid}"), _words(e["food_words_in_name"]),
                         pats(e.get("food_offer_patterns", []), f"services.{sid}.food_offer_patterns"))
        for sid, e in data["services"].items()
    }
    prox = data["proximity"]
    return NaturalVocabulary(
        word_abbreviations={fold(k).strip(): _words(v) for k, v in data["word_abbreviations"].items()},
        droppable_last_words=frozenset(_words(data["droppable_last_words"])),
        landmark_words=_words(data["landmark_words"]),
        landmark_connectors=frozenset(_words(data["landmark_connectors"])),
        prefix_min_alone=data["prefix"]["min_length_alone"], prefix_min_phrase=data["prefix"]["min_length_in_phrase"],
        prefix_min_share=float(data["prefix"]["min_share_alone"]),
        fuzzy_min_length=data["fuzzy"]["min_length"], fuzzy_cued=float(data["fuzzy"]["cued_threshold"]),
        fuzzy_uncued=float(data["fuzzy"]["uncued_threshold"]), fuzzy_margin=float(data["fuzzy"]["ambiguity_margin"]),
        city_variant_ratio=float(data["fuzzy"]["city_variant_ratio"]),
        city_misspelling_ratio=float(data["fuzzy"].get("city_misspelling_ratio", 100)),
        fuzzy_suggest=float(data["fuzzy"]["suggest_threshold"]),
        radius_patterns=tuple(re.compile(p.pattern, re.I) for p in pats(prox["radius_patterns"], "radius_patterns")),
        radius_anywhere_patterns=tuple(re.compile(p.pattern, re.I) for p in pats(prox["radius_anywhere_patterns"],
                                                                                  "radius_anywhere_patterns")),
        anchor_cues=tuple(sorted(_words(prox["anchor_cues"]), key=len, reverse=True)),
        zip_only_cues=tuple(sorted(_words(prox["zip_only_cues"]), key=len, reverse=True)),
        anywhere_cues=_words(prox["anywhere_cues"]), default_radius_miles=float(prox["default_radius_miles"]),
        miles_decimals=int(prox["miles_decimals"]), coordinate_check_miles=float(prox["coordinate_check_miles"]),
        services=services,
        only_patterns=tuple(re.compile(p.pattern, re.I) for p in pats(data["only_patterns"], "only_patterns")),
        alternatives_cues=_words(data["alternatives_cues"]),
        carry=frozenset(data["followup"]["carry"]), reset_cues=_words(data["followup"]["reset_cues"]),
        continue_cues=_words(data["followup"]["continue_cues"]),
        max_history_turns=int(data["followup"]["max_history_turns"]),
        messages={k: dict(v) for k, v in data["messages"].items()},
        municipality_words=frozenset(_words(data.get("municipality_words", []))),
        name_negation=pats(data.get("name_negation_patterns", []), "name_negation_patterns"),
        negatable_kinds=frozenset(_words(data.get("negatable_kind_words", []))),
        served_zip_patterns=pats(data.get("served_zip_patterns", []), "served_zip_patterns"),
        residence_zip_cues=pats(data.get("residence_zip_cues", []), "residence_zip_cues"),
        compass=_compass(data.get("compass_areas")),
    )


def _compass(data: dict[str, Any] | None) -> CompassAreas | None:
    if not data:
        return None
    directions = {fold(k).strip(): float(v) for k, v in data["directions"].items()}
    for short, full in data.get("abbreviations", {}).items():
        if fold(full).strip() not in directions:
            raise DirectoryRulesError(f"natural_queries.compass_areas: unknown direction {full!r}",
                                      code="directory.rules_compass_direction")
        directions[fold(short).strip()] = directions[fold(full).strip()]
    return CompassAreas(directions=directions, half_width=float(data["half_width_degrees"]),
                        min_miles=float(data["min_miles"]), min_town_zips=int(data["min_town_zips"]))


def _regions(data: dict[str, Any]) -> tuple[RegionalName, ...]:
    from engine.directory.normalize import key_tokens  # normalize imports nothing from here

    return tuple(RegionalName(names=tuple(dict.fromkeys(key_tokens(n) for n in e["names"] if key_tokens(n))),
                              state=e["state"], counties=tuple(e.get("counties", ())),
                              cities=tuple(e.get("cities", ())), zips=tuple(e.get("zips", ())))
                 for e in data["regions"])


_CACHE: dict[str, DirectoryRules] = {}
_CACHE_LOCK = threading.Lock()


def directory_rules(bundle: RuleBundle | None) -> DirectoryRules:
    """The directory vocabularies of a loaded (verified) bundle, read from memory only; one build per content hash.

    ``None`` is refused (``directory.rules_missing``): callers load the verified bundle explicitly."""
    if bundle is None:
        raise DirectoryRulesError("no verified rule bundle was given to the directory retriever",
                                  code="directory.rules_missing")
    with _CACHE_LOCK:
        cached = _CACHE.get(bundle.content_hash)
    if cached is not None:
        return cached
    try:
        raw = {stem: bundle.file(f"directory/{stem}") for stem in RULE_FILES}
    except RuleBundleError as exc:
        raise DirectoryRulesError(exc.message, code="directory.rules_missing") from exc
    digest = hashlib.sha256()
    for stem in RULE_FILES:
        digest.update(json.dumps(raw[stem], sort_keys=True).encode())
    rules = DirectoryRules(
        root=bundle.root, versions={stem: str(raw[stem]["version"]) for stem in RULE_FILES},
        content_hash="sha256:" + digest.hexdigest(), time=_time(raw["time_vocabulary"]),
        query=_query(raw["query_vocabulary"]), address=_address(raw["address_vocabulary"]),
        semantic=_semantic(raw["semantic_constraints"]), messages=raw["messages"],
        retrieval=_retrieval(raw["retrieval"]), natural=_natural(raw["natural_queries"]),
        regions=_regions(raw["regional_names"]),
    )
    with _CACHE_LOCK:
        _CACHE[bundle.content_hash] = rules
    log.debug("directory.rules.loaded", bundle_version=bundle.version, content_hash=rules.content_hash)
    return rules


@lru_cache(maxsize=8)
def load_rules(root: Path = DEFAULT_RULES_DIR) -> DirectoryRules:
    """Explicitly load and verify the bundle under ``root`` (schemas, publication state, Z3 properties) and build
    the directory vocabularies from it. For tools and tests; services pass their pinned bundle to
    ``directory_rules``."""
    from engine.kernel.decision.bundle_proofs import load_verified_bundle  # the prover is heavy: import only when asked

    return directory_rules(load_verified_bundle(Path(root).resolve(), require_published=False))
