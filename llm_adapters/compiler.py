"""Algorithm 1 with a model: the LLM words and orders the objectives; the rules decide what the spec contains.

The intent is read deterministically first (the same phrases as the offline compiler); each model objective
is matched to the phrase it collects (by catalogue kind, else by wording). The model contributes the order,
names, canonical questions (in every requested language) and criterion descriptions; criteria, vocabularies,
locale, weights, order numbers and s0 come from the same rules as the offline compiler. Nothing is dropped
and nothing invented: a phrase the model left out gets the offline objective, a model objective the intent
does not ask for is left out (both noted), and the same governance and intent-coverage checks run.
"""

from __future__ import annotations

from decimal import Decimal

import structlog
from rapidfuzz import fuzz

from engine.compiler.assemble import Built, from_phrases
from engine.compiler.compiler_rules import CompilerRules, GovernanceRules
from engine.compiler.deterministic import (
    DeterministicCompiler,
    Group,
    approved_order,
    assign_ids,
    group_phrases,
    locale_needs,
)
from engine.compiler.governance import check_governance
from engine.compiler.model import CompileInput, CompileOutcome
from engine.errors import GoalSpecError
from engine.kernel.goal_models import Criterion, GoalSpec, Objective
from engine.text import fold
from llm_adapters.protocol import CompileRequest, KindOption, LLMRoles
from llm_adapters.schemas import CompiledObjective

log = structlog.get_logger("llm_adapters")

MIN_WORDING_MATCH = 60  # rapidfuzz token-set ratio (0-100) for an "other" objective to claim a phrase


def _matches(item: CompiledObjective, group: Group) -> float:
    if group.kind is not None and item.kind == group.kind.key:
        return 100.0
    wording = fold(f"{item.name} {item.description} {' '.join(item.questions.values())}")
    return max(fuzz.token_set_ratio(fold(p.text), wording) for p in group.phrases) if item.kind == "other" else 0.0


def _claims(items: list[CompiledObjective], groups: list[Group]) -> dict[int, int]:
    """Model objective index -> group index, best match first, each side used once."""
    scored = sorted(((_matches(item, group), i, g) for i, item in enumerate(items) for g, group in enumerate(groups)),
                    key=lambda t: (-t[0], t[1], t[2]))
    claims: dict[int, int] = {}
    for score, i, g in scored:
        if score >= MIN_WORDING_MATCH and i not in claims and g not in claims.values():
            claims[i] = g
    return claims


def _governance_of_model(items: list[CompiledObjective], governance: GovernanceRules,
                         spec_id: str) -> list[tuple[str, str]]:
    """Fail closed on a prohibited model objective even if it is not in the intent (and would be left out)."""
    objectives = [Objective(id=item.id, name=item.name, questions=dict(item.questions),
                            criterion=Criterion(kind=item.criterion, description=item.description),
                            weight=Decimal(1), order=n + 1) for n, item in enumerate(items)]
    probe = GoalSpec(id=spec_id, title="probe", default_language="en", languages=["en"], objectives=objectives)
    return check_governance(probe, governance)


class LLMGoalCompiler:
    name = "llm"

    def __init__(self, adapter: LLMRoles, rules: CompilerRules, governance: GovernanceRules) -> None:
        self.adapter = adapter
        self.rules = rules
        self.governance = governance
        self._offline = DeterministicCompiler(rules, governance)  # shares reading, corpus, locale and checks

    def request_for(self, request: CompileInput, languages: list[str]) -> CompileRequest:
        language = request.language
        kinds = [KindOption(key=k.key, criterion=k.criterion.value, name=k.names.get(language, k.names["en"]),
                            description=k.descriptions.get(language, k.descriptions["en"]))
                 for k in self.rules.objective_kinds]
        prohibited = [f"{c.id}: {c.label.get(language, c.label['en'])}" for c in self.governance.categories]
        return CompileRequest(intent=request.intent.strip(), language=language, languages=languages, kinds=kinds,
                              prohibited=prohibited, max_objectives=self.rules.max_objectives)

    def compile(self, request: CompileInput) -> CompileOutcome:
        languages, spec_id, reading = self._offline.read(request)  # refuses before spending a model call
        groups = approved_order(group_phrases(reading, self.rules))
        context = self._offline.context(request, spec_id, languages, locale_needs(groups))
        result = self.adapter.compile_goals(self.request_for(request, languages))
        items = list(result.output.objectives)
        issues = _governance_of_model(items, self.governance, spec_id)
        if issues:
            raise GoalSpecError(issues)
        claims = _claims(items, groups)
        ids = assign_ids(groups, request.language, self.rules)
        offline = [from_phrases(g.phrases, g.kind, oid=oid, unique=unique, context=context, rules=self.rules)
                   for g, (oid, unique) in zip(groups, ids, strict=True)]
        notes = [f"model rationale: {result.output.rationale}"] if result.output.rationale else []
        ordered: list[Built] = []
        for index, item in enumerate(items):
            if index not in claims:
                notes.append(f"model objective '{item.id}' is not asked for by the intent; left out")
                continue
            ordered.append(self._worded(offline[claims[index]], item, languages))
        claimed = set(claims.values())
        for g, built in enumerate(offline):
            if g not in claimed:
                notes.append(f"the model left out '{groups[g].first.text}'; added from the offline reading")
                ordered.append(built)
        # The model's priority order, inside the documented phases (qualify before handoff), as offline.
        ordered.sort(key=lambda b: self._phase(b) == "handoff")
        outcome = self._offline.finish(
            request, reading, context, ordered, compiler=f"{self.name}:{self.adapter.name}/{self.rules.version}",
            title=result.output.title, notes=notes, calls=[result.call.to_record()])
        log.info("compiler.compile.done", compiler=self.name, adapter=self.adapter.name, spec_id=outcome.spec.id,
                 objectives=[o.id for o in outcome.spec.ordered()])
        return outcome

    def _phase(self, built: Built) -> str:
        kind = self.rules.kind(built.draft.kind) if built.draft.kind else None
        return kind.phase if kind is not None else "qualify"

    @staticmethod
    def _worded(built: Built, item: CompiledObjective, languages: list[str]) -> Built:
        """The offline objective with the model's wording: its questions in every language it wrote."""
        questions = {lang: item.questions[lang] for lang in languages if item.questions.get(lang, "").strip()}
        draft = built.draft.model_copy(update={"name": item.name, "description": item.description,
                                               "questions": questions or built.draft.questions})
        return Built(draft=draft, vocabulary=built.vocabulary, languages=list(draft.questions))
