"""Algorithm 1 with a model: the LLM proposes objectives in priority order; rules assign the rest.

Kinds from the catalogue keep their stable ids, typed criteria and vocabularies from rules/compiler.json
(and the corpus); the model contributes names, canonical questions and criterion descriptions. Weights, order
numbers and s0 come from the same documented rule as the offline compiler, and the same governance checks run
before (on the intent) and after (on the candidate).
"""

from __future__ import annotations

from typing import Any

import structlog

from engine.compiler.assemble import KindContext, build_spec, default_spec_id, objective_from_kind
from engine.compiler.deterministic import DeterministicCompiler, check_input, check_intent_governance
from engine.compiler.governance import check_governance
from engine.compiler.intent import read_intent
from engine.compiler.model import CompileInput, CompileOutcome, Draft, DraftObjective
from engine.compiler.rules import CompilerRules, GovernanceRules
from engine.errors import GoalSpecError
from engine.goals.models import CriterionKind
from llm_adapters.protocol import CompileRequest, KindOption, LLMRoles
from llm_adapters.schemas import CompiledObjective

log = structlog.get_logger("llm_adapters")

# Criterion kinds an unlisted ("other") objective may take: the ones that need no approved vocabulary.
_FREE_KINDS = {CriterionKind.MONEY, CriterionKind.PLACE, CriterionKind.CONTACT, CriterionKind.DATETIME,
               CriterionKind.QUANTITY, CriterionKind.FREE_TEXT}


class LLMGoalCompiler:
    name = "llm"

    def __init__(self, adapter: LLMRoles, rules: CompilerRules, governance: GovernanceRules) -> None:
        self.adapter = adapter
        self.rules = rules
        self.governance = governance
        self._offline = DeterministicCompiler(rules, governance)  # shares corpus and context logic

    def request_for(self, request: CompileInput, languages: list[str]) -> CompileRequest:
        language = request.language
        kinds = [KindOption(key=k.key, criterion=k.criterion.value, name=k.names.get(language, k.names["en"]),
                            description=k.descriptions.get(language, k.descriptions["en"]))
                 for k in self.rules.objective_kinds]
        prohibited = [f"{c.id}: {c.label.get(language, c.label['en'])}" for c in self.governance.categories]
        return CompileRequest(intent=request.intent.strip(), language=language, languages=languages, kinds=kinds,
                              prohibited=prohibited, max_objectives=self.rules.max_objectives)

    def _objective(self, item: CompiledObjective, context: KindContext,
                   vocabularies: dict[str, dict[str, Any]]) -> DraftObjective:
        kind = self.rules.kind(item.kind)
        if kind is None:
            criterion = item.criterion if item.criterion in _FREE_KINDS else CriterionKind.FREE_TEXT
            params: dict[str, Any] = {}
            if criterion is CriterionKind.MONEY:
                params["currency"] = context.currency
            elif criterion is CriterionKind.CONTACT:
                params.update(channels=["email", "phone"], default_region=context.phone_region)
            elif criterion is CriterionKind.DATETIME:
                params["granularity"] = "date"
            return DraftObjective(id=item.id, name=item.name, kind=None, criterion=criterion,
                                  description=item.description, questions=dict(item.questions), params=params)
        ruled, vocabulary = objective_from_kind(kind, context)
        if vocabulary is not None:
            vocabularies[vocabulary["id"]] = vocabulary
        return ruled.model_copy(update={
            "name": item.name,
            "description": item.description,
            "questions": {lang: item.questions[lang] for lang in context.languages},
        })

    def compile(self, request: CompileInput) -> CompileOutcome:
        languages = check_input(request, self.rules)
        spec_id = request.spec_id or default_spec_id(request.intent)
        reading = read_intent(request.intent, self.rules)
        check_intent_governance(reading, self.governance, spec_id)  # refuse before spending a model call
        result = self.adapter.compile_goals(self.request_for(request, languages))
        context = self._offline.context(request, spec_id, languages, reading)
        vocabularies: dict[str, dict[str, Any]] = {}
        drafts = [self._objective(item, context, vocabularies) for item in result.output.objectives]
        spec = build_spec(Draft(title=request.title or result.output.title, objectives=drafts), rules=self.rules,
                          spec_id=spec_id, intent=request.intent, language=request.language, languages=languages)
        issues = check_governance(spec, self.governance)
        if issues:
            raise GoalSpecError(issues)
        log.info("compiler.compile.done", compiler=self.name, adapter=self.adapter.name, spec_id=spec.id,
                 objectives=[o.id for o in spec.ordered()])
        notes = [f"model rationale: {result.output.rationale}"] if result.output.rationale else []
        return CompileOutcome(spec=spec, vocabularies=vocabularies, notes=notes,
                              compiler=f"{self.name}:{self.adapter.name}/{self.rules.version}",
                              calls=[result.call.to_record()])
