"""Decision latency per turn: acceptance rules + validators + policy + Z3 check + audit redaction/hashing.

No proposer and no retrieval. The reference model (spec/reference.py) runs on the same inputs in the same
process; the ratio engine/reference is printed beside the absolute numbers.
"""

from __future__ import annotations

import random
import statistics
import time
from datetime import UTC, datetime

from engine.evaluation.differential import Case, random_case, reference_decision
from engine.kernel.decision.decider import Decider
from engine.kernel.ports import GroundedAnswer, Proposal
from engine.kernel.stored_state import stored_form
from engine.kernel.turn_record import build_and_seal
from engine.progress import progress
from engine.rules.loader import RuleBundle


def engine_turn(case: Case, deciders: dict[str, Decider], bundle: RuleBundle, key: bytes) -> None:
    """The engine side of one case, as timed: decide, build the audit record, redact and seal it for the store
    (as a turn does)."""
    decision = deciders[case.spec.content_hash].decide(case.state, case.commands,
                                                       company_question=case.company_question)
    now = datetime.now(UTC)
    build_and_seal(None, key, stored_state=stored_form(decision.new_state),
                   spec=case.spec, bundle=bundle, state_before=case.state, state_after=decision.new_state,
                   proposal=Proposal(adapter="bench", adapter_version="1"), decision=decision,
                   question=None, answer=GroundedAnswer(), fail_closed=None, timings={},
                   received_at=now, completed_at=now)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run(bundle: RuleBundle, turns: int = 2000, seed: int = 7) -> dict[str, float]:
    rng = random.Random(seed)
    cases = [random_case(rng) for _ in range(turns)]
    deciders = {c.spec.content_hash: Decider(c.spec, bundle) for c in cases}
    key = b"bench-key-0123456789abcdef012345"
    for case in cases[:50]:  # warm-up: solver caches, durable-rules host
        deciders[case.spec.content_hash].decide(case.state, case.commands)
    engine_ms: list[float] = []
    reference_ms: list[float] = []
    for case in progress(cases, "decide"):  # the bar advances outside the timed region
        t0 = time.perf_counter()
        engine_turn(case, deciders, bundle, key)
        engine_ms.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        reference_decision(case, bundle)
        reference_ms.append((time.perf_counter() - t0) * 1000)
    return {
        "turns": float(turns),
        "engine_p50_ms": _percentile(engine_ms, 0.50),
        "engine_p99_ms": _percentile(engine_ms, 0.99),
        "engine_mean_ms": statistics.fmean(engine_ms),
        "reference_p50_ms": _percentile(reference_ms, 0.50),
        "reference_p99_ms": _percentile(reference_ms, 0.99),
        "ratio_p50": _percentile(engine_ms, 0.50) / max(_percentile(reference_ms, 0.50), 1e-9),
    }


def report(result: dict[str, float]) -> str:
    return (
        f"decision latency over {int(result['turns'])} random turns (rules + validators + Z3 + audit hashing)\n"
        f"  engine     p50 {result['engine_p50_ms']:.3f} ms   p99 {result['engine_p99_ms']:.3f} ms   "
        f"mean {result['engine_mean_ms']:.3f} ms\n"
        f"  reference  p50 {result['reference_p50_ms']:.3f} ms   p99 {result['reference_p99_ms']:.3f} ms\n"
        f"  ratio engine/reference at p50: {result['ratio_p50']:.1f}x"
    )
