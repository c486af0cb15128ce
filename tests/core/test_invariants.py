"""The Z3 transition check rejects every kind of illegal transition, and the engine fails closed on doubt."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest
import z3

from engine.kernel.commands import Complete, Span
from engine.kernel.conversation import ConversationState, Message, Role
from engine.kernel.decision.decider import Decider
from engine.kernel.decision.fast.ground_check import InvariantChecker
from engine.rules.loader import RuleBundle
from spec.z3_encodings import TransitionFacts

GOOD = TransitionFacts(
    before=[0, 0, 1, 0], z=[1, 0, 0, 0], after=[1, 0, 1, 0],
    weights=[Fraction(35, 100), Fraction(25, 100), Fraction(20, 100), Fraction(20, 100)],
    visitor_witness=[True, True, True, True], vetoed=[False, False, False, False],
    ask_utility=[Fraction(2, 5), Fraction(2, 5), Fraction(2, 5), Fraction(1, 5)],
    none_utility=Fraction(0), epsilon=Fraction(0), chosen=1,
)


def test_legal_transition_passes() -> None:
    assert InvariantChecker(250).check(GOOD).ok


@pytest.mark.invariant("I-1", "I-3", "I-5", "I-6", "I-8")
@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"after": [1, 0, 0, 0]}, "un-completes objective 3 (monotonicity)"),
        ({"z": [0, 0, 0, 0]}, "after is not before OR z"),
        ({"visitor_witness": [False, True, True, True]}, "completion witnessed by non-visitor text"),
        ({"weights": [Fraction(1, 2), Fraction(1, 4), Fraction(1, 5), Fraction(1, 5)]}, "weights sum to 1.15"),
        ({"chosen": 3}, "a lower-weight ASK chosen over a feasible higher one"),
        ({"chosen": 2}, "ASK of a complete objective"),
        ({"vetoed": [False, True, False, False]}, "ASK of a vetoed (refused) objective"),
        ({"ask_utility": [Fraction(2, 5), Fraction(-1, 5), Fraction(2, 5), Fraction(1, 5)]}, "below the ε-floor"),
        ({"chosen": None}, "NONE while an ASK is feasible"),
        ({"epsilon": Fraction(1, 10), "none_utility": Fraction(0), "chosen": None,
          "ask_utility": [Fraction(0)] * 4}, "NONE below the floor"),
    ],
)
def test_illegal_transitions_are_caught(change: dict[str, object], why: str) -> None:
    outcome = InvariantChecker(250).check(replace(GOOD, **change))  # type: ignore[arg-type]
    assert not outcome.ok, why
    assert outcome.status == "sat"


@pytest.mark.invariant("I-10")
def test_solver_unknown_fails_closed(bundle: RuleBundle, published_spec, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    text = "write to ana@example.com"
    state = ConversationState(conversation_id="c", goal_ref="r", goal_hash="h", bundle_hash="b", language="en",
                              turn=1, bits=[0, 0, 0, 0], messages=[Message(role=Role.VISITOR, turn=1, text=text)])
    start = text.index("ana")
    command = Complete(objective="contact", value="ana@example.com",
                       span=Span(turn=1, start=start, end=len(text), quote=text[start:]))
    decider = Decider(published_spec, bundle)
    assert decider.decide(state, [command]).bits_after == [0, 0, 0, 1]
    monkeypatch.setattr(InvariantChecker, "evaluate", lambda *a, **k: None)  # closed-formula evaluation undecided
    monkeypatch.setattr(z3.Solver, "check", lambda self, *a: z3.unknown)
    decider.checker = InvariantChecker(250)  # the shared checker memoised this formula's unsat: ask a new one
    decision = decider.decide(state, [command])
    assert decision.fail_closed == "invariant.unknown"
    assert decision.bits_after == [0, 0, 0, 0]
    assert decision.chosen is None
    assert decision.new_state.bits == state.bits
