"""The documented weight scheme (rules/compiler.json 'weights'): rank decay with a floor, then normalised."""

from __future__ import annotations

from decimal import ROUND_DOWN, Decimal

from engine.compiler.compiler_rules import WeightRule
from engine.compiler.errors import CompileError


def rank_weights(count: int, rule: WeightRule) -> list[Decimal]:
    """Weights for ``count`` objectives in approved order: non-increasing, positive, summing exactly to one.

    raw(r) = max(first - step * (r - 1), floor) for rank r = 1..count; w = raw / sum(raw), rounded to
    ``decimals`` places by the largest-remainder method (ties go to the earlier rank), so the sum is exactly
    1 and the order of the weights never contradicts the approved order.
    """
    if count < 1:
        raise CompileError("cannot weight an empty objective set", code="compile.no_objectives")
    raw = [max(rule.first - rule.step * r, rule.floor) for r in range(count)]
    total = sum(raw, Decimal(0))
    quantum = Decimal(1).scaleb(-rule.decimals)
    exact = [value / total for value in raw]
    weights = [w.quantize(quantum, rounding=ROUND_DOWN) for w in exact]
    missing = int((Decimal(1) - sum(weights, Decimal(0))) / quantum)
    by_remainder = sorted(range(count), key=lambda r: (-(exact[r] - weights[r]), r))
    for rank in by_remainder[:missing]:
        weights[rank] += quantum
    if any(w <= 0 for w in weights):
        raise CompileError(f"{count} objectives are too many for {rule.decimals} weight decimals",
                           code="compile.too_many_objectives")
    return [w.normalize() for w in weights]
