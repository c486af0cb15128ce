"""The engine (durable-rules + validators + policy + Z3) against the spec/ reference model on random inputs."""

from __future__ import annotations

import os
import random
from fractions import Fraction

from engine.commands import Complete, Correct
from engine.decision.decider import Decider
from engine.rules_bundle import RuleBundle
from engine.text import normalize
from engine.validators import validate_value
from spec.generators import Case, random_case
from spec.reference import RefCandidate, RefObjective, RefState, decide

CASES = int(os.environ.get("GRACE_DIFFERENTIAL_CASES", "10000"))


def reference_for(case: Case, bundle: RuleBundle) -> object:
    objectives = case.spec.spec.ordered()
    by_id = {o.id: o for o in objectives}
    candidates = []
    for c in case.commands:
        ok = True
        if isinstance(c, Complete | Correct) and c.objective in by_id:
            ok = validate_value(by_id[c.objective].criterion, c.value, c.span.quote, bundle).ok
        candidates.append(RefCandidate(c.type, getattr(c, "objective", None), c.span.turn, c.span.start,
                                       c.span.end, normalize(c.span.quote), ok))
    s = case.state
    ref_state = RefState(
        turn=s.turn, bits=tuple(s.bits),
        visitor_texts={m.turn: m.text for m in s.messages if m.role == "visitor"},
        refused=frozenset(s.refused), stopped=s.stopped, uncertain=dict(s.uncertain),
        ask_counts=dict(s.ask_counts), last_asked=s.last_asked,
    )
    return decide([RefObjective(o.id, Fraction(str(o.weight)), o.criterion.kind.value) for o in objectives],
                  ref_state, candidates, bundle.file("policy"), case.company_question)


def test_engine_agrees_with_reference_model(bundle: RuleBundle) -> None:
    rng = random.Random(20261130)
    deciders: dict[str, Decider] = {}
    disagreements = []
    for index in range(CASES):
        case = random_case(rng)
        decider = deciders.setdefault(case.spec.content_hash, Decider(case.spec, bundle))
        got = decider.decide(case.state, case.commands, company_question=case.company_question)
        want = reference_for(case, bundle)
        engine_view = (
            [c.reason for c in got.candidates], tuple(got.bits_after), frozenset(got.new_state.refused),
            got.new_state.stopped, dict(got.new_state.uncertain), [a.u_v for a in got.actions[:-1]], got.chosen,
            got.fail_closed,
        )
        ref_view = (want.reasons, want.bits_after, want.refused, want.stopped, want.uncertain,  # type: ignore[attr-defined]
                    want.ask_utilities, want.chosen, None)  # type: ignore[attr-defined]
        if engine_view != ref_view:
            disagreements.append((index, engine_view, ref_view))
    assert not disagreements, f"{len(disagreements)} of {CASES} disagree; first: {disagreements[0]}"
