"""The invariant check made fast: the negated invariants evaluated as a closed formula through Z3's C API, a
memo of definite answers, and one shared checker per timeout. Answers what ``invariants.SolverChecker`` answers
(tests/core/test_decision_memo.py compares them on generated transitions)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from fractions import Fraction
from typing import cast

import z3
from z3 import z3core

from engine.kernel.decision.invariants import Z3_LOCK, CheckOutcome, SolverChecker
from spec.z3_encodings import TransitionEncoding, TransitionFacts, q

MEMO_ENTRIES = 65536  # bounded: about 20 MB at most; a miss only costs one evaluation
VALUE_ENTRIES = 65536  # distinct constants kept as Z3 terms (bits, booleans, weights and utilities repeat)


PARTIAL_ENTRIES = 1024  # pre-substituted formulas kept per objective count (eps, NONE utility and chosen repeat)
HEAD = 3  # the leading variables pre-substituted: eps, the NONE utility (policy constants) and the chosen action


class _Ground:
    """The negated invariants for n objectives with every variable replaced by its bound constant, simplified by
    Z3 (``Z3_substitute`` + ``Z3_simplify`` through the C API; several times cheaper than a solver call).

    With every variable bound, ``negated invariants ∧ bindings`` is satisfiable exactly when the substituted,
    closed formula is true, and Z3's simplifier is an equivalence-preserving rewriter that evaluates a closed
    formula over numerals to ``true`` or ``false``. Anything else (never seen) is "undecided" and goes to the
    solver. No timeout is needed: rewriting a closed formula is linear in its size.

    In two steps: the first ``HEAD`` variables (eps and the NONE utility, fixed by the policy, and the chosen
    action, one of n + 1) take only a few values, so the formula with just those substituted and simplified is
    kept per their values; each check then substitutes the rest into that smaller formula (the optimality clauses
    of the actions not chosen, a quadratic part, are gone). Simplifying is equivalence-preserving, so the partly
    simplified formula with the rest substituted is true exactly when the whole substituted formula is."""

    def __init__(self, encoding: TransitionEncoding) -> None:
        e = encoding
        variables: list[z3.ExprRef] = [e.eps, e.none_uv, e.chosen]
        for i in range(e.n):
            variables += [e.s[i], e.z[i], e.s1[i], e.w[i], e.uv[i], e.witness[i], e.vetoed[i], e.own_contact[i]]
        self.size = len(variables)
        self.negated = e.negated_invariants
        self._head = variables[:HEAD]
        self._rest = (z3.Ast * (self.size - HEAD))(*(v.as_ast() for v in variables[HEAD:]))
        self._partial: dict[tuple[object, ...], z3.BoolRef] = {}

    def evaluate(self, head: tuple[object, ...], terms: list[tuple[z3.ExprRef, z3.Ast]]) -> str | None:
        """"unsat" (the invariants hold), "sat" (violated), or None (undecided). ``terms``: each variable's
        constant as a term and its AST; ``head`` identifies the values of the first ``HEAD`` (the key of the
        pre-substituted formula). Called under Z3_LOCK."""
        partial = self._partial.get(head)
        if partial is None:
            if len(self._partial) >= PARTIAL_ENTRIES:
                self._partial.clear()
            head_terms = [term for term, _ in terms[:HEAD]]
            partial = z3.simplify(z3.substitute(self.negated, *zip(self._head, head_terms, strict=True)))
            self._partial[head] = partial
        ctx = self.negated.ctx.ref()
        values = (z3.Ast * (self.size - HEAD))(*[ast for _, ast in terms[HEAD:]])
        substituted = z3core.Z3_substitute(ctx, partial.as_ast(), self.size - HEAD, self._rest, values)
        z3core.Z3_inc_ref(ctx, substituted)
        try:
            simplified = z3core.Z3_simplify(ctx, substituted)
            z3core.Z3_inc_ref(ctx, simplified)
            try:
                value = z3core.Z3_get_bool_value(ctx, simplified)
            finally:
                z3core.Z3_dec_ref(ctx, simplified)
        finally:
            z3core.Z3_dec_ref(ctx, substituted)
        if value == z3.Z3_L_FALSE:
            return "unsat"
        if value == z3.Z3_L_TRUE:
            return "sat"
        return None


def _ratio(value: Fraction | int) -> tuple[int, int]:
    # A rational as (numerator, denominator) in lowest terms: equal values give equal pairs, and a pair of ints
    # hashes several times faster than a Fraction (the memo and the term table hash every bound constant).
    return value.numerator, value.denominator


def bound_values(facts: TransitionFacts) -> tuple[tuple[str, object], ...]:
    """The constant bound to every variable of the encoding, in ``_Ground``'s order, each with its sort (a real
    as its exact ``(numerator, denominator)``)."""
    values: list[tuple[str, object]] = [("real", _ratio(facts.epsilon)), ("real", _ratio(facts.none_utility)),
                                        ("int", -1 if facts.chosen is None else int(facts.chosen))]
    for i in range(len(facts.before)):
        values += [("int", int(facts.before[i])), ("int", int(facts.z[i])), ("int", int(facts.after[i])),
                   ("real", _ratio(facts.weights[i])), ("real", _ratio(facts.ask_utility[i])),
                   ("bool", bool(facts.visitor_witness[i])), ("bool", bool(facts.vetoed[i])),
                   ("bool", facts.own_contact(i))]
    return tuple(values)


class InvariantChecker(SolverChecker):
    """Checks a transition against the Z3 encoding of the invariants, used under Z3_LOCK.

    ``check`` evaluates the closed formula (``_Ground``) and asks the solver only if that is undecided;
    ``check_fresh`` always asks the solver (``SolverChecker.check``), which is what the tests compare both the
    evaluation and the memo against.

    Results are memoised by the exact formula checked: the objective count (which fixes the encoding) and the
    constant bound to every variable. The same constants give the same closed formula, so the same answer; only
    definite answers (``sat``/``unsat``) are kept, never a timeout.
    """

    def __init__(self, timeout_ms: int, memo_entries: int = MEMO_ENTRIES) -> None:
        super().__init__(timeout_ms)
        self._ground: dict[int, _Ground] = {}
        self._terms: dict[tuple[str, object], tuple[z3.ExprRef, z3.Ast]] = {}  # a term keeps its AST alive
        self._memo: OrderedDict[tuple[int, tuple[tuple[str, object], ...]], CheckOutcome] = OrderedDict()
        self._memo_entries = memo_entries
        self.hits = 0
        self.misses = 0

    def _term(self, value: tuple[str, object]) -> tuple[z3.ExprRef, z3.Ast]:
        entry = self._terms.get(value)
        if entry is None:
            if len(self._terms) >= VALUE_ENTRIES:
                self._terms.clear()  # terms are only used inside one evaluation, under the lock
            sort, constant = value
            if sort == "bool":
                term = z3.BoolVal(bool(constant))
            elif sort == "int":
                term = z3.IntVal(cast(int, constant))
            else:  # an exact rational, as (numerator, denominator)
                numerator, denominator = cast(tuple[int, int], constant)
                term = q(Fraction(numerator, denominator))
            entry = self._terms[value] = (term, term.as_ast())
        return entry

    def check(self, facts: TransitionFacts) -> CheckOutcome:
        with Z3_LOCK:
            n = len(facts.before)
            values = bound_values(facts)
            key = (n, values)
            memo = self._memo.get(key)
            if memo is not None:
                self._memo.move_to_end(key)
                self.hits += 1
                return memo
            self.misses += 1
            status = self.evaluate(facts, values)
            if status is None:
                return self._remember(key, self.check_fresh(facts))
            return self._remember(key, CheckOutcome(ok=status == "unsat", status=status))

    def evaluate(self, facts: TransitionFacts,
                 values: tuple[tuple[str, object], ...] | None = None) -> str | None:
        """The closed formula's answer ("unsat"/"sat"), or None when Z3's simplifier leaves it undecided."""
        with Z3_LOCK:
            n = len(facts.before)
            ground = self._ground.get(n)
            if ground is None:
                ground = self._ground[n] = _Ground(self._solver(n)[1])
            bound = values or bound_values(facts)
            terms = self._terms
            return ground.evaluate(bound[:HEAD], [terms.get(v) or self._term(v) for v in bound])

    def check_fresh(self, facts: TransitionFacts) -> CheckOutcome:
        """Ask the solver, bypassing the memo and the evaluation (what the soundness tests compare against)."""
        return SolverChecker.check(self, facts)

    def _remember(self, key: tuple[int, tuple[tuple[str, object], ...]], outcome: CheckOutcome) -> CheckOutcome:
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


