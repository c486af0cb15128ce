"""The documented weight scheme (rules/compiler.json 'weights'): rank decay with a floor, then normalised."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

from engine.compiler.errors import CompileError
from engine.compiler.rules import WeightRule


def rank_weights(count: int, rule: WeightRule) -> list[Decimal]:
    """Weights for ``count`` objectives in approved order: non-increasing, positive, summing exactly to one.

    raw(r) = max(first - step * (r - 1), floor) for rank r = 1..count; w = raw / sum(raw), rounded to
    ``decimals`` places; the rounding residue goes to rank 1 so the sum is exactly 1 and rank 1 stays maximal.
    """
    if count < 1:
        raise CompileError("cannot weight an empty objective set", code="compile.no_objectives")
    raw = [max(rule.first - rule.step * r, rule.floor) for r in range(count)]
    total = sum(raw, Decimal(0))
    quantum = Decimal(1).scaleb(-rule.decimals)
    weights = [(value / total).quantize(quantum, rounding=ROUND_HALF_EVEN) for value in raw]
    weights[0] += Decimal(1) - sum(weights, Decimal(0))
    if any(w <= 0 for w in weights):
        raise CompileError(f"{count} objectives are too many for {rule.decimals} weight decimals",
                           code="compile.too_many_objectives")
    return [w.normalize() for w in weights]
