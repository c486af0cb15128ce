"""The retrieval rules (``retrieval`` in the rule bundle): schema-valid, checked semantically, then frozen.

Policy numbers (depth, fusion constant, thresholds) and vocabularies (stopwords, question cues, messages) are
data; this module only turns them into typed, immutable objects. Serving reads them only from the verified,
in-memory rule bundle (``rules_from_bundle``): nothing is re-read from disk after the bundle was verified, and
there is no fallback to the unverified ``rules/`` folder. ``load_rules`` checks one explicitly named draft file
(rule authors, tests) against the committed schema.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

import jsonschema
import Stemmer
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.errors import first_validation_error
from engine.retrieval.decision import FEATURES, AnswerModel
from engine.retrieval.errors import RetrievalRulesError
from engine.rules.loader import RuleBundle

DEFAULT_RULES_PATH = Path(__file__).resolve().parents[2] / "rules" / "retrieval.json"
SCHEMA_PATH = Path(__file__).resolve().parents[2] / "rules" / "schemas" / "retrieval.schema.json"


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RetrievalSettings(_Frozen):
    top_k: int
    fusion: str
    rrf_k: int
    lexical_weight: float
    dense_weight: float
    title_weight: float
    bm25_k1: float
    bm25_b: float


class DecisionSettings(_Frozen):
    """The answer decision's logistic model (decision.py), fitted by benchmarks/fit_answerability.py."""

    features: tuple[str, ...]
    weights: tuple[float, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    bias: float
    threshold: float  # a passage answers when the model's probability is at least this


class GroundingSettings(_Frozen):
    # Answerability by support (answerability.py). z-scores are against the corpus's own calibration.
    elsewhere_max_share: float  # an asked term stated only in other passages, at most this share of the corpus
    near_miss_min_coverage: float  # the near-miss message needs this share of the question stated in the section
    near_miss_min_standing: float  # ... and the section to stand this far above the corpus for the question
    unverifiable_weight: float  # across languages: weight of an asked word nothing can check (no concept group)
    price_pattern: str  # regex on folded passage text: a currency mark (with a digit: a price is stated)
    clock_pattern: str  # regex on folded passage text: a clock time
    # regex on folded passage text: a duration ("30 días", "two weeks"), which answers "when" asked relative to an
    # event ("when must we confirm", "hasta cuándo vale el presupuesto")
    duration_pattern: str = r"(?!)"
    free_pattern: str  # regex on folded passage text: something is free
    fuzzy_min_ratio: float  # stems this similar (rapidfuzz ratio, 0-100) count as the same word (typos)
    reject_unknown_names: bool  # a question naming something the corpus never mentions is unanswerable
    # An asked word outweighing everything a passage states, stated in a few other sections, vetoes the passage
    # (a sibling near miss); off: the "elsewhere" feature of the answer model weighs it instead.
    veto_asked_elsewhere: bool = True
    # Passages of two languages that are mutual nearest neighbours with a body cosine this many corpus sds above
    # unrelated pairs are one section translated (twins.py); the decision pools their probabilities. 0: off.
    twin_min_z: float = 0.0
    max_passages: int
    max_sentences_per_passage: int
    min_claim_support: float
    cross_language_fallback: bool  # answer from passages in another language when none is in the visitor's
    # Across languages, an asked word no concept group covers is compared with the corpus's words of the other
    # language through the embedding (lexicon.py): stated where the cosine is this many corpus sds above two
    # unrelated words of the corpus and this many sds above the asked word's typical corpus word.
    word_match: bool
    word_match_min_z: float
    word_match_min_gap: float
    decision: DecisionSettings


class QuestionCues(_Frozen):
    wh_words: tuple[str, ...]
    wh_prepositions: tuple[str, ...]
    auxiliaries: tuple[str, ...]
    subject_words: tuple[str, ...]
    blocked_after_wh: tuple[str, ...]
    aux_window: int
    standalone_wh_words: tuple[str, ...]  # interrogative at sentence start without an auxiliary
    request_phrases: tuple[str, ...]
    # Colloquial writing drops accents and question marks ("cuanto cuesta", "q hora abris"): these words open a
    # question at sentence start (optionally after a wh-preposition) unless the next word is in informal_blocked.
    informal_wh_words: tuple[str, ...]
    informal_blocked: tuple[str, ...]
    # Auxiliaries or phrases that open a question whatever follows ("is", "are": "are dogs allowed"; "se puede").
    question_openers: tuple[str, ...]
    # Interrogatives that mark a question anywhere in a sentence, matched as written (an accent marks them).
    anywhere_wh_words: tuple[str, ...] = ()
    # A request written as a bare noun phrase ("price of a new boiler", "horario sábado"): a sentence opening with
    # one of these nouns asks for it when a link word follows ("of", "de") or the sentence is at most
    # fragment_max_words long and has no auxiliary ("price is not important" states).
    fragment_openers: tuple[str, ...] = ()
    fragment_links: tuple[str, ...] = ()
    fragment_max_words: int = 0
    # Interrogatives that open a question in a later clause of a sentence ("I need the gas cert, how much is it");
    # words that also open relative clauses ("which", "who", unaccented "que") are left out.
    clause_wh_words: tuple[str, ...] = ()
    # ... or closes a short one ("drum lessons how much", "summer camp cost"): at most fragment_max_words + 2
    # words and no auxiliary.
    fragment_closers: tuple[str, ...] = ()
    # Endings of a verb addressed to the company ("tenéis", "aceptais"): a short sentence holding one asks
    # ("tenéis parking", "el sábado abrís"); the word must be at least three letters longer than the ending
    # ("seis" is a number); addressed_verb_excluded_endings tell past or conditional statements ("nos
    # dijisteis", "os gustaríais").
    addressed_verb_endings: tuple[str, ...] = ()
    addressed_verb_excluded_endings: tuple[str, ...] = ()
    addressed_verb_max_words: int = 8
    # A clitic or subject pronoun beside an addressed verb ("me las montáis", "habláis vosotros") makes it a
    # request to the company at any sentence length; a blocker within two words before it makes it a subjunctive or a
    # subordinate statement ("esperando que me llaméis", "cuando lleguéis").
    addressed_verb_companions: tuple[str, ...] = ()
    addressed_verb_blockers: tuple[str, ...] = ()
    # A sentence opening with a hypothetical ("si cancelamos …", "what if …") asks what happens then, when it
    # has at least hypothetical_min_words words ("si, claro" is a yes).
    hypothetical_openers: tuple[str, ...] = ()
    hypothetical_min_words: int = 0
    # An existential verb ("hay") followed by a bare noun or an indefinite ("hay parking", "hay algún
    # descuento") asks whether the thing exists, unless the next word is in existence_blocked_after ("hay un
    # problema") or the previous word in existence_blocked_before ("no hay prisa").
    existence_words: tuple[str, ...] = ()
    existence_blocked_after: tuple[str, ...] = ()
    existence_blocked_before: tuple[str, ...] = ()
    # Phrases that, closing a sentence or clause of any length, make it a question ("…, se puede",
    # "y cambiar las ruedas cuánto es").
    closing_phrases: tuple[str, ...] = ()
    # Conjunction-like interrogatives that ask only after a preposition at sentence start ("hasta cuando …").
    informal_wh_after_preposition: tuple[str, ...] = ()


class BoundPhrases(_Frozen):
    before: tuple[str, ...] = ()  # right before the number
    after: tuple[str, ...] = ()  # right after the counted word


class AmountBounds(_Frozen):
    """Phrases that make a stated amount a bound or a rate rather than one item (quantities.py)."""

    upper: BoundPhrases = BoundPhrases()  # "up to 50 users": covers asked amounts up to 50
    lower: BoundPhrases = BoundPhrases()  # "from 6 years": covers asked amounts from 6
    rate: BoundPhrases = BoundPhrases()  # "per hour", "48 hours before": covers every amount


class LanguageRules(_Frozen):
    stemmer: str
    unavailable_message: str
    stopwords: frozenset[str]
    negations: frozenset[str]
    frame_words: frozenset[str]  # words that frame a question ("cost", "price") rather than name its topic
    verb_suffixes: tuple[str, ...]  # endings of verb forms typical of questions ("-áis": "¿arregláis …?")
    price_cues: tuple[str, ...]  # phrases that ask for a price: the answering passage must state one
    abbreviations: dict[str, str]  # chat abbreviations expanded before retrieval ("dnd" → "dónde")
    verb_markers: tuple[str, ...]  # a lowercase word right after one of these is an asked action ("to *book*")
    # subject words that open a noun phrase ("the", "your", "there"): after an auxiliary, the word following one of
    # these is the subject's noun ("does the *croissant* cost", "is there *parking*"), not the asked action
    noun_determiners: tuple[str, ...] = ()
    clock_cues: tuple[str, ...]  # phrases that ask for a clock time ("what time"): the passage must state one
    date_cues: tuple[str, ...]  # words that ask when: the passage must state a clock time, a weekday or a month
    # parts of the day, week and year ("night", "verano"): stated by a passage stating times, weekdays or months
    time_words: tuple[str, ...] = ()
    amount_bounds: AmountBounds = AmountBounds()
    question: QuestionCues
    near_miss_message: str  # "{covered}" (what the documents cover) and "{asked}" (what was asked)


class TierFrames(_Frozen):
    """The honest frames of a graded reply in one visitor language ({label}: a section's citation label)."""

    related: str
    see_also: str
    none: str
    contact: str
    # multi-part questions: the parts the documents do not cover, named by their place ("your second question")
    unanswered_one: str = ""  # {which}: one ordinal
    unanswered_many: str = ""  # {which}: ordinals joined with list_and
    ordinals: tuple[str, ...] = ()
    list_and: str = ""

    def unanswered(self, places: list[int]) -> str:
        """The sentence naming the parts (0-based places) the documents do not cover; "" without the frames."""
        names = [self.ordinals[p] for p in places if p < len(self.ordinals)]
        if not names or not self.unanswered_one:
            return ""
        if len(names) == 1:
            return self.unanswered_one.format(which=names[0])
        which = f"{', '.join(names[:-1])} {self.list_and} {names[-1]}"
        return self.unanswered_many.format(which=which)


class MultiPartSettings(_Frozen):
    """How a short message asking several things is cut into its parts (parts.py)."""

    max_parts: int = 1  # 1: never cut
    max_chars: int = 0  # longer messages are one question
    joiners: dict[str, tuple[str, ...]] = {}  # per language: words that may open another asked clause


class TierSignals(_Frozen):
    """What the tier decision reads of one question's best retrieved section (tiers.py)."""

    answerable: bool  # the answer decision (grounding.decision and its vetoes) found a passage that answers
    probability: float  # the answer model's probability of the best section
    standing: float  # how far the best section stands out for the question among the corpus (z)
    veto: str  # the precise veto that judged the best section ("" for none)
    retrieved: bool = True  # anything was retrieved at all
    # weight share of the asked words that the corpus never states, in any language (the answer model's "unknown")
    unknown: float = 0.0
    # the answer model's features of that section (decision.FEATURES), read by answering.related_model
    features: dict[str, float] = Field(default_factory=dict)


class TierSample(_Frozen):
    signals: TierSignals
    tier: Literal["answer", "related", "none"]


class SentenceWeights(_Frozen):
    dense_z: float  # cosine of question and sentence, z-scored among the section's sentences
    lexical: float  # IDF-weighted share of the asked words the sentence states
    kind: float = 0.0  # the question asks a price, a clock time or a date and the sentence states one


# what answering.related_model may read besides the answer model's features (decision.FEATURES)
RELATED_INPUTS: tuple[str, ...] = ("probability", "vetoed", "sentence_z", "sentence_gap")


class RelatedModel(_Frozen):
    """The related-or-none decision (tiers.py): a logistic model over the shown section's answer-model features,
    its probability and whether a related veto fired; fitted by benchmarks/fit_tiers.py, never hand-edited."""

    features: tuple[str, ...]
    weights: tuple[float, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    bias: float
    threshold: float


class AnsweringSettings(_Frozen):
    """Graded replies (answer / related / none): thresholds, sentence choice and frames (rules/retrieval.json)."""

    description: str
    answer_min_probability: float = 0.0  # below it an answering passage is shown as related instead (not sure)
    # an asked amount ("for 6 people") the answering section states for nothing: shown as related, not answered
    answer_needs_asked_amounts: bool = False
    related_min_probability: float
    related_min_standing: float
    # over it, the question asks mostly about things the documents never name: no related section (never-mentioned)
    related_max_unknown: float = 1.0
    related_vetoes: frozenset[str]
    related_model: RelatedModel | None = None  # when set, it decides related or none (the thresholds above do not)
    related_max_sentences: int
    related_max_links: int
    query_max_chars: int
    sentence_weights: SentenceWeights
    second_sentence_share: float
    contact_pattern: str
    frames: dict[str, TierFrames]
    multi_part: MultiPartSettings = MultiPartSettings()
    samples: tuple[TierSample, ...]

    def frames_for(self, language: str) -> TierFrames:
        """The frames in the visitor's language, else in the first language the rules list (never none)."""
        return self.frames.get(language) or next(iter(self.frames.values()))


class RetrievalRules(_Frozen):
    version: str
    description: str
    retrieval: RetrievalSettings
    grounding: GroundingSettings
    languages: dict[str, LanguageRules]
    answering: AnsweringSettings
    translations: tuple[dict[str, tuple[str, ...]], ...] = ()  # concept groups across languages

    def language(self, code: str) -> LanguageRules:
        try:
            return self.languages[code]
        except KeyError:
            raise RetrievalRulesError(
                f"language {code!r} has no retrieval rules (known: {', '.join(sorted(self.languages))})",
                code="retrieval.language.unsupported",
            ) from None


def _schema(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _check_schema(data: dict[str, Any], schema: dict[str, Any]) -> None:
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(root)"
        raise RetrievalRulesError(f"retrieval rules invalid at {where}: {first.message}", code="retrieval.rules.schema")


def parse_rules(data: dict[str, Any], schema: dict[str, Any] | None = None) -> RetrievalRules:
    """Typed rules from a parsed document, checked semantically; with ``schema`` validated against it first (a
    bundle's files were validated against the bundle's own schemas when it was loaded)."""
    if schema is not None:
        _check_schema(data, schema)
    try:
        rules = RetrievalRules.model_validate(data)
    except ValidationError as exc:
        where, message = first_validation_error(exc, "/", "(root)")
        raise RetrievalRulesError(
            f"retrieval rules invalid at {where}: {message}", code="retrieval.rules.schema"
        ) from None
    known = set(Stemmer.algorithms())
    for code, lang in rules.languages.items():
        if lang.stemmer not in known:
            raise RetrievalRulesError(
                f"language {code!r} names unknown Snowball stemmer {lang.stemmer!r}", code="retrieval.rules.stemmer"
            )
        cues = lang.question
        if not set(cues.standalone_wh_words) <= set(cues.wh_words):
            raise RetrievalRulesError(
                f"language {code!r}: standalone_wh_words must be a subset of wh_words", code="retrieval.rules.question"
            )
    decision = rules.grounding.decision
    AnswerModel(decision.features, decision.weights, decision.mean, decision.scale, decision.bias, decision.threshold)
    related = rules.answering.related_model
    if related is not None:
        unknown = sorted(set(related.features) - set(FEATURES) - set(RELATED_INPUTS))
        if unknown or not (len(related.features) == len(related.weights) == len(related.mean) == len(related.scale)):
            raise RetrievalRulesError(
                "answering.related_model: features, weights, mean and scale must match in length and name known "
                f"inputs (unknown: {', '.join(unknown) or 'none'})",
                code="retrieval.rules.related_model",
            )
    patterns = {f"grounding.{n}": getattr(rules.grounding, n)
                for n in ("price_pattern", "free_pattern", "clock_pattern", "duration_pattern")}
    patterns["answering.contact_pattern"] = rules.answering.contact_pattern
    for name, pattern in patterns.items():
        try:
            re.compile(pattern)
        except re.error as exc:
            raise RetrievalRulesError(
                f"{name} is not a valid regex: {exc}", code="retrieval.rules.pattern"
            ) from None
    return rules


def load_rules(path: Path, schema_path: Path = SCHEMA_PATH) -> RetrievalRules:
    """Load and validate one named rule file (a draft being edited, a test's variant). Serving never calls this:
    it uses ``rules_from_bundle`` on the verified bundle."""
    target = Path(path)
    try:
        data = json.loads(target.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RetrievalRulesError(f"retrieval rules not found: {target}", code="retrieval.rules.missing") from None
    except json.JSONDecodeError as exc:
        raise RetrievalRulesError(f"retrieval rules are not JSON: {exc.msg}", code="retrieval.rules.json") from None
    if not isinstance(data, dict):
        raise RetrievalRulesError("retrieval rules must be a JSON object", code="retrieval.rules.schema")
    return parse_rules(data, _schema(schema_path))


def rules_from_bundle(bundle: RuleBundle) -> RetrievalRules:
    """The retrieval rules of a loaded (pinned, verified) rule bundle, from its in-memory files only."""
    return parse_rules(bundle.file("retrieval"))
