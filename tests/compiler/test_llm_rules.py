"""The LLM compile path follows the offline rules: nothing dropped, nothing invented, same checks."""

from __future__ import annotations

from typing import Any

from engine.compiler.compiler_rules import CompilerRules, GovernanceRules
from engine.compiler.coverage import intent_issues
from engine.compiler.model import CompileInput
from engine.kernel.goal_models import CriterionKind
from llm_adapters.compiler import LLMGoalCompiler
from llm_adapters.protocol import CallRecord, CompileRequest, RoleResult
from llm_adapters.schemas import CompiledGoals, CompiledObjective

INTENT = ("For car rentals we want to know the pick-up and return dates, the car type (hatchback, sedan or SUV) "
          "and a phone number.")
LOCALE = {"currency": "USD", "phone_region": "US", "time_zone": "America/Chicago"}


class _Scripted:
    """A stand-in LLM adapter that answers the compile role with a fixed draft."""

    name = "scripted"

    def __init__(self, objectives: list[dict[str, Any]]) -> None:
        self.objectives = objectives
        self.requests: list[CompileRequest] = []

    def compile_goals(self, request: CompileRequest) -> RoleResult[CompiledGoals]:
        self.requests.append(request)
        output = CompiledGoals(title="Car rentals", objectives=[CompiledObjective(**o) for o in self.objectives])
        call = CallRecord(purpose="compile", adapter=self.name, model="scripted", prompt_id="grace.compile",
                          prompt_version="1.1.0", prompt_hash="0" * 64, latency_ms=0.0)
        return RoleResult(output=output, call=call)


def _objective(oid: str, kind: str, criterion: str, question: str) -> dict[str, Any]:
    return {"id": oid, "name": oid.replace("_", " ").title(), "kind": kind, "criterion": criterion,
            "description": f"The visitor gives the {oid.replace('_', ' ')}.",
            "questions": {"en": question, "es": f"¿{question.rstrip('?')}?"}}


def test_left_out_phrases_are_added_and_invented_objectives_left_out(
        compiler_rules: CompilerRules, governance_rules: GovernanceRules) -> None:
    adapter = _Scripted([
        _objective("contact", "contact", "contact", "What phone number can we call you on?"),
        _objective("car_type", "other", "enumeration", "Which car type do you want: hatchback, sedan or SUV?"),
        _objective("pick_up_date", "datetime", "datetime", "When will you pick up the car?"),
        _objective("favourite_colour", "other", "free_text", "What is your favourite colour?"),
    ])
    outcome = LLMGoalCompiler(adapter, compiler_rules, governance_rules).compile(  # type: ignore[arg-type]
        CompileInput(intent=INTENT, language="en", languages=["en"], **LOCALE))
    spec = outcome.spec
    ids = [o.id for o in spec.ordered()]
    assert "favourite_colour" not in ids and "return_dates" in ids  # invented: out; forgotten: back in
    assert ids[-1] == "contact"  # the added objective goes before the handoff phase
    car = next(o for o in spec.ordered() if o.id == "car_type")
    assert car.questions["en"] == "Which car type do you want: hatchback, sedan or SUV?"  # the model's wording
    assert car.criterion.kind is CriterionKind.ENUMERATION and car.criterion.params["vocabulary"] in spec.vocabularies
    assert spec.locale is not None and spec.locale.currency == "USD"
    assert intent_issues(spec, compiler_rules) == []
    assert any("left out 'return dates'" in n for n in outcome.notes)
    assert any("'favourite_colour' is not asked for" in n for n in outcome.notes)
