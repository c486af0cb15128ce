"""From objective kinds or an LLM draft to a candidate GoalSpec: criteria, vocabularies, weights, order, s0."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from engine.compiler.errors import CompileError
from engine.compiler.model import Draft, DraftObjective
from engine.compiler.rules import CompilerRules, ObjectiveKindRule
from engine.compiler.weights import rank_weights
from engine.goals.models import Criterion, CriterionKind, GoalSpec, Objective
from engine.text import fold

VOCABULARY_VERSION = "1.0.0"
# "o" becomes "u" before a word starting with an o sound (Spanish grammar, not policy).
_OR_WORD = {"en": "or", "es": "o"}


@dataclass(frozen=True)
class KindContext:
    """What a kind needs to become an objective in one compilation."""

    spec_id: str
    languages: list[str]
    currency: str
    phone_region: str
    max_examples: int
    options: dict[str, dict[str, dict[str, list[str]]]] = field(default_factory=dict)  # kind key -> options
    places: list[str] = field(default_factory=list)
    datetime_with_time: bool = False
    corpus_language: str | None = None


def _slug(text: str, limit: int = 64) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", fold(text)).strip("_") or "option"
    slug = slug if slug[0].isalpha() else f"p_{slug}"
    return slug[:limit].rstrip("_")


def vocabulary_id(spec_id: str, objective_id: str) -> str:
    """Ids match ^[a-z][a-z0-9_]{0,63}$ (the vocabulary schema): the spec part is shortened if needed."""
    return f"{_slug(spec_id, 63 - len(objective_id))}_{objective_id}"


def join_examples(examples: list[str], language: str) -> str:
    if len(examples) < 2:
        return "".join(examples)
    word = _OR_WORD.get(language, "or")
    if language == "es" and fold(examples[-1]).startswith(("o", "ho")):
        word = "u"
    return f"{', '.join(examples[:-1])} {word} {examples[-1]}"


def vocabulary_document(vocab_id: str, kind: CriterionKind, options: dict[str, dict[str, list[str]]],
                        *, allow_unlisted: bool, source: str) -> dict[str, Any]:
    """A rules/vocabularies/<id>.json body for the reviewer to approve with the spec."""
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


def objective_from_kind(
    kind: ObjectiveKindRule, context: KindContext
) -> tuple[DraftObjective, dict[str, Any] | None]:
    """The draft objective for one recognised kind, and the vocabulary it references (if any)."""
    criterion = kind.criterion
    params: dict[str, Any] = dict(kind.params)
    vocabulary: dict[str, Any] | None = None
    vocab_id = vocabulary_id(context.spec_id, kind.id)
    options = context.options.get(kind.key, {})
    if kind.needs_vocabulary:
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
        params.setdefault("currency", context.currency)
    elif criterion is CriterionKind.CONTACT:
        params.setdefault("default_region", context.phone_region)
    elif criterion is CriterionKind.DATETIME:
        params["granularity"] = "datetime" if context.datetime_with_time else "date"

    questions: dict[str, str] = {}
    for language in context.languages:
        template = kind.questions[language]
        if criterion is CriterionKind.DATETIME and context.datetime_with_time and language in kind.questions_datetime:
            template = kind.questions_datetime[language]
        examples = [terms[language][0] for terms in options.values() if terms.get(language)]
        with_examples = kind.questions_with_examples.get(language)
        if with_examples and examples and context.max_examples > 0 and criterion is not CriterionKind.FREE_TEXT:
            template = with_examples.replace(
                "{examples}", join_examples(examples[: context.max_examples], language)
            )
        questions[language] = template
    main = context.languages[0]
    draft = DraftObjective(
        id=kind.id,
        name=kind.names[main],
        kind=kind.key,
        criterion=criterion,
        description=kind.descriptions[main],
        questions=questions,
        params=params,
    )
    return draft, vocabulary


def default_spec_id(intent: str) -> str:
    return "candidate-" + hashlib.sha256(fold(intent).encode("utf-8")).hexdigest()[:10]


def default_title(intent: str, limit: int = 80) -> str:
    first = re.split(r"(?<=[.!?])\s", " ".join(intent.split()), maxsplit=1)[0].rstrip(".!?")
    if len(first) <= limit:
        return first
    return first[:limit].rsplit(" ", 1)[0] + "…"


def build_spec(
    draft: Draft, *, rules: CompilerRules, spec_id: str, intent: str, language: str, languages: list[str]
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
    return GoalSpec(
        id=spec_id,
        title=draft.title,
        default_language=language,
        languages=[language, *[lang for lang in offered if lang != language]],
        manager_intent=intent,
        objectives=objectives,
        initial_state=[0] * count,
    )
