"""Prohibited data categories: every category, both languages, exemptions, no false positives."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from engine.compiler.compiler_rules import GovernanceRules, load_governance_rules
from engine.compiler.governance import check_governance
from engine.errors import RuleBundleError
from engine.kernel.goal_models import Criterion, CriterionKind, GoalSpec, Objective


def _spec(question: str, *, spec_id: str = "probe", name: str = "Extra", description: str = "Free text.") -> GoalSpec:
    return GoalSpec(id=spec_id, title="probe", default_language="en", languages=["en"], objectives=[
        Objective(id="contact", name="Contact", questions={"en": "Could you share an email address?"},
                  criterion=Criterion(kind=CriterionKind.CONTACT, description="A valid email."),
                  weight=Decimal("0.5"), order=1),
        Objective(id="extra", name=name, questions={"en": question},
                  criterion=Criterion(kind=CriterionKind.FREE_TEXT, description=description),
                  weight=Decimal("0.5"), order=2),
    ])


def _cases() -> list[Any]:
    rules = load_governance_rules()
    return [pytest.param(c.id, language, c.keywords[language][0], id=f"{c.id}-{language}")
            for c in rules.categories for language in ("en", "es")]


@pytest.mark.parametrize(("category", "language", "keyword"), _cases())
def test_every_category_is_caught_in_both_languages(governance_rules: GovernanceRules, category: str,
                                                    language: str, keyword: str) -> None:
    word = keyword.rstrip("*") + ("s" if keyword.endswith("*") else "")
    issues = check_governance(_spec(f"Could you tell us about your {word.upper()}?"), governance_rules)
    assert issues and issues[0][0] == "goalspec.prohibited_category"
    assert category in issues[0][1] and "'extra'" in issues[0][1]


@pytest.mark.parametrize("where", ["name", "description"])
def test_names_and_criteria_are_checked_too(governance_rules: GovernanceRules, where: str) -> None:
    spec = _spec("Anything else?", **{where: "Historial MÉDICO del paciente"})
    assert [code for code, _ in check_governance(spec, governance_rules)] == ["goalspec.prohibited_category"]


@pytest.mark.parametrize("question", [
    "Do you need hypoallergenic cleaning products?",
    "How many people are in your party?",
    "Which treatment are you interested in, for example whitening or implants?",
    "What is your approximate age range?",
    "Which area would you prefer?",
])
def test_ordinary_questions_are_permitted(governance_rules: GovernanceRules, question: str) -> None:
    assert check_governance(_spec(question), governance_rules) == []


def test_an_exemption_permits_one_spec_only(governance_rules: GovernanceRules) -> None:
    data = governance_rules.model_dump()
    data["exemptions"] = [{"category": "national_id", "goal_spec_id": "rental-contracts",
                           "justification": "Spanish rental law requires the tenant's DNI on the contract.",
                           "approved_by": "dpo@example.com"}]
    question = "What is your DNI number?"
    assert check_governance(_spec(question, spec_id="rental-contracts"), data) == []
    assert check_governance(_spec(question, spec_id="other"), data) != []


def test_exemptions_only_for_categories_that_allow_them(governance_rules: GovernanceRules) -> None:
    data = governance_rules.model_dump()
    data["exemptions"] = [{"category": "health", "goal_spec_id": "x", "justification": "because we want it",
                           "approved_by": "someone"}]
    with pytest.raises(RuleBundleError):
        check_governance(_spec("Anything?"), data)
