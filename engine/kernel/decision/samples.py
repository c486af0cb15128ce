"""Allowed and disallowed samples beside every acceptance rule, run through the compiled ruleset.

A compliance reader sees, next to each rule, facts it must reject and near-miss facts the bundle must accept; this
module checks both against the real durable-rules ruleset, so a rule whose condition drifts from its samples is
caught before the bundle is published (``grace rules test``, and ``grace rules approve`` refuses on a failure).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.kernel.decision.acceptance import compile_acceptance
from engine.kernel.decision.provenance import CLEAN
from engine.rules.loader import RuleBundle

# An accepted Complete of an open objective whose span is exact visitor text; every sample lists what differs.
ACCEPTED_BASE: dict[str, Any] = {
    "type": "complete",
    "objective_known": True,
    "span_in_visitor_message": True,
    "span_turn_future": False,
    "span_matches": True,
    "duplicate": False,
    "bit_before": 0,
    "validator_ok": True,
    "refused": False,
    "stopped": False,
    **CLEAN,
}


@dataclass(frozen=True)
class SampleResult:
    rule_id: str
    expectation: str  # "rejects" (this rule must be the first to fire) or "accepts" (no rule may fire)
    index: int
    fact: dict[str, Any]
    got: str  # the reason code the ruleset gave, or "accepted"
    want: str  # the rule's own reason code

    @property
    def ok(self) -> bool:
        return self.got == ("accepted" if self.expectation == "accepts" else self.want)

    def line(self) -> str:
        mark = "ok  " if self.ok else "FAIL"
        changed = {k: v for k, v in self.fact.items() if ACCEPTED_BASE.get(k) != v}
        return f"{mark} {self.rule_id} {self.expectation}[{self.index}] {changed or '{}'} -> {self.got}"


def run_samples(bundle: RuleBundle) -> list[SampleResult]:
    """Every sample of every acceptance rule, evaluated by the bundle's compiled ruleset."""
    ruleset = compile_acceptance(bundle)
    results: list[SampleResult] = []
    for rule in bundle.file("acceptance")["rules"]:
        samples = rule.get("samples", {})
        for expectation in ("rejects", "accepts"):
            for index, partial in enumerate(samples.get(expectation, [])):
                fact = {**ACCEPTED_BASE, **partial}
                fired = ruleset.evaluate(fact)
                results.append(SampleResult(rule["id"], expectation, index, fact,
                                            "accepted" if fired is None else fired.reason, rule["reason"]))
    return results


def rules_without_samples(bundle: RuleBundle) -> list[str]:
    """Rules lacking a rejecting or an accepting sample (the schema requires both; a draft may not)."""
    return [r["id"] for r in bundle.file("acceptance")["rules"]
            if not r.get("samples", {}).get("rejects") or not r.get("samples", {}).get("accepts")]
