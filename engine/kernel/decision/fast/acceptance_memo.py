"""Acceptance answered from a memo of exact facts. The rules only compare fields with constants, so the same
fields with the same values (and types: ``True`` is not ``1`` here) fire the same rules; answers what
``acceptance.AcceptanceRules.evaluate`` answers (tests/core/test_decision_memo.py compares them)."""

from __future__ import annotations

import threading
from typing import Any

from engine.kernel.decision.acceptance import AcceptanceRule, AcceptanceRules, compile_acceptance
from engine.rules.loader import RuleBundle

_SCALARS = frozenset({str, bool, int, type(None)})
MEMO_ENTRIES = 16384
FactKey = tuple[tuple[str, ...], tuple[type, ...], tuple[object, ...]]


def _fact_key(fact: dict[str, Any]) -> FactKey | None:
    """The fact as a hashable key, or None when a value is not a plain scalar (then it is never memoised).

    Fields, value types and values, in the fact's own order: equal keys mean the same fields with equal values of
    the same types (``True`` is not ``1`` here), so the same rules fire. A fact with its fields in another order
    only misses the memo (the facts of one decider are built in one order). Made of three C-level tuples: several
    times cheaper than a sorted tuple of triples, on every candidate."""
    values = tuple(fact.values())
    types = tuple(map(type, values))
    if not _SCALARS.issuperset(types):
        return None
    return tuple(fact), types, values


class MemoisedAcceptance:
    """``AcceptanceRules`` with a bounded memo, shared by every decider of one rule bundle."""

    def __init__(self, rules: AcceptanceRules) -> None:
        self.rules = rules
        self._memo: dict[FactKey, AcceptanceRule | None] = {}
        self._lock = threading.Lock()
        self.hits = 0

    def evaluate(self, fact: dict[str, Any]) -> AcceptanceRule | None:
        key = _fact_key(fact)
        if key is not None:
            with self._lock:
                if key in self._memo:
                    self.hits += 1
                    return self._memo[key]
        found = self.rules.evaluate(fact)
        if key is not None:
            with self._lock:
                self._memo[key] = found
                if len(self._memo) > MEMO_ENTRIES:
                    self._memo.pop(next(iter(self._memo)))
        return found


_SHARED: dict[str, MemoisedAcceptance] = {}
_SHARED_LOCK = threading.Lock()


def memoised_acceptance(bundle: RuleBundle) -> MemoisedAcceptance:
    """The bundle's compiled acceptance rules behind one memo for the whole process."""
    rules = compile_acceptance(bundle)
    with _SHARED_LOCK:
        return _SHARED.setdefault(rules.name, MemoisedAcceptance(rules))


