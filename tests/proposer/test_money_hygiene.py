"""Money hygiene: dates, times, telephone numbers and counts are never amounts; among several numbers the one with
a currency or nearest a budget cue is the amount; the currency comes from the spec's locale; the work is linear
in the message length."""

from __future__ import annotations

import sys
from datetime import UTC, datetime

import pytest

from engine.goals.publication import spec_hash
from engine.kernel.conversation import Message, Role
from engine.kernel.goal_models import GoalSpec, PublishedGoalSpec
from engine.kernel.ports import ProposerInput
from llm_adapters.offline.analysis import analyze
from llm_adapters.offline.evidence import ExtractionContext
from llm_adapters.offline.money import extract_money
from llm_adapters.offline.temporal import temporal_mentions
from tests.proposer.helpers import proposer
from tests.proposer.test_quantity import REFERENCE, accepted, completed, venue_commands, venue_spec


@pytest.mark.parametrize(("text", "value"), [
    ("We want to book 4 September 2027 for 170 guests, budget around 40k", "~40000 GBP"),
    ("Our wedding budget is £28,000", "28000 GBP"),
    ("On 12 March we'd spend up to 5000", "<=5000 GBP"),
    ("Budget 3000 for 120 people on Saturday 11 September 2027 at 17:30", "3000 GBP"),
    ("For 80 guests we can pay €9,500", "9500 EUR"),
    ("Call me on 07700 900123, my budget is 2500", "2500 GBP"),
    ("The 2nd option, with a budget of 1,800 pounds", "1800 GBP"),
])
def test_the_amount_is_not_a_date_a_time_a_phone_or_a_count(text: str, value: str) -> None:
    commands = [c for c in venue_commands(text) if c.type == "complete" and c.objective == "budget"]
    assert [c.value for c in commands] == [value]  # type: ignore[union-attr]


@pytest.mark.parametrize("text", [
    "We're 170 guests",
    "On 4 September 2027",
    "At 17:30 please",
    "Call me on 07700 900123",
    "We need 3 nights",
])
def test_counts_dates_times_and_phones_are_never_money_even_after_the_question(text: str) -> None:
    assert "budget" not in completed(text, last_asked="budget")


def test_currency_comes_from_the_spec_locale() -> None:
    commands = [c for c in venue_commands("My budget is 4000") if c.type == "complete"]
    assert [c.value for c in commands] == ["4000 GBP"]  # type: ignore[union-attr]
    assert accepted(commands[0])


def test_amount_nearest_the_budget_cue_wins() -> None:
    assert completed("I saw 300 reviews; our budget is 6000")["budget"] == "6000 GBP"


def _work(text: str) -> int:
    analysis = analyze(proposer().rules_for(text, "en"), text)
    spec = venue_spec("en").spec
    temporal_mentions(analysis, reference_time=REFERENCE, spec=spec)
    budget = next(o for o in spec.objectives if o.id == "budget")
    ctx = ExtractionContext(analysis=analysis, objective=budget, lenient=True, correcting=False, spec=spec,
                            reference_time=REFERENCE)
    calls = 0

    def count(frame: object, event: str, arg: object) -> None:
        nonlocal calls
        calls += event in ("call", "c_call")

    sys.setprofile(count)
    try:
        extract_money(ctx)
    finally:
        sys.setprofile(None)
    return calls


@pytest.mark.parametrize("unit", ["1 ", "1, ", "budget 300k. ", "between 2 and 3 thousand euros, "])
def test_money_work_grows_linearly(unit: str) -> None:
    small, large = _work(unit * 100), _work(unit * 400)
    assert large <= 6 * small  # 4x the text: linear work is ~4x, quadratic would be ~16x


def _monthly_spec() -> PublishedGoalSpec:
    spec = GoalSpec.model_validate({
        "id": "school", "title": "School", "default_language": "es", "languages": ["es", "en"],
        "locale": {"currency": "MXN"},
        "objectives": [
            {"id": "students", "name": "Alumnos", "questions": {"es": "¿Cuántos?"}, "weight": 1, "order": 1,
             "criterion": {"kind": "quantity", "description": "alumnos",
                           "params": {"unit_terms": {"es": ["alumnos"], "en": ["students"]}}}},
            {"id": "fee", "name": "Cuota", "questions": {"es": "¿Cuánto al mes?"}, "weight": 1, "order": 2,
             "criterion": {"kind": "money", "description": "cuota mensual",
                           "params": {"min_amount": 100, "cues": {"es": ["al mes", "mensual"],
                                                                  "en": ["a month", "monthly"]}}}},
        ],
    })
    return PublishedGoalSpec(spec=spec, version=1, content_hash=spec_hash(spec), approved_by="tests",
                             approved_at=datetime(2026, 1, 1, tzinfo=UTC))


@pytest.mark.parametrize(("text", "value"), [
    ("Somos tres, máximo 6 mil al mes.", "<=6000 MXN"),
    ("Ok, hasta 4,500 al mes entre las dos.", "<=4500 MXN"),
    ("We are 2 students and can pay 900 a month", "900 MXN"),
])
def test_the_objectives_own_cues_mark_the_amount(text: str, value: str) -> None:
    spec = _monthly_spec()
    request = ProposerInput(spec=spec, bits=[0, 0], language="es", turn=1, history=[], reference_time=REFERENCE,
                            message=Message(role=Role.VISITOR, turn=1, text=text))
    found = {c.objective: c.value for c in proposer().propose(request).commands  # type: ignore[union-attr]
             if c.type == "complete"}
    assert found.get("fee") == value
