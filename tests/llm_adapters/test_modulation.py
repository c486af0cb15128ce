"""check_modulation: a rephrasing is accepted only if it still asks for the same objective."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.goals.publication import spec_hash
from engine.kernel.goal_models import Criterion, CriterionKind, GoalSpec, Objective, PublishedGoalSpec
from engine.kernel.ports import GroundedAnswer
from engine.kernel.turn_context import TurnContext
from llm_adapters.config import load_modulation_rules
from llm_adapters.modulation_check import check_modulation
from llm_adapters.modulator import make_modulator

RULES = load_modulation_rules()

# The paper's canonical questions (Tables II and IV), and Spanish ones in the demo's style.
TABLE_II = {
    "budget": ("Budget", "What budget range do you have in mind for your new home?"),
    "location": ("Preferred location", "In which area or city would you prefer the property to be located?"),
    "requirements": ("Essential requirements", "Which property characteristics or requirements are essential to "
                     "you, such as bedrooms, bathrooms, parking, or additional spaces?"),
    "contact": ("Contact for visit", "Could you share an email address or telephone number so that we can "
                "arrange a joint viewing according to your preferences?"),
}
TABLE_IV_ES = {
    "client_type": ("Tipo de cliente o instalación", "¿Qué tipo de cliente o instalación necesita servicios de "
                    "limpieza? Por ejemplo, hogar, oficina, hotel o nave industrial."),
    "location": ("Ubicación", "¿En qué zona o ciudad se encuentra la instalación que requiere el servicio?"),
    "service_type": ("Tipo de servicio", "¿Qué tipo de servicio de limpieza está buscando?"),
    "contact": ("Contacto", "¿Podría facilitarnos un teléfono o correo electrónico para contactarle?"),
}


def _objectives(table: dict[str, tuple[str, str]], language: str) -> list[Objective]:
    return [Objective(id=oid, name=name, questions={language: question},
                      criterion=Criterion(kind=CriterionKind.FREE_TEXT, description="d"),
                      weight=Decimal("0.25"), order=i)
            for i, (oid, (name, question)) in enumerate(table.items(), start=1)]


EN = _objectives(TABLE_II, "en")
ES = _objectives(TABLE_IV_ES, "es")
BY_ID_EN = {o.id: o for o in EN}


@pytest.mark.parametrize(("objectives", "language"), [(EN, "en"), (ES, "es")])
def test_canonical_questions_always_pass(objectives: list[Objective], language: str) -> None:
    for objective in objectives:
        others = [o for o in objectives if o is not objective]
        result = check_modulation(objective, objective.questions[language], language, others=others)
        assert result.accepted, (objective.id, result.code)


@pytest.mark.parametrize(("objectives", "language"), [(EN, "en"), (ES, "es")])
def test_another_objectives_question_is_rejected(objectives: list[Objective], language: str) -> None:
    for objective in objectives:
        for other in objectives:
            if other is objective:
                continue
            rest = [o for o in objectives if o is not objective]
            result = check_modulation(objective, other.questions[language], language, others=rest)
            assert not result.accepted, (objective.id, other.id)
            assert result.question == objective.questions[language]  # fallback: the canonical question


@pytest.mark.parametrize(
    ("objective", "question", "code"),
    [
        ("budget", "Is 325.000 EUR around the budget you had in mind?", "modulation.ok"),
        ("contact", "Could you share a phone number or email so we can arrange the viewing?", "modulation.ok"),
        ("requirements", "Besides a pool, which requirements are essential to you?", "modulation.ok"),
        ("budget", "Would you like to see more villas in Vera?", "modulation.off_objective"),
        ("budget", "Is there anything else about your new home?", "modulation.off_objective"),
        ("budget", "What is your budget? And which area?", "modulation.not_one_question"),
        ("budget", "Your budget, please.", "modulation.not_one_question"),
        ("budget", "   ", "modulation.empty"),
        ("budget", "What budget " + "really " * 60 + "?", "modulation.too_long"),
    ],
)
def test_modulations(objective: str, question: str, code: str) -> None:
    others = [o for o in EN if o.id != objective]
    assert check_modulation(BY_ID_EN[objective], question, "en", others=others).code == code


def test_spanish_rephrasing_keeps_the_objective() -> None:
    budget = Objective(id="budget", name="Presupuesto", questions={"es": "¿Qué presupuesto tiene en mente?"},
                       criterion=Criterion(kind=CriterionKind.MONEY, description="d"), weight=Decimal(1), order=1)
    assert check_modulation(budget, "¿Cuál es su presupuesto máximo para la vivienda?", "es").accepted
    assert not check_modulation(budget, "¿Qué zona prefiere?", "es").accepted


def test_vocabulary_terms_count_as_the_objectives_words() -> None:
    client = next(o for o in ES if o.id == "client_type")
    question = "¿Se trata de una comunidad de propietarios?"
    assert not check_modulation(client, question, "es").accepted
    assert check_modulation(client, question, "es", vocabulary_terms=["comunidad de propietarios"]).accepted


@given(st.text(max_size=400))
def test_accepted_modulations_are_single_bounded_questions(question: str) -> None:
    result = check_modulation(BY_ID_EN["budget"], question, "en", others=EN[1:])
    if result.accepted:
        assert result.question.count("?") == 1 and len(result.question) <= RULES.max_chars
        assert result.matched
    else:
        assert result.question == TABLE_II["budget"][1]


class _StubModulator:
    """A model stand-in: returns a fixed rephrasing through the real protocol types."""

    name, version = "stub", "0"

    def __init__(self, question: str) -> None:
        self.question = question

    def modulate(self, request: Any) -> Any:
        from llm_adapters.protocol import CallRecord, RoleResult
        from llm_adapters.schemas import ModulatedQuestion

        call = CallRecord(purpose="modulate", adapter="stub", model="stub", prompt_id="p", prompt_version="1.0.0",
                          prompt_hash="sha256:" + "0" * 64, latency_ms=0.0)
        return RoleResult(ModulatedQuestion(objective=request.objective_id, question=self.question), call)


@pytest.mark.parametrize(("question", "expected"), [
    ("Is 325.000 EUR around the budget you had in mind?", "Is 325.000 EUR around the budget you had in mind?"),
    ("Would you like to see more villas in Vera?", None),
])
def test_runtime_modulator_returns_only_accepted_rephrasings(question: str, expected: str | None) -> None:
    goal = GoalSpec(id="m", title="m", default_language="en", languages=["en"], objectives=EN)
    spec = PublishedGoalSpec(spec=goal, version=1, content_hash=spec_hash(goal), approved_by="t",
                             approved_at="2026-01-01T00:00:00Z")
    context = TurnContext()
    modulator: Callable[..., str | None] = make_modulator(_StubModulator(question), spec)  # type: ignore[arg-type]
    assert modulator("budget", TABLE_II["budget"][1], GroundedAnswer(), "en", context) == expected
    assert [c["purpose"] for c in context.ledger.calls] == ["modulate"]  # the call joins the turn's record
