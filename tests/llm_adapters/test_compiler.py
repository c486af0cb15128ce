"""Algorithm 1 through an LLM (wire fixtures): same kinds, order and weights as Tables II and IV."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest

from engine.compiler.compiler_rules import load_compiler_rules, load_governance_rules
from engine.compiler.model import CompileInput
from engine.errors import GoalSpecError
from engine.kernel.goal_models import CriterionKind
from llm_adapters.compiler import LLMGoalCompiler
from llm_adapters.errors import LLMOutputError

MakeAdapter = Callable[..., Any]
PAPER_WEIGHTS = [Decimal("0.35"), Decimal("0.25"), Decimal("0.2"), Decimal("0.2")]
REAL_ESTATE = (
    "We want to know the client’s budget, area of interest, housing requirements, and contact details "
    "in order to arrange a joint viewing."
)
CLEANING_ES = (
    "Identificar clientes potenciales interesados en servicios profesionales de limpieza, recopilando el "
    "tipo de cliente o instalación, la ubicación, y los datos de contacto necesarios para preparar un "
    "asesoramiento o presupuesto personalizado antes de la intervención humana"
)


SPAIN = {"currency": "EUR", "phone_region": "ES"}  # the paper's intents name no locale (see tests/compiler)
# The recorded model outputs write the paper's two languages; French, which the compiler now also writes, is not asked.
PAPER_LANGUAGES = ["en", "es"]


def _compiler(adapter: Any) -> LLMGoalCompiler:
    return LLMGoalCompiler(adapter, load_compiler_rules(), load_governance_rules())


def test_table_ii_through_mistral(make_adapter: MakeAdapter) -> None:
    adapter, server, _ = make_adapter("mistral", ["compile_table2"])
    request = CompileInput(intent=REAL_ESTATE, language="en", languages=PAPER_LANGUAGES, spec_id="real-estate", **SPAIN)
    outcome = _compiler(adapter).compile(request)
    spec = outcome.spec
    assert [o.id for o in spec.ordered()] == ["budget", "location", "requirements", "contact"]
    assert [o.weight for o in spec.ordered()] == PAPER_WEIGHTS
    assert spec.ordered()[0].questions["en"] == "What budget range do you have in mind for your new home?"
    assert spec.ordered()[0].criterion.params["currency"] == "EUR"
    assert spec.ordered()[0].criterion.params["intent_phrases"] == ["budget"]
    # Without a corpus the features kind has no vocabulary to check against: it falls back to free text.
    assert spec.ordered()[2].criterion.kind is CriterionKind.FREE_TEXT
    assert outcome.calls[0]["purpose"] == "compile" and outcome.calls[0]["output"]["objectives"]
    prompt = server.requests[0]["messages"][-1]["content"]
    assert REAL_ESTATE in prompt and "health" in prompt and "- budget (criterion money)" in prompt


@pytest.mark.parametrize(("provider", "fixture"), [("mistral", "compile_table4"), ("llamacpp", "compile_table4")])
def test_table_iv_through_both_wire_formats(make_adapter: MakeAdapter, provider: str, fixture: str) -> None:
    adapter, _, _ = make_adapter(provider, [fixture])
    spec = (
        _compiler(adapter)
        .compile(CompileInput(intent=CLEANING_ES, language="es", languages=PAPER_LANGUAGES, **SPAIN))
        .spec
    )
    assert [o.id for o in spec.ordered()] == ["client_type", "location", "service_type", "contact"]
    assert [o.weight for o in spec.ordered()] == PAPER_WEIGHTS
    assert spec.default_language == "es" and spec.languages == ["es", "en"]
    assert spec.ordered()[0].criterion.kind is CriterionKind.ENUMERATION  # seed vocabulary, no corpus needed


def test_a_prohibited_objective_from_the_model_is_rejected(make_adapter: MakeAdapter) -> None:
    adapter, _, _ = make_adapter("mistral", ["compile_prohibited"])
    with pytest.raises(GoalSpecError) as info:
        _compiler(adapter).compile(CompileInput(intent=REAL_ESTATE, language="en", languages=PAPER_LANGUAGES, **SPAIN))
    assert info.value.code == "goalspec.prohibited_category"
    assert "health" in info.value.message and "'wellbeing'" in info.value.message


def test_a_prohibited_intent_never_reaches_the_model(make_adapter: MakeAdapter) -> None:
    adapter, server, _ = make_adapter("mistral", [])
    with pytest.raises(GoalSpecError):
        _compiler(adapter).compile(CompileInput(intent="We need their religion and email.", language="en"))
    assert server.requests == []


def test_duplicate_ids_are_re_asked_then_fail_closed(make_adapter: MakeAdapter) -> None:
    adapter, server, _ = make_adapter("mistral", ["compile_duplicate_ids"] * 3)
    with pytest.raises(LLMOutputError):
        _compiler(adapter).compile(CompileInput(intent=REAL_ESTATE, language="en", languages=PAPER_LANGUAGES, **SPAIN))
    assert len(server.requests) == 3
