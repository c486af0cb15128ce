"""Plug LLM modulation into the turn runtime: ``TurnRuntime(modulator=make_modulator(adapter, spec))``.

The runtime's modulator signature carries no visitor message or history, so the model sees the canonical
question and the grounded answer only. Any failure or a rejected rephrasing returns None: the runtime then
asks the canonical question, which preserves meaning by definition.
"""

from __future__ import annotations

from collections.abc import Callable

import structlog

from engine.kernel.goal_models import PublishedGoalSpec
from engine.kernel.ports import GroundedAnswer
from engine.kernel.turn_context import TurnContext
from llm_adapters.config import ModulationRules
from llm_adapters.errors import LLMError
from llm_adapters.modulation_check import check_modulation
from llm_adapters.protocol import LLMRoles, ModulationRequest

log = structlog.get_logger("llm_adapters")

Modulator = Callable[[str, str, GroundedAnswer, str, TurnContext], str | None]


def make_modulator(
    adapter: LLMRoles,
    spec: PublishedGoalSpec,
    *,
    rules: ModulationRules | None = None,
) -> Modulator:
    """Each call's metadata and each fallback join the turn's record through its context (``llm_calls``,
    ``notes``)."""
    objectives = {o.id: o for o in spec.spec.objectives}

    def modulate(objective_id: str, canonical: str, answer: GroundedAnswer, language: str,
                 context: TurnContext) -> str | None:
        objective = objectives.get(objective_id)
        if objective is None:
            return None
        try:
            result = adapter.modulate(ModulationRequest(spec=spec, objective_id=objective_id, language=language,
                                                        answer=answer, context=context))
        except LLMError as exc:
            if exc.call is not None:
                context.record_call(exc.call)
            log.warning("modulation.failed", objective=objective_id, code=exc.code)
            context.record_note(f"modulation.fallback_canonical: {exc.code}")
            return None
        context.record_call(result.call.to_record())
        others = [o for o in spec.spec.objectives if o.id != objective_id]
        check = check_modulation(objective, result.output.question, language, rules=rules, others=others)
        if not check.accepted:
            log.info("modulation.rejected", objective=objective_id, code=check.code)
            context.record_note(f"modulation.fallback_canonical: {check.code}")
            return None
        return check.question

    return modulate
