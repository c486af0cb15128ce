"""The documented weight rule: rank decay with a floor, normalised to sum exactly to one."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.compiler.compiler_rules import CompilerRules, WeightRule
from engine.compiler.errors import CompileError
from engine.compiler.weights import rank_weights


def test_four_objectives_give_the_papers_vector(compiler_rules: CompilerRules) -> None:
    assert rank_weights(4, compiler_rules.weights) == [Decimal("0.35"), Decimal("0.25"), Decimal("0.2"),
                                                       Decimal("0.2")]


@pytest.mark.parametrize(("count", "expected"), [
    (1, ["1"]),
    (2, ["0.5833", "0.4167"]),
    (3, ["0.4375", "0.3125", "0.25"]),
    (5, ["0.2917", "0.2083", "0.1667", "0.1667", "0.1666"]),
    (6, ["0.25", "0.1786", "0.1429", "0.1429", "0.1428", "0.1428"]),
])
def test_other_sizes_follow_the_rule(compiler_rules: CompilerRules, count: int, expected: list[str]) -> None:
    assert rank_weights(count, compiler_rules.weights) == [Decimal(e) for e in expected]


decimals = st.decimals(min_value=Decimal("0.01"), max_value=Decimal("1"), places=2)


@given(
    count=st.integers(1, 32),
    first=decimals,
    step=st.decimals(min_value=Decimal("0"), max_value=Decimal("0.5"), places=2),
    floor_share=st.decimals(min_value=Decimal("0.01"), max_value=Decimal("1"), places=2),
    places=st.integers(3, 8),
)
def test_weights_are_positive_non_increasing_and_sum_to_one(count: int, first: Decimal, step: Decimal,
                                                            floor_share: Decimal, places: int) -> None:
    floor = max((first * floor_share).quantize(Decimal("0.01")), Decimal("0.01"))
    rule = WeightRule(scheme="rank_decay_floor", first=first, step=step, floor=floor, decimals=places,
                      explanation="test")
    weights = rank_weights(count, rule)
    assert len(weights) == count
    assert sum(weights, Decimal(0)) == Decimal(1)
    assert all(w > 0 for w in weights)
    assert weights == sorted(weights, reverse=True)
    assert all(-w.as_tuple().exponent <= places for w in weights if isinstance(w.as_tuple().exponent, int))


def test_no_objectives_is_an_error(compiler_rules: CompilerRules) -> None:
    with pytest.raises(CompileError):
        rank_weights(0, compiler_rules.weights)
