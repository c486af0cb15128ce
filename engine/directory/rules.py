"""Loading the versioned ``rules/directory/*.json`` files into typed, pre-compiled vocabularies.

Each file is validated against ``rules/schemas/directory_<stem>.schema.json``; every regular expression is
compiled at load so a bad pattern fails here (``directory.rules_regex_invalid``), never in the middle of a query.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema
import structlog

from engine.directory.errors import DirectoryRulesError
from engine.rules_bundle import DEFAULT_RULES_DIR
from engine.text import fold

log = structlog.get_logger("grace.directory")

RULE_FILES = ("time_vocabulary", "query_vocabulary", "address_vocabulary", "semantic_constraints", "messages",
              "retrieval")


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

    def label(self, language: str) -> str:
        return self.labels.get(language) or self.labels["en"]


@dataclass(frozen=True)
class SemanticVocabulary:
    negation_cues: tuple[re.Pattern[str], ...]
    concepts: dict[str, Concept]


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

    def message(self, key: str, language: str) -> str:
        entry = self.messages[key]
        return str(entry.get(language) or entry["en"])


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DirectoryRulesError(f"{path.name}: not readable JSON ({exc})", code="directory.rules_unreadable") from exc
    if not isinstance(data, dict):
        raise DirectoryRulesError(f"{path.name}: top level must be an object", code="directory.rules_unreadable")
    return data


def _load_validated(root: Path, stem: str) -> dict[str, Any]:
    data = _read(root / "directory" / f"{stem}.json")
    schema = _read(root / "schemas" / f"directory_{stem}.schema.json")
    try:
        jsonschema.validate(data, schema)
    except jsonschema.ValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(top)"
        raise DirectoryRulesError(f"directory/{stem}.json at {where}: {exc.message}",
                                  code="directory.rules_schema_violation") from exc
    return data


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
        )
    for concept in concepts.values():
        if concept.negation is not None and concept.negation not in concepts:
            raise DirectoryRulesError(f"concept {concept.id}: negation {concept.negation} is not a concept",
                                      code="directory.rules_concept_unknown")
    cues = tuple(_compile(p, "semantic_constraints.negation_cues") for p in data["negation_cues"])
    return SemanticVocabulary(negation_cues=cues, concepts=concepts)


def _retrieval(data: dict[str, Any]) -> RetrievalPolicy:
    return RetrievalPolicy(
        k=data["k"], max_rounds=data["max_rounds"], bm25_k1=float(data["bm25"]["k1"]), bm25_b=float(data["bm25"]["b"]),
        max_name_ngram=data["name_match"]["max_ngram"], min_token_length=data["name_match"]["min_token_length"],
        embeddings_enabled=bool(data["embeddings"]["enabled"]), embeddings_weight=float(data["embeddings"]["weight"]),
        text_variant_depth=data["text_variant_depth"],
        clarify_requires_location=bool(data["clarify_requires_location"]),
        latency_queries=data["latency_queries"],
    )


@lru_cache(maxsize=8)
def load_rules(root: Path = DEFAULT_RULES_DIR) -> DirectoryRules:
    """Load and validate every directory rule file under ``root`` (the project's ``rules/`` by default)."""
    root = Path(root).resolve()
    raw = {stem: _load_validated(root, stem) for stem in RULE_FILES}
    digest = hashlib.sha256()
    for stem in RULE_FILES:
        digest.update(json.dumps(raw[stem], sort_keys=True).encode())
    rules = DirectoryRules(
        root=root, versions={stem: str(raw[stem]["version"]) for stem in RULE_FILES},
        content_hash="sha256:" + digest.hexdigest(), time=_time(raw["time_vocabulary"]),
        query=_query(raw["query_vocabulary"]), address=_address(raw["address_vocabulary"]),
        semantic=_semantic(raw["semantic_constraints"]), messages=raw["messages"],
        retrieval=_retrieval(raw["retrieval"]),
    )
    log.debug("directory.rules.loaded", root=str(root), content_hash=rules.content_hash)
    return rules
