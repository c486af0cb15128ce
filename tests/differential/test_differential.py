"""The engine (durable-rules + validators + policy + Z3) against the spec/ reference model on random inputs."""

from __future__ import annotations

import os
import random

from engine.decision.decider import Decider
from engine.decision.provenance import ContactIndex, ProvenanceContext
from engine.rules_bundle import RuleBundle
from spec.generators import random_case, reference_decision

CASES = int(os.environ.get("GRACE_DIFFERENTIAL_CASES", "10000"))


def test_engine_agrees_with_reference_model(bundle: RuleBundle) -> None:
    rng = random.Random(20261130)
    deciders: dict[str, Decider] = {}
    disagreements = []
    for index in range(CASES):
        case = random_case(rng)
        key = f"{case.spec.content_hash}{case.company_texts}"
        if key not in deciders:
            company = ContactIndex.from_texts(case.company_texts, "ES")
            deciders[key] = Decider(case.spec, bundle, company)
        decider = deciders[key]
        context = ProvenanceContext(decider.company, case.passages)
        got = decider.decide(case.state, case.commands, company_question=case.company_question, context=context)
        want = reference_decision(case, bundle)
        engine_view = (
            [c.reason for c in got.candidates], tuple(got.bits_after), frozenset(got.new_state.refused),
            got.new_state.stopped, dict(got.new_state.uncertain), [a.u_v for a in got.actions[:-1]], got.chosen,
            got.fail_closed,
        )
        ref_view = (want.reasons, want.bits_after, want.refused, want.stopped, want.uncertain,
                    want.ask_utilities, want.chosen, None)
        if engine_view != ref_view:
            disagreements.append((index, engine_view, ref_view))
    assert not disagreements, f"{len(disagreements)} of {CASES} disagree; first: {disagreements[0]}"
