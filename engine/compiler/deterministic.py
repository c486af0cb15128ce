"""The offline compiler: every phrase of the intent becomes an objective (rules/compiler.json), no model calls."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import structlog

from engine.compiler.assemble import Built, KindContext, build_spec, default_spec_id, default_title, from_phrases
from engine.compiler.compiler_rules import CompilerRules, GovernanceRules, ObjectiveKindRule, review_rules
from engine.compiler.corpus import (
    CorpusDocument,
    derive_options,
    derive_places,
    labelled_lists,
    load_corpus,
    min_amount,
)
from engine.compiler.coverage import intent_issues
from engine.compiler.cue_scope import context_text, distinctive_cues
from engine.compiler.errors import PROHIBITED_CATEGORY, CompileError
from engine.compiler.governance import category_label, check_governance, prohibited, set_aside
from engine.compiler.intent import IntentReading, Phrase, read_intent
from engine.compiler.locale import Needs, resolve_locale
from engine.compiler.model import CompileInput, CompileOutcome, Draft
from engine.errors import GoalSpecError
from engine.kernel.goal_models import CriterionKind, GoalSpec

log = structlog.get_logger("grace.compiler")
_SPEC_ID = re.compile(r"^[a-z][a-z0-9_-]{0,63}$")  # GoalSpec.id
_PHASE_RANK = {"qualify": 0, "handoff": 1}


def check_input(request: CompileInput, rules: CompilerRules) -> list[str]:
    """Validate the request; return the languages to write questions in (intent language first)."""
    intent = request.intent.strip()
    if not intent:
        raise CompileError("the manager intent is empty", code="compile.intent_empty")
    if len(intent) > rules.max_intent_chars:
        raise CompileError(f"the manager intent is longer than {rules.max_intent_chars} characters",
                           code="compile.intent_too_long")
    if request.spec_id is not None and not _SPEC_ID.match(request.spec_id):
        raise CompileError(f"spec id {request.spec_id!r} must match {_SPEC_ID.pattern}", code="compile.spec_id_invalid")
    if request.title is not None and not request.title.strip():
        raise CompileError("the title must not be blank", code="compile.title_invalid")
    supported = rules.languages
    wanted = request.languages or supported
    for language in [request.language, *wanted]:
        if language not in supported:
            raise CompileError(f"language {language} is not supported (supported: {', '.join(supported)})",
                               code="compile.language_unsupported")
    return [request.language, *[lang for lang in wanted if lang != request.language]]


def check_intent_governance(reading: IntentReading, governance: GovernanceRules, spec_id: str) -> None:
    """Refuse an intent that mentions a prohibited category anywhere (purpose clauses too: fail closed)."""
    issues = [
        (PROHIBITED_CATEGORY,
         f"the intent asks for a prohibited data category: {j.match.label} "
         f"({category_label(governance, j.match.label)}; matched '{j.match.keyword}' in '{j.phrase()}': "
         f"{j.reason()})")
        for j in prohibited([reading.folded], governance)
        if not governance.exempt(j.match.label, spec_id)
    ]
    if issues:
        raise GoalSpecError(issues)


@dataclass(frozen=True)
class Group:
    """Phrases that become one objective (several only for a merging kind such as contact)."""

    phrases: list[Phrase]
    kind: ObjectiveKindRule | None

    @property
    def first(self) -> Phrase:
        return self.phrases[0]

    def criterion(self) -> CriterionKind:
        if self.kind is None:
            return CriterionKind.ENUMERATION if self.first.options else CriterionKind.FREE_TEXT
        return self.kind.criterion


def group_phrases(reading: IntentReading, rules: CompilerRules) -> list[Group]:
    groups: list[Group] = []
    merged: dict[str, Group] = {}
    for phrase in reading.phrases:
        kind = rules.kind(phrase.kind) if phrase.kind else None
        if kind is not None and kind.merge and kind.key in merged:
            merged[kind.key].phrases.append(phrase)
            continue
        group = Group(phrases=[phrase], kind=kind)
        groups.append(group)
        if kind is not None and kind.merge:
            merged[kind.key] = group
    return groups


def approved_order(groups: list[Group]) -> list[Group]:
    """Phase 'qualify' before 'handoff'; explicit before implied; then order of first mention."""
    def key(group: Group) -> tuple[int, int, int]:
        phase = group.kind.phase if group.kind is not None else "qualify"
        return _PHASE_RANK[phase], int(group.first.implied), group.first.start

    return sorted(groups, key=key)


def locale_needs(groups: list[Group]) -> Needs:
    def of(kind: CriterionKind) -> list[str]:
        return [g.first.text for g in groups if g.criterion() is kind]

    contact = [g.first.text for g in groups if g.criterion() is CriterionKind.CONTACT
               and (g.kind is None or "phone" in g.kind.channels([p.text for p in g.phrases]))]
    return Needs(currency=of(CriterionKind.MONEY), phone_region=contact, time_zone=of(CriterionKind.DATETIME))


def assign_ids(groups: list[Group], language: str, rules: CompilerRules) -> list[tuple[str, bool]]:
    """(objective id, unique-of-its-kind) per group; ids are made distinct with a numeric suffix."""
    from engine.compiler.assemble import objective_id

    counts: dict[str, int] = {}
    for group in groups:
        if group.kind is not None:
            counts[group.kind.key] = counts.get(group.kind.key, 0) + 1
    result: list[tuple[str, bool]] = []
    taken: set[str] = set()
    for group in groups:
        unique = group.kind is not None and counts[group.kind.key] == 1
        oid = objective_id(group.phrases, group.kind, unique, language, rules)
        base, n = oid, 2
        while oid in taken:
            suffix = f"_{n}"
            oid, n = base[: 64 - len(suffix)] + suffix, n + 1
        taken.add(oid)
        result.append((oid, unique))
    return result


def offered_languages(built: list[Built], languages: list[str], explicit: bool) -> tuple[list[str], list[str]]:
    """Languages every objective can be asked in; an explicitly requested one that some cannot is an error."""
    offered = [lang for lang in languages if all(lang in b.languages for b in built)]
    dropped = [lang for lang in languages if lang not in offered]
    notes = []
    for language in dropped:
        phrases = [b.draft.params.get("intent_phrases", [b.draft.id])[0] for b in built if language not in b.languages]
        message = (f"no {language} question can be written from the manager's words for: "
                   + ", ".join(repr(p) for p in phrases))
        if explicit:
            raise CompileError(message + f"; compile with --languages {languages[0]} or with --llm",
                               code="compile.question_untranslatable")
        notes.append(message + f" (the spec offers {', '.join(offered)} only)")
    return offered, notes


class DeterministicCompiler:
    """Algorithm 1 without a model: read the intent's phrases, give each a kind, order and weight them."""

    name = "deterministic"

    def __init__(self, rules: CompilerRules, governance: GovernanceRules) -> None:
        self.rules = rules
        self.governance = governance

    def read(self, request: CompileInput) -> tuple[list[str], str, IntentReading]:
        languages = check_input(request, self.rules)
        spec_id = request.spec_id or default_spec_id(request.intent)
        reading = read_intent(request.intent, self.rules, request.language)
        check_intent_governance(reading, self.governance, spec_id)
        if not reading.phrases:
            raise CompileError(
                "no information to collect recognised in the intent; name what to learn from visitors "
                "(e.g. 'we want to know their budget, the preferred date and a phone number')",
                code="compile.no_objectives",
            )
        return languages, spec_id, reading

    def compile(self, request: CompileInput) -> CompileOutcome:
        languages, spec_id, reading = self.read(request)
        groups = approved_order(group_phrases(reading, self.rules))
        if len(groups) > self.rules.max_objectives:
            raise CompileError(f"{len(groups)} objectives exceed the maximum of {self.rules.max_objectives}: "
                               + ", ".join(repr(g.first.text) for g in groups),
                               code="compile.too_many_objectives")
        context = self.context(request, spec_id, languages, locale_needs(groups))
        built = [from_phrases(group.phrases, group.kind, oid=oid, unique=unique, context=context, rules=self.rules)
                 for group, (oid, unique) in zip(groups, assign_ids(groups, request.language, self.rules),
                                                 strict=True)]
        return self.finish(request, reading, context, built, compiler=f"{self.name}/{self.rules.version}")

    def finish(self, request: CompileInput, reading: IntentReading, context: KindContext, built: list[Built],
               *, compiler: str, title: str | None = None, notes: list[str] | None = None,
               calls: list[dict[str, Any]] | None = None) -> CompileOutcome:
        """Shared last steps of both compilers: languages, spec, governance and the intent-coverage check."""
        built = distinctive_cues(built, [context_text(reading)], context.main, self.rules)
        offered, language_notes = offered_languages(built, context.languages, explicit=request.languages is not None)
        vocabularies = {b.vocabulary["id"]: b.vocabulary for b in built if b.vocabulary is not None}
        spec = build_spec(Draft(title=request.title or title or default_title(request.intent),
                                objectives=[b.draft for b in built]),
                          rules=self.rules, spec_id=context.spec_id, intent=request.intent,
                          language=request.language, languages=offered, locale=context.locale,
                          vocabularies=vocabularies)
        issues = check_governance(spec, self.governance)
        if issues:
            raise GoalSpecError(issues)
        self.check_coverage(spec)
        # the notes are written in the intent's language (rules/compiler.json ``review``)
        review, language = review_rules(self.rules), spec.default_language
        all_notes = [*(notes or []), *language_notes]
        all_notes += [review.text(language, "note_context", text=text) for text in reading.context]
        all_notes += [review.text(language, "note_set_aside", keyword=j.match.keyword, group=j.group,
                                  subject=j.subject, phrase=j.phrase())
                      for j in set_aside([reading.folded], self.governance)]
        implied = [(o.id, p) for o in spec.ordered() for p in o.criterion.params.get("intent_phrases", [])
                   if any(ph.implied and ph.text == p for ph in reading.phrases)]
        all_notes += [review.text(language, "note_implied", id=oid, phrase=p) for oid, p in implied]
        all_notes += [review.text(language, "note_free_text", id=o.id, name=o.name)
                      for o in spec.ordered() if o.criterion.kind is CriterionKind.FREE_TEXT]
        all_notes += [review.text(language, "note_labelled", id=o.id, label=label, terms=", ".join(terms))
                      for o in spec.ordered() if o.criterion.kind is CriterionKind.FREE_TEXT
                      for label, terms in context.labelled.items()
                      if set(terms) <= set(o.criterion.params.get("cues", {}).get(spec.default_language, []))]
        log.info("compiler.compile.done", compiler=compiler, spec_id=spec.id,
                 objectives=[o.id for o in spec.ordered()], rules_version=self.rules.version)
        return CompileOutcome(spec=spec, vocabularies=dict(spec.vocabularies), notes=all_notes, compiler=compiler,
                              calls=calls or [], implied=sorted({oid for oid, _ in implied}))

    def check_coverage(self, spec: GoalSpec) -> None:
        """The candidate must pass the same intent check as `goals validate` (a compiler bug otherwise)."""
        issues = intent_issues(spec, self.rules)
        if issues:
            raise GoalSpecError(issues)

    def context(self, request: CompileInput, spec_id: str, languages: list[str], needs: Needs) -> KindContext:
        """Per-compilation facts: corpus vocabularies and places, and the locale (flags, intent, corpus)."""
        options: dict[str, dict[str, dict[str, list[str]]]] = {}
        places: list[str] = []
        labelled: dict[str, list[str]] = {}
        documents: list[CorpusDocument] = []
        if request.corpus_dir is not None:
            documents = load_corpus(request.corpus_dir, self.rules.corpus)
            places = derive_places(documents, self.rules.corpus)
            labelled = labelled_lists(documents, self.rules.corpus)
            for kind in self.rules.objective_kinds:
                if kind.seed_options:
                    options[kind.key] = derive_options(documents, kind.seed_options)
        locale = resolve_locale(currency=request.currency, phone_region=request.phone_region,
                                time_zone=request.time_zone, intent=request.intent,
                                corpus=["\n".join(d.text for d in documents)] if documents else [],
                                needs=needs, rules=self.rules.locale, not_places=self.rules.corpus.not_places,
                                language=request.language)
        smallest = min_amount(documents, self.rules.money) if documents else self.rules.money.min_amount_without_corpus
        return KindContext(spec_id=spec_id, languages=languages, locale=locale,
                           max_examples=self.rules.defaults.max_examples, options=options, places=places,
                           labelled=labelled,
                           min_amount=int(smallest) if smallest == int(smallest) else float(smallest))
