"""The decision layer's memos are sound: a memoised answer always equals a fresh one for the same input.

Z3 results are memoised by the exact formula checked, acceptance-rule results by the exact candidate fact.
Hypothesis draws legal transitions (from the differential generators' random conversations) and illegal ones (the same
with one field flipped), so both ``unsat`` and ``sat`` answers are exercised, each asked fresh, then through
the memo, then through the memo again after other formulas were memoised.
"""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.evaluation.differential import random_case
from engine.kernel.decision import invariants
from engine.kernel.decision.acceptance import compile_acceptance
from engine.kernel.decision.decider import Decider
from engine.kernel.decision.fast.acceptance_memo import MemoisedAcceptance
from engine.kernel.decision.fast.ground_check import InvariantChecker
from engine.rules.loader import RuleBundle
from spec.z3_encodings import TransitionFacts


def _facts_of_random_case(seed: int, bundle: RuleBundle) -> TransitionFacts:
    """The TransitionFacts the decider checks for one random generated turn (captured, then re-checked here)."""
    case = random_case(random.Random(seed))
    captured: list[TransitionFacts] = []

    class Capturing(InvariantChecker):
        def check(self, facts: TransitionFacts) -> invariants.CheckOutcome:
            captured.append(facts)
            return super().check_fresh(facts)

    decider = Decider(case.spec, bundle)
    decider.checker = Capturing(250)
    decider.decide(case.state, case.commands, company_question=case.company_question)
    return captured[0]


def _mutate(facts: TransitionFacts, how: int) -> TransitionFacts:
    """One field changed: usually an illegal transition (a ``sat`` answer), sometimes still legal."""
    n = len(facts.before)
    i = how % n
    if how % 4 == 0:
        return replace(facts, after=[1 - b if j == i else b for j, b in enumerate(facts.after)])
    if how % 4 == 1:
        return replace(facts, visitor_witness=[not w if j == i else w for j, w in enumerate(facts.visitor_witness)])
    if how % 4 == 2:
        return replace(facts, chosen=None if facts.chosen is not None else i)
    return replace(facts, weights=[w + Fraction(1, 7) if j == i else w for j, w in enumerate(facts.weights)])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seeds=st.lists(st.integers(0, 10_000), min_size=1, max_size=4), mutations=st.lists(st.integers(-1, 40),
                                                                                             min_size=1, max_size=4))
def test_memoised_invariant_check_equals_a_fresh_check(bundle: RuleBundle, seeds: list[int],
                                                       mutations: list[int]) -> None:
    checker = InvariantChecker(250)
    formulas = []
    for seed in seeds:
        base = _facts_of_random_case(seed, bundle)
        formulas.append(base)
        formulas.extend(_mutate(base, how) for how in mutations if how >= 0)
    first = [checker.check(f) for f in formulas]  # fills the memo (some hits among repeats)
    again = [checker.check(f) for f in reversed(formulas)]  # all memo hits, in another order
    fresh = [checker.check_fresh(f) for f in formulas]
    assert first == fresh
    assert list(reversed(again)) == fresh
    assert checker.hits >= len(formulas)


def test_memo_distinguishes_formulas_with_different_answers(bundle: RuleBundle) -> None:
    checker = InvariantChecker(250)
    legal = _facts_of_random_case(3, bundle)
    illegal = replace(legal, after=[1 - b for b in legal.after])
    assert checker.check(legal).ok
    assert not checker.check(illegal).ok  # a memo keyed on anything coarser would answer "ok" here
    assert checker.check(legal).ok and not checker.check(illegal).ok


def test_memo_stays_bounded(bundle: RuleBundle) -> None:
    checker = InvariantChecker(250, memo_entries=3)
    for seed in range(8):
        checker.check(_facts_of_random_case(seed, bundle))
    assert len(checker._memo) <= 3


_FIELDS: dict[str, Any] = {
    "type": st.sampled_from(["complete", "correct", "refuse", "uncertain", "stop", "resume"]),
    "objective_known": st.booleans(),
    "span_in_visitor_message": st.booleans(),
    "span_matches": st.booleans(),
    "span_turn_future": st.booleans(),
    "duplicate": st.booleans(),
    "bit_before": st.one_of(st.integers(0, 1), st.booleans()),  # 1 and True must not share an answer by hash
    "validator_ok": st.booleans(),
    "refused": st.booleans(),
    "stopped": st.booleans(),
    "contact_company": st.booleans(),
    "contact_assistant_echo": st.booleans(),
    "contact_confusable": st.booleans(),
    "contact_third_party": st.booleans(),
    "contact_refused": st.booleans(),
}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(facts=st.lists(st.fixed_dictionaries(_FIELDS), min_size=1, max_size=6))
def test_memoised_acceptance_equals_the_rules_engine(bundle: RuleBundle, facts: list[dict[str, Any]]) -> None:
    rules = compile_acceptance(bundle)
    memoised = MemoisedAcceptance(rules)
    for fact in facts + facts:  # the second pass is answered from the memo
        memo = memoised.evaluate(dict(fact))
        fresh = rules.evaluate(dict(fact))
        assert (memo.id if memo else None) == (fresh.id if fresh else None)


def test_a_timeout_is_never_memoised(bundle: RuleBundle, monkeypatch: Any) -> None:
    import z3

    checker = InvariantChecker(250)
    legal = _facts_of_random_case(5, bundle)
    real = z3.Solver.check
    monkeypatch.setattr(checker, "evaluate", lambda *a: None)  # the closed formula left undecided: solver path
    monkeypatch.setattr(z3.Solver, "check", lambda self, *a: z3.unknown)
    assert checker.check(legal).status == "unknown"
    monkeypatch.setattr(z3.Solver, "check", real)
    assert checker.check(legal).status == "unsat"  # asked again, not answered "unknown" from the memo


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), mutations=st.lists(st.integers(0, 40), max_size=4))
def test_closed_formula_evaluation_equals_the_solver(bundle: RuleBundle, seed: int, mutations: list[int]) -> None:
    """Substituting every bound constant and simplifying gives the solver's answer, for legal transitions and for
    one-field mutations of them (mostly illegal), and never leaves one of them undecided."""
    checker = InvariantChecker(250)
    base = _facts_of_random_case(seed, bundle)
    for facts in [base, *(_mutate(base, how) for how in mutations)]:
        assert checker.evaluate(facts) == checker.check_fresh(facts).status


def _flip(values: Any, i: int) -> list[Any]:
    """``values`` with entry ``i`` negated: a 0/1 bit flipped, a boolean negated."""
    return [(not x if isinstance(x, bool) else 1 - x) if k == i else x for k, x in enumerate(values)]


def test_evaluation_sees_every_bound_value(bundle: RuleBundle) -> None:
    """Each variable's constant matters: flipping any single bit, flag or number of a legal transition is
    judged exactly as the solver judges it (a substitution that missed a variable would leave it free)."""
    checker = InvariantChecker(250)
    legal = _facts_of_random_case(11, bundle)
    n = len(legal.before)
    variants = [legal, replace(legal, epsilon=legal.epsilon + 1), replace(legal, none_utility=Fraction(-1)),
                replace(legal, chosen=n - 1 if legal.chosen is None else None)]
    for i in range(n):
        variants += [replace(legal, before=_flip(legal.before, i)), replace(legal, z=_flip(legal.z, i)),
                     replace(legal, after=_flip(legal.after, i)),
                     replace(legal, visitor_witness=_flip(legal.visitor_witness, i)),
                     replace(legal, vetoed=_flip(legal.vetoed, i)),
                     replace(legal, visitor_contact=_flip(legal.visitor_contact or [True] * n, i)),
                     replace(legal, weights=[w * 2 if k == i else w for k, w in enumerate(legal.weights)]),
                     replace(legal, ask_utility=[u - 10 if k == i else u for k, u in enumerate(legal.ask_utility)])]
    answers = [(checker.evaluate(v), checker.check_fresh(v).status) for v in variants]
    assert all(mine == solver for mine, solver in answers)
    assert {solver for _, solver in answers} == {"sat", "unsat"}


_LEVEL = st.one_of(st.sampled_from([Fraction(0), Fraction(1, 2), Fraction(1)]),
                   st.fractions(min_value=-2, max_value=2, max_denominator=50), st.sampled_from([0.5, 1.0, 0]))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rubrics=st.lists(st.tuples(_LEVEL, _LEVEL, _LEVEL, _LEVEL), min_size=1, max_size=8))
def test_memoised_visitor_utility_equals_the_formula(bundle: RuleBundle, rubrics: list[tuple[Any, ...]]) -> None:
    """U_V from the per-combination memo equals the weighted sum computed afresh, value and type (a float level
    equal to a memoised Fraction must not receive the Fraction's answer)."""
    from engine.kernel.decision.fast.utility_memo import memoised_policy_config
    from engine.kernel.policy import Rubric

    config = memoised_policy_config(bundle.file("policy"))
    cr, cb, cd, cp = config.coefficients
    for levels in rubrics + rubrics:  # the second pass is answered from the memo
        r, b, d, p = levels
        got = config.visitor_utility(Rubric(r, b, d, p))
        expected = cr * r + cb * b + cd * d + cp * p
        assert got == expected and type(got) is type(expected)


def test_a_float_level_is_not_answered_from_a_fraction_entry(bundle: RuleBundle) -> None:
    from engine.kernel.decision.fast.utility_memo import memoised_policy_config
    from engine.kernel.policy import Rubric

    config = memoised_policy_config(bundle.file("policy"))
    half = Fraction(1, 2)
    exact = config.visitor_utility(Rubric(half, half, half, half))
    approximate = config.visitor_utility(Rubric(0.5, 0.5, 0.5, 0.5))  # type: ignore[arg-type]
    assert type(exact) is Fraction and type(approximate) is float and abs(approximate - float(exact)) < 1e-9


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rubrics=st.lists(st.tuples(_LEVEL, _LEVEL, _LEVEL, _LEVEL), min_size=1, max_size=6),
       coefficients=st.tuples(*[st.fractions(min_value=-1, max_value=1, max_denominator=20)] * 4))
def test_deciders_of_one_policy_share_utilities_and_others_do_not(bundle: RuleBundle, rubrics: list[tuple[Any, ...]],
                                                                  coefficients: tuple[Fraction, ...]) -> None:
    """The utility table is shared by every PolicyConfig with the same coefficients (one per goal spec's decider)
    and never by one with other coefficients: each answers with its own coefficients' weighted sum."""
    from engine.kernel.decision.fast.utility_memo import MemoisedPolicyConfig, memoised_policy_config
    from engine.kernel.policy import Rubric

    policy = bundle.file("policy")
    first, second = memoised_policy_config(policy), memoised_policy_config(policy)
    assert isinstance(first, MemoisedPolicyConfig) and isinstance(second, MemoisedPolicyConfig)
    assert first._utilities is second._utilities
    names = ("relevance", "burden", "repetition", "privacy")
    other_policy = {**policy, "coefficients": {n: str(c) for n, c in zip(names, coefficients, strict=True)}}
    other = memoised_policy_config(other_policy)
    assert isinstance(other, MemoisedPolicyConfig)
    assert (other._utilities is first._utilities) == (other.coefficients == first.coefficients)
    for config in (first, other, second):
        cr, cb, cd, cp = config.coefficients
        for r, b, d, p in rubrics:
            got = config.visitor_utility(Rubric(r, b, d, p))
            expected = cr * r + cb * b + cd * d + cp * p
            assert got == expected and type(got) is type(expected)
