"""Z3 checks: every transition before it is accepted, and the rule bundle's properties at load."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from fractions import Fraction

import z3

from engine.bundle_loader import RuleBundle
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
    return Fraction(str(value))


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


MEMO_ENTRIES = 65536  # bounded: about 20 MB at most; a miss only costs one solver call


class InvariantChecker:
    """One reused solver per objective count (push/pop keeps a check well under a millisecond), used under Z3_LOCK.

    Results are memoised by the exact formula checked: the objective count (which fixes the asserted encoding
    for this checker) and the SMT-LIB text binding every variable. The same text is the same closed formula,
    so it has the same satisfiability; only definite answers (``sat``/``unsat``) are kept, never a timeout.
    """

    def __init__(self, timeout_ms: int, memo_entries: int = MEMO_ENTRIES) -> None:
        self._timeout_ms = timeout_ms
        self._cache: dict[int, tuple[z3.Solver, TransitionEncoding]] = {}
        self._memo: OrderedDict[tuple[int, str], CheckOutcome] = OrderedDict()
        self._memo_entries = memo_entries
        self.hits = 0
        self.misses = 0

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
            _, encoding = self._solver(len(facts.before))
            key = (len(facts.before), encoding.bind_smtlib(facts))
            memo = self._memo.get(key)
            if memo is not None:
                self._memo.move_to_end(key)
                self.hits += 1
                return memo
            self.misses += 1
            return self._remember(key, self.check_fresh(facts, key[1]))

    def check_fresh(self, facts: TransitionFacts, binding: str | None = None) -> CheckOutcome:
        """Ask the solver, bypassing the memo (also what the memo-soundness test compares against)."""
        with Z3_LOCK:
            solver, encoding = self._solver(len(facts.before))
            solver.push()
            try:
                solver.from_string(binding if binding is not None else encoding.bind_smtlib(facts))
                result = solver.check()
            finally:
                solver.pop()
        if result == z3.unsat:
            return CheckOutcome(ok=True, status="unsat")
        return CheckOutcome(ok=False, status="sat" if result == z3.sat else "unknown")

    def _remember(self, key: tuple[int, str], outcome: CheckOutcome) -> CheckOutcome:
        if outcome.status == "unknown":
            return outcome  # a timeout depends on load, not on the formula: ask again next time
        self._memo[key] = outcome
        if len(self._memo) > self._memo_entries:
            self._memo.popitem(last=False)
        return outcome


_SHARED: dict[int, InvariantChecker] = {}
_SHARED_LOCK = threading.Lock()


def shared_checker(timeout_ms: int) -> InvariantChecker:
    """One checker per timeout for the whole process: encodings depend only on the objective count."""
    with _SHARED_LOCK:
        return _SHARED.setdefault(timeout_ms, InvariantChecker(timeout_ms))


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
