"""Structural checks every compiled candidate must pass (shared by the compiler tests)."""

from __future__ import annotations

from decimal import Decimal

from engine.compiler.compiler_rules import GovernanceRules
from engine.compiler.governance import check_governance
from engine.kernel.goal_models import CriterionKind, GoalSpec

PAPER_WEIGHTS = [Decimal("0.35"), Decimal("0.25"), Decimal("0.20"), Decimal("0.20")]


def assert_valid_candidate(spec: GoalSpec, governance: GovernanceRules) -> None:
    round_trip = GoalSpec.model_validate_json(spec.model_dump_json())
    assert round_trip == spec
    objectives = spec.ordered()
    ids = [o.id for o in objectives]
    assert len(set(ids)) == len(ids)
    assert [o.order for o in objectives] == list(range(1, len(objectives) + 1))
    weights = [o.weight for o in objectives]
    assert sum(weights, Decimal(0)) == Decimal(1)
    assert all(w > 0 for w in weights) and weights == sorted(weights, reverse=True)
    assert spec.initial_state == [0] * len(objectives)
    assert spec.default_language == spec.languages[0]
    for objective in objectives:
        assert set(spec.languages) <= set(objective.questions)
        assert all(q.strip() and "{examples}" not in q for q in objective.questions.values())
        assert objective.criterion.description.strip()
        if objective.criterion.kind in (CriterionKind.ENUMERATION, CriterionKind.FEATURES):
            assert objective.criterion.params.get("vocabulary")
    assert check_governance(spec, governance) == []
