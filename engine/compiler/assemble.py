"""From phrases of the intent (or an LLM draft) to a candidate GoalSpec: criteria, vocabularies, weights, order, s0."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from engine.compiler import phrasing
from engine.compiler.compiler_rules import CompilerRules, ObjectiveKindRule
from engine.compiler.errors import CompileError
from engine.compiler.intent import Phrase
from engine.compiler.model import Draft, DraftObjective
from engine.compiler.weights import rank_weights
from engine.kernel.goal_models import Criterion, CriterionKind, GoalSpec, Locale, Objective
from engine.text import fold

VOCABULARY_VERSION = "1.0.0"
INTENT_PHRASES = "intent_phrases"  # criterion param: the intent phrases an objective collects (checked on validate)
_OPTION_KEY = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


@dataclass(frozen=True)
class KindContext:
    """What a phrase needs to become an objective in one compilation."""

    spec_id: str
    languages: list[str]  # languages asked for, intent language first
    locale: Locale
    max_examples: int
    min_amount: int | float = 1  # smallest unambiguous money amount (from the corpus's prices)
    options: dict[str, dict[str, dict[str, list[str]]]] = field(default_factory=dict)  # kind key -> corpus options
    places: list[str] = field(default_factory=list)
    labelled: dict[str, list[str]] = field(default_factory=dict)  # folded corpus label -> the terms it lists

    @property
    def main(self) -> str:
        return self.languages[0]


@dataclass(frozen=True)
class Built:
    """One objective before weights, the vocabulary it carries and the languages its question is written in."""

    draft: DraftObjective
    vocabulary: dict[str, Any] | None
    languages: list[str]


def _slug(text: str, limit: int = 64) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", fold(text)).strip("_") or "option"
    slug = slug if slug[0].isalpha() else f"p_{slug}"
    return slug[:limit].rstrip("_")


def vocabulary_id(spec_id: str, objective_id: str) -> str:
    """Ids match ^[a-z][a-z0-9_]{0,63}$ (the vocabulary schema): the spec part is shortened if needed."""
    return f"{_slug(spec_id, 63 - len(objective_id))}_{objective_id}"[:64].rstrip("_")


def join_examples(examples: list[str], language: str) -> str:
    return phrasing.join_options(examples, language)


def vocabulary_document(vocab_id: str, kind: CriterionKind, options: dict[str, dict[str, list[str]]],
                        *, allow_unlisted: bool, source: str) -> dict[str, Any]:
    """A vocabulary document (rules/schemas/vocabulary.schema.json) carried by the spec for the reviewer."""
    document: dict[str, Any] = {
        "version": VOCABULARY_VERSION,
        "description": f"Derived by the goal compiler from {source}; review before approval.",
        "id": vocab_id,
        "kind": kind.value,
        "options": options,
    }
    if kind is CriterionKind.PLACE:  # the vocabulary schema allows allow_unlisted on places only
        document["allow_unlisted"] = allow_unlisted
    return document


def _seed_index(rules: CompilerRules) -> dict[str, tuple[str, dict[str, list[str]], str]]:
    """Folded seed term -> (option key, its terms by language, the kind it belongs to)."""
    index: dict[str, tuple[str, dict[str, list[str]], str]] = {}
    for kind in rules.objective_kinds:
        for key, terms in kind.seed_options.items():
            for words in terms.values():
                for term in words:
                    index.setdefault(fold(term), (key, terms, kind.key))
    return index


def listed_options(options: tuple[str, ...], language: str, rules: CompilerRules,
                   head: str = "", forms: tuple[str, ...] = ()) -> dict[str, dict[str, list[str]]]:
    """Options the manager listed, as vocabulary options: a known seed option brings its other-language terms;
    every option keeps the manager's word, its singular/plural forms and the shared head ("adventure trips")."""
    seeds = _seed_index(rules)
    # Seed options of one kind are used only when most listed options are among them ("principiante,
    # intermedio o avanzado"); a lone homonym ("flat" roof vs a flat to live in) keeps the manager's word.
    kinds = [seeds[fold(o)][2] for o in options if fold(o) in seeds]
    common = max(set(kinds), key=kinds.count) if kinds else None
    usable = common is not None and 2 * kinds.count(common) > len(options)
    found: dict[str, dict[str, list[str]]] = {}
    for index, option in enumerate(options):
        words = phrasing.variants(option, language, rules.phrasing)
        if head:
            words += phrasing.variants(f"{option} {head}", language, rules.phrasing)
        if index < len(forms) and forms[index]:
            words += phrasing.variants(forms[index], language, rules.phrasing)
        hit = seeds.get(fold(option))
        seed = (hit[0], hit[1]) if usable and hit is not None and hit[2] == common else None
        key = seed[0] if seed else _slug(option)
        if not _OPTION_KEY.match(key):
            key = f"o_{key}"[:64]
        terms = found.setdefault(key, {lang: list(t) for lang, t in (seed[1].items() if seed else [])})
        terms[language] = list(dict.fromkeys([*words, *terms.get(language, [])]))
    return found


def _kind_cues(kind: ObjectiveKindRule, languages: list[str], rules: CompilerRules) -> dict[str, list[str]]:
    stop = {w for ws in rules.phrasing.stopwords.values() for w in ws}
    cues: dict[str, list[str]] = {}
    for language in languages:
        terms = [k for k in kind.keywords.get(language, [])
                 if "*" not in k and any(w not in stop for w in fold(k).split()) and len(k) > 2]
        if terms:
            cues[language] = terms[:12]
    return cues


def _cues(phrases: list[Phrase], kind: ObjectiveKindRule | None, context: KindContext,
          rules: CompilerRules, unique: bool = True) -> dict[str, list[str]]:
    """The manager's own words, then the kind's keywords. When several objectives share a kind (departure and
    return dates, origin and destination cities) the kind's keywords are left out: shared by all of them they
    tell none apart, and one of them can name another's role ("start date" on the end date)."""
    cues = _kind_cues(kind, context.languages, rules) if kind is not None and unique else {}
    own = phrasing.cue_terms([p.text for p in phrases if not p.implied] or [p.text for p in phrases],
                             context.main, rules)
    merged = list(dict.fromkeys([*own, *cues.get(context.main, [])]))
    if merged:
        cues[context.main] = merged
    if not unique and kind is not None:
        words = [w for p in phrases for w in re.findall(r"[\w'-]+", fold(p.text))]
        roles = [r for r in rules.sibling_roles if kind.criterion.value in r.kinds and r.triggered(words)]
        if len(roles) == 1:  # a phrase that triggers both roles tells neither
            for language in context.languages:
                extra = roles[0].cues.get(language, [])
                if extra:
                    cues[language] = list(dict.fromkeys([*cues.get(language, []), *extra]))
    return cues


def _add_answer_cues(cues: dict[str, list[str]], kind: ObjectiveKindRule, languages: list[str]) -> None:
    """How visitors answer the kind unasked ("I need a check-up" for a reason for the visit; "we use ..." for the
    software they use) joins the free-text objective's cues in every language of the spec: the manager's words
    name the kind, the visitor's words answer it."""
    for language in languages:
        answers = kind.answer_cues.get(language, [])
        if answers:
            cues[language] = list(dict.fromkeys([*cues.get(language, []), *answers]))


def _add_corpus_terms(cues: dict[str, list[str]], phrase: Phrase, context: KindContext,
                      rules: CompilerRules) -> None:
    """A free-text phrase whose head noun labels a list in the company's documents ("qué idioma" and "Idiomas:
    inglés, francés, …") is answered by naming one of those terms: they become its cues (the reviewer sees them)."""
    head = phrasing.head_noun(phrase.text, rules)
    if head is None or not context.labelled:
        return
    forms = {fold(v) for v in phrasing.variants(head, context.main, rules.phrasing)}
    terms = next((items for label, items in context.labelled.items() if label in forms), None)
    if terms:
        cues[context.main] = list(dict.fromkeys([*cues.get(context.main, []), *terms]))


def unit_terms(own: dict[str, list[str]], languages: list[str], rules: CompilerRules) -> dict[str, list[str]]:
    """A count's unit words: its own, then every term of a synonym group holding one of them ("riders" also
    accepts "people" and "seats"), in each language of the spec (rules/compiler.json unit_synonyms)."""
    folded = {fold(t) for terms in own.values() for t in terms}
    result = {lang: list(terms) for lang, terms in own.items()}
    for group in rules.unit_synonyms:
        if not folded & {fold(t) for terms in group.terms.values() for t in terms}:
            continue
        for language in languages:
            if group.terms.get(language):
                result[language] = list(dict.fromkeys([*result.get(language, []), *group.terms[language]]))
    return result


def _several(phrase: Phrase, language: str, rules: CompilerRules) -> bool:
    """Listed options of which several may apply: an open list ("… and so on") or a plural head noun
    ("which extra services they need (packing, storage or piano moving)"); a choice ("whether …") is one."""
    if phrase.open_options:
        return True
    words = fold(phrase.text).split()
    if words and words[0] in rules.options.choice_starts.get(language, []):
        return False
    head = phrasing.head_noun(phrase.text, rules)
    return head is not None and phrasing.is_plural(head, language, rules.phrasing)


def _extra_words(phrase: Phrase, kind: ObjectiveKindRule, language: str, rules: CompilerRules) -> list[str]:
    """Topic words of the phrase that the kind's keywords do not cover ("headquartered", "decision")."""
    covered = {w for terms in kind.keywords.values() for term in terms for w in fold(term).rstrip("*").split()}
    return [w for w in phrasing.content_words(phrase.text, language, rules) if fold(w) not in covered]


def objective_id(phrases: list[Phrase], kind: ObjectiveKindRule | None, unique: bool, language: str,
                 rules: CompilerRules) -> str:
    """The kind's stable id when it is the only objective of its kind; otherwise from the manager's words."""
    phrase = phrases[0]
    if kind is not None and phrase.unit is not None and not phrase.measured:
        return _slug(phrase.unit)
    if kind is not None and unique:
        return kind.id
    return phrasing.slug_id(phrase.text, language, rules)


def from_phrases(phrases: list[Phrase], kind: ObjectiveKindRule | None, *, oid: str, unique: bool,
                 context: KindContext, rules: CompilerRules) -> Built:
    """The draft objective for phrases that ask for one thing (several only when the kind merges)."""
    main = context.main
    phrase = phrases[0]
    params: dict[str, Any] = dict(kind.params) if kind is not None else {}
    criterion = kind.criterion if kind is not None else CriterionKind.FREE_TEXT
    vocab_id = vocabulary_id(context.spec_id, oid)
    vocabulary: dict[str, Any] | None = None
    listed = phrase.options if criterion in (CriterionKind.ENUMERATION, CriterionKind.FEATURES,
                                             CriterionKind.FREE_TEXT) else ()
    corpus_options = context.options.get(kind.key, {}) if kind is not None else {}
    if listed:
        if criterion is CriterionKind.FREE_TEXT:
            criterion = CriterionKind.FEATURES if _several(phrase, main, rules) else CriterionKind.ENUMERATION
        options = listed_options(listed, main, rules, phrase.option_head, phrase.option_forms)
        description = rules.options.vocabulary_description[main].replace("{phrase}", phrase.source or phrase.text)
        vocabulary = vocabulary_document(vocab_id, criterion, options, allow_unlisted=False, source="the intent")
        vocabulary["description"] = description
        params["vocabulary"] = vocab_id
    elif kind is not None and kind.needs_vocabulary:
        options = corpus_options
        if not options and kind.vocabulary_without_corpus:
            options = {k: {lang: list(t) for lang, t in v.items()} for k, v in kind.seed_options.items()}
        if options:
            vocabulary = vocabulary_document(vocab_id, criterion, options, allow_unlisted=False,
                                             source="its seed options and the company corpus")
            params["vocabulary"] = vocab_id
        else:
            assert kind.fallback_criterion is not None  # guaranteed by CompilerRules validation
            criterion = kind.fallback_criterion
    elif criterion is CriterionKind.PLACE and context.places:
        place_options = {_slug(p): {lang: [p] for lang in context.languages} for p in context.places}
        vocabulary = vocabulary_document(vocab_id, criterion, place_options, allow_unlisted=True,
                                         source="place names in the company corpus")
        params["vocabulary"] = vocab_id
    if criterion is CriterionKind.MONEY:
        params.setdefault("min_amount", context.min_amount)
        if context.locale.currency:
            params["currency"] = context.locale.currency
    elif criterion is CriterionKind.CONTACT:
        params["channels"] = kind.channels([p.text for p in phrases]) if kind is not None else ["email", "phone"]
        if context.locale.phone_region and "phone" in params["channels"]:
            params["default_region"] = context.locale.phone_region
    elif criterion is CriterionKind.QUANTITY and phrase.unit is not None:
        params["unit"] = _slug(phrase.unit)
        params["unit_terms"] = unit_terms({main: phrasing.variants(phrase.unit, main, rules.phrasing)},
                                          context.languages, rules)
        params.setdefault("integer", True)
    elif criterion is CriterionKind.QUANTITY and isinstance(params.get("unit_terms"), dict):
        params["unit_terms"] = unit_terms(params["unit_terms"], context.languages, rules)

    # The kind's own (translated) question when the phrase is the only one of its kind and says nothing the
    # kind's question does not: no listed options, no unit of its own.
    generic = kind is not None and unique and not listed and phrase.unit is None and (
        phrase.implied or len(_extra_words(phrase, kind, main, rules)) <= rules.phrasing.max_extra_words)
    questions: dict[str, str] = {}
    if generic and kind is not None:
        examples_by_language = {
            language: [terms[language][0] for terms in (vocabulary or {}).get("options", {}).values()
                       if terms.get(language)] for language in context.languages}
        channels = params.get("channels", [])
        by_channel = kind.questions_by_channel.get(channels[0], {}) if len(channels) == 1 else {}
        for language in context.languages:
            template = by_channel.get(language) or kind.questions[language]
            examples = examples_by_language[language]
            with_examples = kind.questions_with_examples.get(language)
            if with_examples and examples and context.max_examples > 0 and criterion is not CriterionKind.FREE_TEXT \
                    and criterion is not CriterionKind.PLACE:
                template = with_examples.replace("{examples}", join_examples(examples[: context.max_examples],
                                                                             language))
            questions[language] = template
        name = kind.names[main]
        description = kind.descriptions[main]
    else:
        inline = all(fold(o) in fold(phrase.text) for o in listed)
        questions[main] = phrasing.question(phrase.text, main, rules.phrasing,
                                            options=None if inline else list(listed), article=phrase.article)
        name = phrasing.name(phrase.text)
        if kind is not None and not listed:
            description = kind.descriptions[main]
        elif listed:
            description = rules.phrasing.description_options[main].replace(
                "{options}", phrasing.join_options(list(listed), main))
        else:
            description = rules.phrasing.description_free_text[main].replace("{phrase}", phrase.text)
        if criterion is CriterionKind.QUANTITY and phrase.unit is not None:
            description = rules.phrasing.description_quantity[main].replace("{unit}", phrase.unit)
    if not phrase.implied:
        asked = "; ".join(dict.fromkeys(p.source or p.text for p in phrases))
        description = f"{description} {rules.phrasing.description_asked_for[main].replace('{phrase}', asked)}"
    params["cues"] = _cues(phrases, kind, context, rules, unique)
    if kind is not None and criterion is CriterionKind.FREE_TEXT:
        _add_answer_cues(params["cues"], kind, context.languages)
    if criterion is CriterionKind.FREE_TEXT:
        _add_corpus_terms(params["cues"], phrase, context, rules)
    params[INTENT_PHRASES] = [p.text for p in phrases]
    draft = DraftObjective(id=oid, name=name[:120], kind=kind.key if kind is not None else None,
                           criterion=criterion, description=description[:600], questions=questions, params=params)
    return Built(draft=draft, vocabulary=vocabulary, languages=list(questions))


def default_spec_id(intent: str) -> str:
    return "candidate-" + hashlib.sha256(fold(intent).encode("utf-8")).hexdigest()[:10]


def default_title(intent: str, limit: int = 80) -> str:
    sentences = re.split(r"(?<=[.!?])\s", " ".join(intent.split()))
    first = next((s.rstrip(".!?").strip() for s in sentences if s.rstrip(".!?").strip()), "Goal spec")
    if len(first) <= limit:
        return first
    return first[:limit].rsplit(" ", 1)[0] + "…"


def build_spec(
    draft: Draft, *, rules: CompilerRules, spec_id: str, intent: str, language: str, languages: list[str],
    locale: Locale | None = None, vocabularies: dict[str, dict[str, Any]] | None = None,
) -> GoalSpec:
    """Assign order (draft order), weights (the documented rule) and s0 = 0; fail on duplicates or overflow."""
    count = len(draft.objectives)
    if count > rules.max_objectives:
        raise CompileError(f"{count} objectives exceed the maximum of {rules.max_objectives}",
                           code="compile.too_many_objectives")
    ids = [o.id for o in draft.objectives]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise CompileError(f"duplicate objective ids: {', '.join(duplicates)}", code="compile.duplicate_objective")
    offered = [lang for lang in languages if all(lang in o.questions for o in draft.objectives)]
    if language not in offered:
        raise CompileError(f"some objective has no canonical question in {language}",
                           code="compile.language_missing")
    weights = rank_weights(count, rules.weights)
    objectives = [
        Objective(
            id=o.id,
            name=o.name,
            questions={lang: o.questions[lang] for lang in offered},
            criterion=Criterion(kind=o.criterion, description=o.description, params=o.params),
            weight=weight,
            order=rank,
        )
        for rank, (o, weight) in enumerate(zip(draft.objectives, weights, strict=True), start=1)
    ]
    used = {str(o.criterion.params["vocabulary"]) for o in objectives if "vocabulary" in o.criterion.params}
    return GoalSpec(
        id=spec_id,
        title=draft.title,
        default_language=language,
        languages=[language, *[lang for lang in offered if lang != language]],
        manager_intent=intent,
        objectives=objectives,
        initial_state=[0] * count,
        locale=locale if locale is not None and any(locale.model_dump().values()) else None,
        vocabularies={k: v for k, v in sorted((vocabularies or {}).items()) if k in used},
    )
