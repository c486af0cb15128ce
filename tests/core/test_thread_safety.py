"""Decisions from many threads at once: Z3 and durable-rules are shared process-wide and must be serialised."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor

from engine.evaluation.differential import random_case
from engine.kernel.decision.decider import Decider
from engine.rules.loader import RuleBundle


def test_parallel_decisions_match_sequential_ones(bundle: RuleBundle) -> None:
    rng = random.Random(99)
    cases = [random_case(rng) for _ in range(120)]
    deciders = {c.spec.content_hash: Decider(c.spec, bundle) for c in cases}

    def run(index: int) -> tuple[list[str], list[int], str | None]:
        case = cases[index]
        d = deciders[case.spec.content_hash].decide(case.state, case.commands, company_question=case.company_question)
        return [c.reason for c in d.candidates], d.bits_after, d.chosen

    sequential = [run(i) for i in range(len(cases))]
    with ThreadPoolExecutor(max_workers=8) as pool:
        parallel = list(pool.map(run, range(len(cases))))
    assert parallel == sequential
