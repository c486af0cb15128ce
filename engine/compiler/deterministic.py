"""The offline compiler: keyword tables of rules/compiler.json, corpus-derived vocabularies, no model calls."""

from __future__ import annotations

import re

import structlog

from engine.compiler.assemble import KindContext, build_spec, default_spec_id, default_title, objective_from_kind
from engine.compiler.corpus import derive_options, derive_places, load_corpus
from engine.compiler.errors import PROHIBITED_CATEGORY, CompileError
from engine.compiler.governance import category_label, check_governance, find_prohibited
from engine.compiler.intent import IntentReading, Mention, read_intent
from engine.compiler.model import CompileInput, CompileOutcome, Draft
from engine.compiler.rules import CompilerRules, GovernanceRules
from engine.errors import GoalSpecError

log = structlog.get_logger("grace.compiler")
_SPEC_ID = re.compile(r"^[a-z][a-z0-9_-]{0,63}$")  # GoalSpec.id


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
         f"the intent asks for a prohibited data category: {m.label} ({category_label(governance, m.label)}; "
         f"matched '{m.keyword}')")
        for m in find_prohibited([reading.folded], governance)
        if not governance.exempt(m.label, spec_id)
    ]
    if issues:
        raise GoalSpecError(issues)


def approved_order(mentions: list[Mention], rules: CompilerRules) -> list[Mention]:
    """Phase 'qualify' before 'handoff'; explicit before implied; then order of first mention."""
    phase_rank = {"qualify": 0, "handoff": 1}

    def key(mention: Mention) -> tuple[int, int, int]:
        kind = rules.kind(mention.kind)
        assert kind is not None  # mentions come from the same rules
        return phase_rank[kind.phase], int(mention.implied), mention.start

    return sorted(mentions, key=key)


class DeterministicCompiler:
    """Algorithm 1 without a model: recognise objective kinds, order and weight them by the documented rules."""

    name = "deterministic"

    def __init__(self, rules: CompilerRules, governance: GovernanceRules) -> None:
        self.rules = rules
        self.governance = governance

    def compile(self, request: CompileInput) -> CompileOutcome:
        languages = check_input(request, self.rules)
        spec_id = request.spec_id or default_spec_id(request.intent)
        reading = read_intent(request.intent, self.rules)
        check_intent_governance(reading, self.governance, spec_id)
        if not reading.mentions:
            raise CompileError(
                "no objective recognised in the intent; name what to collect (e.g. budget, location, "
                "service type, preferred date, contact details)",
                code="compile.no_objectives",
            )
        ordered = approved_order(reading.mentions, self.rules)
        if len(ordered) > self.rules.max_objectives:
            raise CompileError(f"{len(ordered)} objectives exceed the maximum of {self.rules.max_objectives}",
                               code="compile.too_many_objectives")
        context = self.context(request, spec_id, languages, reading)
        drafts, vocabularies = [], {}
        for mention in ordered:
            kind = self.rules.kind(mention.kind)
            assert kind is not None
            draft, vocabulary = objective_from_kind(kind, context)
            drafts.append(draft)
            if vocabulary is not None:
                vocabularies[vocabulary["id"]] = vocabulary
        title = request.title or default_title(request.intent)
        spec = build_spec(Draft(title=title, objectives=drafts), rules=self.rules, spec_id=spec_id,
                          intent=request.intent, language=request.language, languages=languages)
        issues = check_governance(spec, self.governance)
        if issues:
            raise GoalSpecError(issues)
        notes = [f"not recognised as an objective: '{item}'" for item in reading.unrecognised]
        notes += [f"'{m.kind}' is implied by '{m.keyword}' (not named explicitly)" for m in ordered if m.implied]
        log.info("compiler.compile.done", compiler=self.name, spec_id=spec.id,
                 objectives=[o.id for o in spec.ordered()], rules_version=self.rules.version)
        return CompileOutcome(spec=spec, vocabularies=vocabularies, notes=notes,
                              compiler=f"{self.name}/{self.rules.version}")

    def context(self, request: CompileInput, spec_id: str, languages: list[str],
                reading: IntentReading | None = None) -> KindContext:
        """Per-compilation facts every kind may use: corpus vocabularies, currency, region, time granularity."""
        options: dict[str, dict[str, dict[str, list[str]]]] = {}
        places: list[str] = []
        if request.corpus_dir is not None:
            documents = load_corpus(request.corpus_dir, self.rules.corpus)
            places = derive_places(documents, self.rules.corpus)
            for kind in self.rules.objective_kinds:
                if kind.seed_options:
                    options[kind.key] = derive_options(documents, kind.seed_options)
        return KindContext(
            spec_id=spec_id,
            languages=languages,
            currency=request.currency or self.rules.defaults.currency,
            phone_region=request.phone_region or self.rules.defaults.phone_region,
            max_examples=self.rules.defaults.max_examples,
            options=options,
            places=places,
            datetime_with_time=reading.datetime_with_time if reading else False,
        )
