"""Acceptance rules from ``rules/acceptance.json``, compiled at bundle load into a durable-rules ruleset.

Every rule is a rejection with a reason code. A candidate fact is asserted, every matching rule fires, the fact
is retracted, and the first fired rule in file order gives the reason (so firing order cannot matter).
"""

from __future__ import annotations

import functools
import itertools
import threading
from dataclasses import dataclass
from typing import Any

from durable.lang import assert_fact, m, retract_fact, ruleset, when_all

from engine.errors import DecisionError
from engine.rules.loader import RuleBundle

# durable-rules keeps one process-wide host: serialise access and never define a ruleset twice.
_HOST_LOCK = threading.Lock()
_COMPILED: dict[str, AcceptanceRules] = {}
_FACT_IDS = itertools.count()


@dataclass(frozen=True)
class AcceptanceRule:
    id: str
    reason: str
    description: str
    when: dict[str, Any]


class AcceptanceRules:
    def __init__(self, name: str, rules: list[AcceptanceRule]) -> None:
        self.name = name
        self.rules = rules
        self._order = {rule.id: index for index, rule in enumerate(rules)}
        self._fired: list[str] = []
        self._define()

    def _define(self) -> None:
        with ruleset(self.name):
            for rule in self.rules:
                conditions = [getattr(m, field) == value for field, value in rule.when.items()]
                condition = functools.reduce(lambda a, b: a & b, conditions)
                when_all(condition)(self._recorder(rule.id))

            # Every fact must be handled by some rule or durable-rules raises; acceptance is "no rejection fired".
            when_all(+m.fact_id)(_observed)

    def _recorder(self, rule_id: str) -> Any:
        def fire(_context: Any) -> None:
            self._fired.append(rule_id)

        fire.__name__ = f"rule_{rule_id}"
        return fire

    def evaluate(self, fact: dict[str, Any]) -> AcceptanceRule | None:
        """The first rejecting rule (file order) that matches ``fact``, or None when the candidate is accepted."""
        payload = {**fact, "fact_id": next(_FACT_IDS)}
        with _HOST_LOCK:
            self._fired.clear()
            try:
                assert_fact(self.name, payload)
                retract_fact(self.name, payload)
            except Exception as exc:  # durable raises bare Exceptions; fail closed with a code
                raise DecisionError(f"rules engine error: {exc}", code="decision.rules_engine") from exc
            fired = sorted(set(self._fired), key=self._order.__getitem__)
        return self.rules[self._order[fired[0]]] if fired else None


def _observed(_context: Any) -> None:
    return None


def compile_acceptance(bundle: RuleBundle) -> AcceptanceRules:
    data = bundle.file("acceptance")
    name = f"grace_acceptance_{bundle.content_hash.split(':')[1][:16]}"
    with _HOST_LOCK:
        compiled = _COMPILED.get(name)
        if compiled is None:
            rules = [AcceptanceRule(r["id"], r["reason"], r["description"], dict(r["when"])) for r in data["rules"]]
            compiled = AcceptanceRules(name, rules)
            _COMPILED[name] = compiled
    return compiled
