"""U_V remembered per rubric level combination. Exact rational arithmetic costs microseconds per operation and the
rubric has few distinct level combinations (three levels per component), so every decider of one policy shares a
bounded table; answers what ``policy.PolicyConfig.visitor_utility`` answers (tests/core/test_decision_memo.py)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from engine.kernel.policy import PolicyConfig, Rubric

_UTILITY_ENTRIES = 4096  # distinct (R, B, D, P) level combinations remembered per policy
_SHARED_TABLES = 64  # distinct coefficient tuples (policies) whose utility tables are shared between deciders
Levels = tuple[Fraction, Fraction, Fraction, Fraction]
_SHARED_UTILITIES: dict[Levels, dict[Levels, Fraction]] = {}
_SHARED_LOCK = threading.Lock()


@dataclass(frozen=True)
class MemoisedPolicyConfig(PolicyConfig):
    _utilities: dict[Levels, Fraction] = field(default_factory=dict, repr=False, compare=False, hash=False)

    def visitor_utility(self, rubric: Rubric) -> Fraction:
        levels = (rubric.relevance, rubric.burden, rubric.repetition, rubric.privacy)
        exact = all(type(level) is Fraction for level in levels)  # 0.5 == Fraction(1, 2): keep types apart
        known = self._utilities.get(levels) if exact else None
        if known is not None:
            return known
        value = super().visitor_utility(rubric)
        if exact and len(self._utilities) < _UTILITY_ENTRIES:
            self._utilities[levels] = value
        return value


def memoised_policy_config(policy: dict[str, Any]) -> PolicyConfig:
    """``PolicyConfig.from_policy`` whose U_V table is shared with every decider of the same coefficients (a new
    goal spec starts with the combinations already seen: the value depends on nothing else)."""
    plain = PolicyConfig.from_policy(policy)
    with _SHARED_LOCK:
        table = _SHARED_UTILITIES.get(plain.coefficients)
        if table is None and len(_SHARED_UTILITIES) < _SHARED_TABLES:
            table = _SHARED_UTILITIES[plain.coefficients] = {}
    return MemoisedPolicyConfig(plain.coefficients, plain.epsilon, plain.none_utility, plain.vetoed_ask_utility,
                                table if table is not None else {})
