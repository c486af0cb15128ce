"""Load the offline proposer's rule data: vocabularies (rules/vocabularies) and cue patterns (rules/patterns).

Works from a rules folder (schema-validated here) or from a loaded ``engine.rules.loader.RuleBundle``'s parsed
files (already validated by the bundle loader). Regexes are compiled once; a bad one fails loading, never a turn.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from engine.rules.loader import check_schema, read_json_object
from engine.text import fold
from llm_adapters.offline.errors import OfflineRulesError

DEFAULT_RULES_DIR = Path(__file__).resolve().parents[2] / "rules"
_FLAGS = re.IGNORECASE | re.UNICODE


def _strip_accents(pattern: str) -> str:
    """Cue regexes run on folded text, so accents in a pattern would never match: remove them."""
    decomposed = unicodedata.normalize("NFKD", pattern)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@functools.lru_cache(maxsize=16384)
def _compiled(pattern: str) -> re.Pattern[str]:
    """One compiled object per cue pattern per process: every proposer and every per-language subset built from
    the same rule text shares it (compiled patterns are immutable), instead of recompiling thousands per build."""
    return re.compile(_strip_accents(pattern), _FLAGS)


def _compile(pattern: str, where: str) -> re.Pattern[str]:
    try:
        return _compiled(pattern)
    except re.error as exc:
        raise OfflineRulesError(f"{where}: bad regex ({exc})", code="proposer.pattern_invalid") from exc


@dataclass(frozen=True)
class VocabularyData:
    """One vocabulary: option id -> folded terms (all languages), longest first for greedy matching."""

    id: str
    kind: str
    allow_unlisted: bool
    terms: tuple[tuple[str, str], ...]  # (folded term, option id), longest term first

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> VocabularyData:
        pairs = {
            (fold(term).strip(), str(option))
            for option, by_language in data["options"].items()
            for terms in by_language.values()
            for term in terms
            if fold(term).strip()
        }
        ordered = tuple(sorted(pairs, key=lambda p: (-len(p[0]), p[0], p[1])))
        return VocabularyData(
            id=str(data["id"]), kind=str(data["kind"]),
            allow_unlisted=bool(data.get("allow_unlisted", False)), terms=ordered,
        )


@dataclass(frozen=True)
class NumberWords:
    units: dict[str, Decimal] = field(default_factory=dict)
    hundreds: dict[str, Decimal] = field(default_factory=dict)
    multipliers: dict[str, Decimal] = field(default_factory=dict)
    scales: dict[str, Decimal] = field(default_factory=dict)
    fractions: dict[str, Decimal] = field(default_factory=dict)
    articles: frozenset[str] = frozenset()
    connectors: frozenset[str] = frozenset()

    def is_number_word(self, word: str) -> bool:
        return any(word in table for table in (self.units, self.hundreds, self.multipliers, self.scales,
                                               self.fractions))


@dataclass(frozen=True)
class Settings:
    question_evidence_kinds: frozenset[str]
    phone_min_digits: int
    cued_phone_min_digits: int
    lenient_phone_min_digits: int
    bare_answer_max_words: int
    scale_suffixes: dict[str, Decimal]
    language_min_hits: int = 2
    language_min_share: float = 0.15
    max_sentence_chars: int | None = None  # None: sentences are never cut (bundles before rules 1.4.0)
    # A message this short may revise a recorded value without a cue or topic word ("not 2, 3"); bundles before
    # rules 1.9.0 have no such setting: a bare answer's length applies.
    implicit_correction_max_words: int = 6
    # Choice matching by meaning (llm_adapters/offline/choice_meaning.py); None in bundles before rules 1.9.0
    choice_matching: dict[str, Any] | None = None
    # Kinds a question seeking the company's offer may carry ('any buses to Fresno on the 3rd?'), rules >= 1.9.0
    offer_question_evidence_kinds: frozenset[str] = frozenset()


@dataclass(frozen=True)
class OfflineRules:
    """Everything the proposer reads, merged over languages (code-switching: all languages apply at once)."""

    version: str
    cues: dict[str, tuple[re.Pattern[str], ...]]
    topics: dict[str, tuple[str, ...]]
    numbers: NumberWords
    currencies: dict[str, tuple[str, ...]]  # ISO code -> folded terms
    non_place_words: frozenset[str]
    place_fillers: frozenset[str]
    term_contexts: dict[str, dict[str, tuple[re.Pattern[str], ...]]]
    settings: Settings
    email: re.Pattern[str]
    phone: re.Pattern[str]
    place_name: re.Pattern[str]
    digit_number: re.Pattern[str]
    vocabularies: dict[str, VocabularyData]
    # Per-language data of the typed extractors, by family ("temporal", "quantity") then language code; each
    # family's module compiles what it needs from these schema-validated documents (spec/adr/0003 §5).
    language_data: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    languages: frozenset[str] = frozenset()  # the languages whose cue data was merged into these rules
    function_words: dict[str, frozenset[str]] = field(default_factory=dict)  # every configured language's
    place_articles: frozenset[str] = frozenset()
    place_roles: dict[str, frozenset[str]] = field(default_factory=dict)  # role -> folded marker phrases
    place_designators: frozenset[str] = frozenset()  # 'county', 'springs', 'condado': a name with one is a place
    venue_designators: frozenset[str] = frozenset()  # 'hotel', 'restaurante': a name with one names a venue
    area_cues: frozenset[str] = frozenset()  # 'city', 'commune': an objective cued so asks for an area

    def cue(self, name: str) -> tuple[re.Pattern[str], ...]:
        return self.cues.get(name, ())

    def family(self, name: str) -> dict[str, dict[str, Any]]:
        return self.language_data.get(name, {})

    @functools.cached_property
    def all_function_words(self) -> frozenset[str]:
        """Function words of every configured language, as one set (built once per rules object)."""
        return frozenset[str]().union(*self.function_words.values())


def _validate(data: dict[str, Any], schema: dict[str, Any], where: str) -> None:
    check_schema(data, schema, where, error=OfflineRulesError, code="proposer.rules_schema")


def _read(path: Path) -> dict[str, Any]:
    return read_json_object(path, error=OfflineRulesError, code="proposer.rules_unreadable")


# rules/<family>/<language>.json, each validated by rules/schemas/<family>.schema.json
LANGUAGE_FAMILIES = ("temporal", "quantity", "free_text")
PROPOSER_FOLDERS = ("vocabularies", "patterns", *LANGUAGE_FAMILIES)


def read_rule_files(root: Path = DEFAULT_RULES_DIR) -> dict[str, dict[str, Any]]:
    """Read and schema-validate the proposer's rule files (vocabularies, patterns, language families), keyed like
    a RuleBundle."""
    files: dict[str, dict[str, Any]] = {}
    folders = [("vocabularies", "vocabulary"), ("patterns", "patterns")]
    folders += [(family, family) for family in LANGUAGE_FAMILIES if (root / family).is_dir()]
    for folder, schema_name in folders:
        schema = _read(root / "schemas" / f"{schema_name}.schema.json")
        for path in sorted((root / folder).glob("*.json")):
            data = _read(path)
            _validate(data, schema, f"{folder}/{path.name}")
            files[f"{folder}/{path.stem}"] = data
    return files


def _decimal_table(raw: Mapping[str, Any]) -> dict[str, Decimal]:
    return {fold(k): Decimal(str(v)) for k, v in raw.items()}


def _language_marks(data: Mapping[str, Any]) -> list[str]:
    """Words that mark text as written in a language: its function words and its number words."""
    numbers = data.get("number_words", {})
    words = list(data.get("function_words", []))
    for table in ("units", "hundreds", "multipliers", "scales"):
        words.extend(numbers.get(table, {}))
    return words


def build_rules(files: Mapping[str, Mapping[str, Any]], languages: frozenset[str] | None = None) -> OfflineRules:
    """Merge parsed vocabulary and pattern files (keys 'vocabularies/<id>', 'patterns/<language>', '<family>/
    <language>'); with ``languages``, only those languages' cue data (plus 'common') is merged."""
    every = {name.split("/", 1)[1]: data for name, data in files.items() if name.startswith("patterns/")}
    if "common" not in every:
        raise OfflineRulesError("rules/patterns/common.json is missing", code="proposer.rules_missing")
    function_words = {lang: frozenset(fold(w) for w in _language_marks(data))
                      for lang, data in every.items() if lang != "common"}
    patterns = {lang: data for lang, data in every.items()
                if languages is None or lang == "common" or lang in languages}
    common = patterns["common"]
    cues: dict[str, list[re.Pattern[str]]] = {}
    topics: dict[str, list[str]] = {}
    tables: dict[str, dict[str, Decimal]] = {k: {} for k in ("units", "hundreds", "multipliers", "scales",
                                                            "fractions")}
    articles: set[str] = set()
    connectors: set[str] = set()
    currencies: dict[str, list[str]] = {}
    non_place: set[str] = set()
    fillers: set[str] = set()
    articles_of_places: set[str] = set()
    roles: dict[str, set[str]] = {}
    designators: set[str] = set()
    venues: set[str] = set()
    area_cues: set[str] = set()
    contexts: dict[str, dict[str, list[re.Pattern[str]]]] = {}
    versions = []
    for language in sorted(patterns):
        data = patterns[language]
        versions.append(f"{language}@{data['version']}")
        for cue_name, regexes in data.get("cues", {}).items():
            for i, rx in enumerate(regexes):
                cues.setdefault(cue_name, []).append(_compile(rx, f"patterns/{language} cues.{cue_name}[{i}]"))
        for kind, words in data.get("topics", {}).items():
            topics.setdefault(kind, []).extend(fold(w) for w in words)
        number_words = data.get("number_words", {})
        for table in tables:
            tables[table].update(_decimal_table(number_words.get(table, {})))
        articles.update(fold(w) for w in number_words.get("articles", []))
        connectors.update(fold(w) for w in number_words.get("connectors", []))
        for iso, terms in data.get("currencies", {}).items():
            currencies.setdefault(iso, []).extend(fold(t) for t in terms)
        non_place.update(fold(w) for w in data.get("non_place_words", []))
        fillers.update(fold(w) for w in data.get("place_fillers", []))
        articles_of_places.update(fold(w) for w in data.get("place_articles", []))
        designators.update(fold(w) for w in data.get("place_designators", []))
        venues.update(fold(w) for w in data.get("venue_designators", []))
        area_cues.update(fold(w) for w in data.get("area_cues", []))
        for role, markers in data.get("place_roles", {}).items():
            roles.setdefault(role, set()).update(fold(m) for m in markers)
        for vocab_id, ctx in data.get("term_contexts", {}).items():
            target = contexts.setdefault(vocab_id, {"exclude_before": [], "exclude_after": []})
            for side in ("exclude_before", "exclude_after"):
                for i, rx in enumerate(ctx.get(side, [])):
                    target[side].append(_compile(rx, f"patterns/{language} term_contexts.{vocab_id}.{side}[{i}]"))
    settings_raw = common.get("settings", {})
    regex_raw = common.get("regex", {})
    for required in ("email", "phone", "place_name", "digit_number"):
        if required not in regex_raw:
            raise OfflineRulesError(f"patterns/common: regex.{required} is missing", code="proposer.rules_missing")
    settings = Settings(
        question_evidence_kinds=frozenset(settings_raw.get("question_evidence_kinds", [])),
        phone_min_digits=int(settings_raw.get("phone_min_digits", 9)),
        cued_phone_min_digits=int(settings_raw.get("cued_phone_min_digits", 1)),
        lenient_phone_min_digits=int(settings_raw.get("lenient_phone_min_digits", 3)),
        bare_answer_max_words=int(settings_raw.get("bare_answer_max_words", 6)),
        scale_suffixes=_decimal_table(settings_raw.get("scale_suffixes", {})),
        language_min_hits=int(settings_raw.get("language_min_hits", 2)),
        language_min_share=float(settings_raw.get("language_min_share", 0.15)),
        max_sentence_chars=int(settings_raw["max_sentence_chars"]) if "max_sentence_chars" in settings_raw else None,
        implicit_correction_max_words=int(settings_raw.get("implicit_correction_max_words",
                                                           settings_raw.get("bare_answer_max_words", 6))),
        choice_matching=settings_raw.get("choice_matching"),
        offer_question_evidence_kinds=frozenset(settings_raw.get("offer_question_evidence_kinds", [])),
    )
    vocabularies = {}
    for name, data in files.items():
        if name.startswith("vocabularies/"):
            vocab = VocabularyData.from_json(data)
            vocabularies[vocab.id] = vocab
            versions.append(f"{vocab.id}@{data['version']}")
    language_data: dict[str, dict[str, dict[str, Any]]] = {}
    for name, data in sorted(files.items()):
        family, _, language = name.partition("/")
        if family in LANGUAGE_FAMILIES and (languages is None or language == "common" or language in languages):
            language_data.setdefault(family, {})[language] = dict(data)
            versions.append(f"{family}/{language}@{data['version']}")
    return OfflineRules(
        language_data=language_data,
        languages=frozenset(lang for lang in patterns if lang != "common"),
        function_words=function_words,
        place_articles=frozenset(articles_of_places),
        place_roles={role: frozenset(markers) for role, markers in roles.items()},
        place_designators=frozenset(designators),
        venue_designators=frozenset(venues),
        area_cues=frozenset(area_cues),
        version=",".join(versions),
        cues={k: tuple(v) for k, v in cues.items()},
        topics={k: tuple(dict.fromkeys(v)) for k, v in topics.items()},
        numbers=NumberWords(
            units=tables["units"], hundreds=tables["hundreds"], multipliers=tables["multipliers"],
            scales=tables["scales"], fractions=tables["fractions"],
            articles=frozenset(articles), connectors=frozenset(connectors),
        ),
        currencies={k: tuple(dict.fromkeys(v)) for k, v in currencies.items()},
        non_place_words=frozenset(non_place),
        place_fillers=frozenset(fillers),
        term_contexts={k: {s: tuple(p) for s, p in v.items()} for k, v in contexts.items()},
        settings=settings,
        # Token regexes run on the original (normalised) text: case matters for place names.
        email=re.compile(regex_raw["email"]),
        phone=re.compile(regex_raw["phone"]),
        place_name=re.compile(regex_raw["place_name"]),
        digit_number=re.compile(regex_raw["digit_number"]),
        vocabularies=vocabularies,
    )


def load_offline_rules(root: Path = DEFAULT_RULES_DIR) -> OfflineRules:
    return build_rules(read_rule_files(root))
