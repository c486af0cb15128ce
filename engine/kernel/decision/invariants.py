"""Z3 checks: every transition before it is accepted, and the rule bundle's properties at load."""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass
from fractions import Fraction

import z3

from engine.rules.loader import RuleBundle
from spec.z3_encodings import (
    PolicyNumbers,
    TransitionEncoding,
    TransitionFacts,
    acceptance_properties,
    bundle_properties,
    transition_encoding,
)


def frac(value: object) -> Fraction:
    """Exact rational from a JSON number (via its decimal text, so 0.2 is 1/5)."""
    return _fraction_of(str(value))


@functools.lru_cache(maxsize=4096)
def _fraction_of(text: str) -> Fraction:
    """Parsing the text is most of the cost; the same few weights and coefficients recur on every turn (and a
    Fraction is immutable, so one object serves every caller)."""
    return Fraction(text)


def policy_numbers(bundle: RuleBundle) -> PolicyNumbers:
    policy = bundle.file("policy")
    c = policy["coefficients"]
    rubric = policy["offline_rubric"]
    return PolicyNumbers(
        relevance=frac(c["relevance"]),
        burden=frac(c["burden"]),
        repetition=frac(c["repetition"]),
        privacy=frac(c["privacy"]),
        epsilon=frac(policy["epsilon"]),
        none_utility=frac(policy["none_utility"]),
        vetoed_ask_utility=frac(policy["vetoed_ask_utility"]),
        relevance_uncertain_recent=frac(rubric["relevance_uncertain_recent"]),
        burden_uncertain_recent=frac(rubric["burden_uncertain_recent"]),
    )


@dataclass(frozen=True)
class CheckOutcome:
    ok: bool
    status: str  # "unsat" (invariants hold) | "sat" (violated) | "unknown" (timeout or solver doubt)


# Z3's Python API shares one context and is not thread-safe: every use in this process goes through this lock.
Z3_LOCK = threading.RLock()


class SolverChecker:
    """Checks a transition against the Z3 encoding of the invariants with the solver: one reused solver per
    objective count (push/pop), every variable bound to its constant. The decision's reference check;
    ``fast.ground_check.InvariantChecker`` answers the same question faster and is tested against it."""

    def __init__(self, timeout_ms: int) -> None:
        self._timeout_ms = timeout_ms
        self._cache: dict[int, tuple[z3.Solver, TransitionEncoding]] = {}

    def _solver(self, n: int) -> tuple[z3.Solver, TransitionEncoding]:
        cache = self._cache
        if n not in cache:
            encoding = transition_encoding(n)
            staging = z3.Solver()
            staging.add(encoding.negated_invariants)
            # Load the encoding through SMT-LIB text so that later bindings can be parsed as text too.
            # Every variable gets bound to a constant, so simplification and value propagation decide almost
            # everything before the SMT core runs (measured about 4x faster than the default solver).
            solver = z3.Then("simplify", "propagate-values", "smt").solver()
            solver.set("timeout", self._timeout_ms)
            solver.from_string(staging.sexpr())  # asserted once; each check only binds the values
            cache[n] = (solver, encoding)
        return cache[n]

    def check(self, facts: TransitionFacts) -> CheckOutcome:
        with Z3_LOCK:
            solver, encoding = self._solver(len(facts.before))
            solver.push()
            try:
                solver.from_string(encoding.bind_smtlib(facts))
                result = solver.check()
            finally:
                solver.pop()
        if result == z3.unsat:
            return CheckOutcome(ok=True, status="unsat")
        return CheckOutcome(ok=False, status="sat" if result == z3.sat else "unknown")


@dataclass(frozen=True)
class ProofResult:
    name: str
    description: str
    status: str  # "proved" | "refuted" | "unknown"
    counterexample: str | None = None


def prove_bundle(bundle: RuleBundle) -> list[ProofResult]:
    with Z3_LOCK:
        return _prove(bundle)


def _prove(bundle: RuleBundle) -> list[ProofResult]:
    numbers = policy_numbers(bundle)
    timeout = int(bundle.file("policy")["invariant_check"]["timeout_ms"])
    results = []
    properties = {**bundle_properties(numbers), **acceptance_properties(bundle.file("acceptance")["rules"])}
    for name, (description, negation) in properties.items():
        solver = z3.Solver()
        solver.set("timeout", max(timeout, 1000))
        solver.add(negation)
        outcome = solver.check()
        if outcome == z3.unsat:
            results.append(ProofResult(name, description, "proved"))
        elif outcome == z3.sat:
            results.append(ProofResult(name, description, "refuted", str(solver.model())))
        else:
            results.append(ProofResult(name, description, "unknown"))
    return results
