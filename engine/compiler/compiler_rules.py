"""Typed views of rules/compiler.json and rules/governance.json (schema-checked, then semantically checked)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from engine.compiler.errors import CompilerRulesError
from engine.compiler.matching import KeywordIndex, compile_patterns
from engine.errors import first_validation_error
from engine.kernel.goal_models import CriterionKind
from engine.rules.loader import check_schema, read_json_object

DEFAULT_RULES_DIR = Path(__file__).resolve().parents[2] / "rules"

_M = TypeVar("_M", bound=BaseModel)

TextByLanguage = dict[str, str]
TermsByLanguage = dict[str, list[str]]


class _Rules(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class WeightRule(_Rules):
    scheme: Literal["rank_decay_floor"]
    first: Decimal
    step: Decimal
    floor: Decimal
    decimals: int
    explanation: str

    @model_validator(mode="after")
    def _coherent(self) -> WeightRule:
        if self.floor > self.first:
            raise ValueError("weights.floor must not exceed weights.first")
        return self


class Defaults(_Rules):
    max_examples: int


Rewrites = dict[str, list[tuple[str, str]]]


class Inflection(_Rules):
    singular: list[tuple[str, str]]
    plural: list[tuple[str, str]]


class PhrasingRules(_Rules):
    """How the manager's words become phrases, questions, descriptions and cues (per language)."""

    lead_ins: TermsByLanguage
    trail_outs: TermsByLanguage
    clause_starters: TermsByLanguage
    roles: TermsByLanguage
    person: Rewrites
    possessive_after_role: Rewrites
    bare_prefix: TextByLanguage
    bare_prefix_plural: TextByLanguage
    bare_prefix_when_owned: TextByLanguage
    owner_words: TermsByLanguage
    definite_starts: TermsByLanguage
    keep_start: TermsByLanguage
    articles: TermsByLanguage
    question_starts: TermsByLanguage
    question: TextByLanguage
    question_with_options: TextByLanguage
    description_free_text: TextByLanguage
    description_asked_for: TextByLanguage
    description_options: TextByLanguage
    description_quantity: TextByLanguage
    max_phrase_words: int
    max_id_words: int
    max_extra_words: int
    min_inflected_length: int = 3  # 'mes' -> 'me' is no singular: a shorter form is no variant
    id_connectors: TermsByLanguage
    id_skips: TermsByLanguage
    name_heads: TermsByLanguage = Field(default_factory=dict)  # 'name of the hotel': the hotel stays a cue
    stopwords: TermsByLanguage
    inflection: dict[str, Inflection]


class OptionRules(_Rules):
    alternative_joiners: TermsByLanguage
    list_joiners: TermsByLanguage
    open_list_markers: TermsByLanguage
    choice_starts: TermsByLanguage
    example_markers: TermsByLanguage
    gloss_markers: TermsByLanguage = Field(default_factory=dict)
    max_option_words: int
    min_options: int
    vocabulary_description: TextByLanguage


class MoneyRules(_Rules):
    description: str
    min_amount_ratio: Decimal
    min_amount_without_corpus: Decimal
    price_pattern: str


class SiblingRole(_Rules):
    role: str
    kinds: list[str]
    triggers: TermsByLanguage
    cues: TermsByLanguage

    def triggered(self, words: list[str]) -> bool:
        """Whether one of the (folded) words is a trigger of this role ('originate*' matches 'originates')."""
        for terms in self.triggers.values():
            for term in terms:
                if term.endswith("*") and any(w.startswith(term[:-1]) for w in words):
                    return True
                if " " in term and f" {term} " in f" {' '.join(words)} ":
                    return True
                if term in words:
                    return True
        return False


class UnitSynonyms(_Rules):
    counts: str
    terms: TermsByLanguage


class LocaleRules(_Rules):
    currency_terms: dict[str, str]
    ambiguous_currency_terms: list[str]
    main_time_zones: dict[str, str]
    ignored_place_names: list[str]
    flags: dict[str, str]
    place_prepositions: TermsByLanguage = Field(default_factory=dict)
    place_name_connectors: TermsByLanguage = Field(default_factory=dict)
    place_articles: TermsByLanguage = Field(default_factory=dict)  # 'the' in 'in the Paphos district'
    place_generic_words: TermsByLanguage = Field(default_factory=dict)  # 'ville' in 'Djibouti-ville'
    alternate_names_population: int = 100_000
    place_dominance: float = 5.0
    alternate_name_weight: float = 1.0  # a place found only under an alternate name weighs this share of its people
    region_names: dict[str, list[str]] = Field(default_factory=dict)  # country -> its first-level regions
    main_currencies: dict[str, str] = Field(default_factory=dict)  # country -> the tender it issues (CLDR-derived)
    notable_place_population: int = 0  # a town this large elsewhere makes a name ambiguous (0: population ratio only)


class ObjectiveKindRule(_Rules):
    key: str
    id: str
    criterion: CriterionKind
    fallback_criterion: CriterionKind | None = None
    phase: Literal["qualify", "handoff"]
    names: TextByLanguage
    keywords: TermsByLanguage
    patterns: TermsByLanguage = Field(default_factory=dict)  # regexes on folded text, matched like keywords
    implied_by: TermsByLanguage = Field(default_factory=dict)
    not_before: TermsByLanguage = Field(default_factory=dict)  # after a keyword: then it is not this kind
    # Words a visitor answers this kind with, unasked ("I need a check-up" for a reason for the visit): added to
    # the compiled objective's cues in every language of the spec (the manager's words name the kind, not these).
    answer_cues: TermsByLanguage = Field(default_factory=dict)
    merge: bool = False  # several phrases of this kind make one objective
    channel_terms: dict[str, TermsByLanguage] = Field(default_factory=dict)  # contact: channel -> words naming it
    questions_by_channel: dict[str, TextByLanguage] = Field(default_factory=dict)  # contact: one channel named
    questions: TextByLanguage
    questions_with_examples: TextByLanguage = Field(default_factory=dict)
    descriptions: TextByLanguage
    corpus_strategy: Literal["place_names"] | None = None
    vocabulary_without_corpus: bool = False
    seed_options: dict[str, TermsByLanguage] = Field(default_factory=dict)
    params: dict[str, Any] = Field(default_factory=dict)

    def channels(self, texts: list[str]) -> list[str]:
        """Contact channels the manager's words name ("their email" -> email); none or all named -> all."""
        from engine.compiler.matching import keyword_regex
        from engine.text import fold

        every = list(self.channel_terms) or list(self.params.get("channels", []))
        folded = [fold(text) for text in texts]
        named = [channel for channel, terms in self.channel_terms.items()
                 if any(re.search(keyword_regex(term), f) for ts in terms.values() for term in ts for f in folded)]
        return named or every

    @property
    def needs_vocabulary(self) -> bool:
        return self.criterion in (CriterionKind.ENUMERATION, CriterionKind.FEATURES)


class CorpusRules(_Rules):
    extensions: list[str]
    max_files: int
    max_bytes: int
    min_place_mentions: int
    max_terms: int
    locative_prepositions: TermsByLanguage
    place_connectors: TermsByLanguage
    list_joiners: TermsByLanguage
    not_places: list[str]


class ReviewRules(_Rules):
    """Texts of the manager's review (rules/compiler.json ``review``), per language."""

    description: str
    texts: dict[str, dict[str, str]]

    def text(self, language: str, key: str, /, **values: object) -> str:
        """The text ``key`` in ``language`` (English when that language lacks it), its placeholders filled."""
        template = self.texts.get(language, {}).get(key) or self.texts["en"][key]
        return template.format(**values)


class CompilerRules(_Rules):
    version: str
    description: str
    max_objectives: int
    max_intent_chars: int
    weights: WeightRule
    defaults: Defaults
    purpose_markers: TermsByLanguage
    collect_markers: TermsByLanguage
    context_openers: TermsByLanguage = Field(default_factory=dict)
    language_cues: TermsByLanguage = Field(default_factory=dict)
    purpose_continuations: TermsByLanguage = Field(default_factory=dict)
    purpose_stranded_prepositions: TermsByLanguage = Field(default_factory=dict)
    contact_purpose_prepositions: TermsByLanguage = Field(default_factory=dict)  # 'an email for the waiver'
    item_separators: TermsByLanguage
    phrasing: PhrasingRules
    options: OptionRules
    quantity_units: TermsByLanguage
    sibling_roles: list[SiblingRole] = Field(default_factory=list)
    measure_suffixes: TermsByLanguage = Field(default_factory=dict)
    currency_suffixes: TermsByLanguage = Field(default_factory=dict)
    unit_synonyms: list[UnitSynonyms] = Field(default_factory=list)
    money: MoneyRules
    locale: LocaleRules
    review: ReviewRules | None = None  # None: older rule files; the review falls back to English built-ins
    objective_kinds: list[ObjectiveKindRule]
    corpus: CorpusRules

    @model_validator(mode="after")
    def _unique(self) -> CompilerRules:
        for attr in ("key", "id"):
            values = [getattr(kind, attr) for kind in self.objective_kinds]
            dupes = sorted({v for v in values if values.count(v) > 1})
            if dupes:
                raise ValueError(f"objective_kinds: duplicate {attr} {', '.join(dupes)}")
        for kind in self.objective_kinds:
            if kind.needs_vocabulary and not kind.seed_options and kind.fallback_criterion is None:
                raise ValueError(f"objective kind {kind.key}: a vocabulary kind needs seed_options or a fallback")
        return self

    @property
    def languages(self) -> list[str]:
        """Languages every objective kind can speak (names, questions and descriptions)."""
        sets = [set(k.questions) & set(k.names) & set(k.descriptions) for k in self.objective_kinds]
        return sorted(set.intersection(*sets)) if sets else []

    _index: KeywordIndex | None = PrivateAttr(default=None)
    _by_language: dict[str, KeywordIndex] = PrivateAttr(default_factory=dict)

    def keyword_index(self, language: str | None = None) -> KeywordIndex:
        """Keywords of every objective kind, labelled with the kind key: in every language, or in ``language``
        only (the intent's: French "nombre d'enfants" is a count, not the Spanish "nombre", a name)."""
        if language is not None and language in self.languages:
            if language not in self._by_language:
                self._by_language[language] = KeywordIndex(
                    (kind.key, keyword) for kind in self.objective_kinds for keyword in kind.keywords.get(language, []))
            return self._by_language[language]
        if self._index is None:
            self._index = KeywordIndex(
                (kind.key, keyword)
                for kind in self.objective_kinds
                for keywords in kind.keywords.values()
                for keyword in keywords
            )
        return self._index

    def kind(self, key: str) -> ObjectiveKindRule | None:
        return next((k for k in self.objective_kinds if k.key == key), None)

    _patterns: list[tuple[str, str, re.Pattern[str]]] | None = PrivateAttr(default=None)
    _not_before: dict[str, list[re.Pattern[str]]] | None = PrivateAttr(default=None)

    def not_before(self, key: str) -> list[re.Pattern[str]]:
        """Patterns that, matching right after a keyword of kind ``key``, say the keyword is not that kind there."""
        if self._not_before is None:
            self._not_before = {
                kind.key: [pattern for language, sources in sorted(kind.not_before.items())
                           for pattern in compile_patterns(sources, f"compiler.json {kind.key}.not_before/{language}")]
                for kind in self.objective_kinds}
        return self._not_before.get(key, [])

    def kind_patterns(self, language: str | None = None) -> list[tuple[str, re.Pattern[str]]]:
        """Regex keywords of every objective kind (all languages, or ``language``'s), labelled with the kind key."""
        if self._patterns is None:
            self._patterns = [
                (language, kind.key, pattern)
                for kind in self.objective_kinds
                for language, sources in sorted(kind.patterns.items())
                for pattern in compile_patterns(sources, f"compiler.json {kind.key}.patterns/{language}")
            ]
        known = language is not None and language in self.languages
        return [(key, pattern) for lang, key, pattern in self._patterns if not known or lang == language]


class GovernanceCategory(_Rules):
    id: str
    label: TextByLanguage
    legal_basis: str
    allow_with_exemption: bool
    keywords: TermsByLanguage


class Exemption(_Rules):
    category: str
    goal_spec_id: str
    justification: str
    approved_by: str


class GovernanceContext(_Rules):
    """How a keyword's context is judged (rules/governance.json ``context``)."""

    description: str
    connectors: TermsByLanguage
    not_person: dict[str, TermsByLanguage]  # subject group (animal, vehicle ...) -> words naming it
    sentence_subject_groups: list[str] = Field(default_factory=list)  # groups that count anywhere in the sentence
    person_words: TermsByLanguage = Field(default_factory=dict)  # a person named in the phrase keeps it prohibited
    person_possessives: TermsByLanguage = Field(default_factory=dict)  # "their", "leurs": so does a possessive
    # group -> the only categories it sets aside ("event": a race or a birthday party, never a religion); a group
    # not listed sets aside every category
    applies_to: dict[str, list[str]] = Field(default_factory=dict)
    # groups naming an attribute of what the keyword names: they count only as the first word before the keyword
    # past connectors ("la nationalité du passeport"), nowhere else
    attribute_groups: list[str] = Field(default_factory=list)
    # group -> the languages where its words count only as the word right after the keyword, the thing it
    # qualifies ("health insurance"), never before it or elsewhere in the phrase ("food allergies" are a person's
    # allergies); in the other languages the head comes first ("seguro de salud") and is read as before
    head_groups: dict[str, list[str]] = Field(default_factory=dict)

    _words: dict[str, str] | None = PrivateAttr(default=None)

    def persons(self) -> set[str]:
        return {w for words in self.person_words.values() for w in words}

    def possessives(self) -> set[str]:
        return {w for words in self.person_possessives.values() for w in words}

    def head_only(self, word: str, group: str) -> bool:
        """Whether ``word`` of ``group`` counts only as the word right after the keyword (see head_groups)."""
        return any(word in self.not_person.get(group, {}).get(language, [])
                   for language in self.head_groups.get(group, []))

    def subject_group(self, word: str) -> str | None:
        """The group of a folded word that names something other than a person ('dog' -> 'animal'), if any."""
        if self._words is None:
            self._words = {w: group for group, by_language in self.not_person.items()
                           for words in by_language.values() for w in words}
        return self._words.get(word)

    def applies(self, group: str, category: str, before: bool = False) -> bool:
        """Whether a subject of ``group`` sets aside ``category`` (``before``: as the word before the keyword)."""
        if (group in self.attribute_groups) != before:
            return False
        return group not in self.applies_to or category in self.applies_to[group]

    def connector_words(self) -> set[str]:
        return {w for words in self.connectors.values() for w in words}


class GovernanceRules(_Rules):
    version: str
    description: str
    categories: list[GovernanceCategory]
    context: GovernanceContext | None = None
    exemptions: list[Exemption] = Field(default_factory=list)

    @model_validator(mode="after")
    def _exemptions_allowed(self) -> GovernanceRules:
        allowed = {c.id for c in self.categories if c.allow_with_exemption}
        for exemption in self.exemptions:
            if exemption.category not in allowed:
                raise ValueError(f"exemption for category {exemption.category}, which allows none")
        return self

    _index: KeywordIndex | None = PrivateAttr(default=None)

    def keyword_index(self) -> KeywordIndex:
        """All category keywords, compiled once per loaded rules object."""
        if self._index is None:
            self._index = KeywordIndex(
                (category.id, keyword)
                for category in self.categories
                for keywords in category.keywords.values()
                for keyword in keywords
            )
        return self._index

    def exempt(self, category: str, spec_id: str) -> bool:
        return any(e.category == category and e.goal_spec_id == spec_id for e in self.exemptions)


def read_rule_file(name: str, rules_dir: Path | None = None) -> dict[str, Any]:
    """Read rules/<name>.json and validate it against rules/schemas/<name>.schema.json."""
    root = rules_dir or DEFAULT_RULES_DIR
    path, schema_path = root / f"{name}.json", root / "schemas" / f"{name}.schema.json"
    data = read_json_object(path, error=CompilerRulesError, code=CompilerRulesError.default_code)
    schema = read_json_object(schema_path, error=CompilerRulesError, code=CompilerRulesError.default_code)
    check_schema(data, schema, f"{name}.json", error=CompilerRulesError)
    return data


def _typed(model: type[_M], data: Mapping[str, Any], name: str) -> _M:
    try:
        return model.model_validate(dict(data))
    except ValidationError as exc:
        where, message = first_validation_error(exc, "/", "(top)")
        raise CompilerRulesError(f"{name}.json: at {where}: {message}") from exc


def review_rules(rules: CompilerRules) -> ReviewRules:
    """The review texts of ``rules``, or the shipped ones for a rule file older than the review section."""
    if rules.review is not None:
        return rules.review
    shipped = load_compiler_rules().review
    if shipped is None:
        raise CompilerRulesError("compiler.json: the shipped rules have no review section")
    return shipped


def load_compiler_rules(source: Path | Mapping[str, Any] | None = None) -> CompilerRules:
    """From a rules directory (schema-validated), a parsed mapping (e.g. ``bundle.file('compiler')``) or the default."""
    data = source if isinstance(source, Mapping) else read_rule_file("compiler", source)
    return _typed(CompilerRules, data, "compiler")


def load_governance_rules(source: Path | Mapping[str, Any] | None = None) -> GovernanceRules:
    data = source if isinstance(source, Mapping) else read_rule_file("governance", source)
    return _typed(GovernanceRules, data, "governance")
