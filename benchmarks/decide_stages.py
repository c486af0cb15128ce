"""Where the engine side of ``grace bench decide`` spends its time, stage by stage, beside the reference model.

    python -m benchmarks.decide_stages --turns 2000

Same seeded random cases and the same calls as ``benchmarks.decide_bench`` (decide, build_record, then the
parts of seal_for_store: record dump, redaction, seal, stored form, state hash + checkpoint), each stage timed
on its own in CPU time (``time.process_time``: less disturbed by other processes on a shared machine than the
wall clock, still an upper bound under load). Prints p50 and mean per stage in ms and the p50 sums as ratios
to the reference. A diagnostic: ``grace bench decide`` stays the measure of record.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from datetime import UTC, datetime

from audit.chain import SealedHead, checkpoint, seal_dump, state_hash
from audit.redaction import redact_record
from benchmarks.load_bench import load_average
from engine.cli import _configure_logging
from engine.evaluation.differential import random_case, reference_decision
from engine.kernel.decision.bundle_proofs import load_verified_bundle
from engine.kernel.decision.decider import Decider
from engine.kernel.ports import GroundedAnswer, Proposal
from engine.kernel.stored_state import stored_form
from engine.kernel.turn_record import build_record
from engine.rules.loader import DEFAULT_RULES_DIR

STAGES = ("decide", "build_record", "record_dump", "redact", "seal", "stored_form", "checkpoint")
KEY = b"bench-key-0123456789abcdef012345"


def run(turns: int, seed: int) -> dict[str, list[float]]:
    bundle = load_verified_bundle(DEFAULT_RULES_DIR, require_published=False)
    rng = random.Random(seed)
    cases = [random_case(rng) for _ in range(turns)]
    deciders = {c.spec.content_hash: Decider(c.spec, bundle) for c in cases}
    for case in cases[:50]:  # warm-up, as grace bench decide
        deciders[case.spec.content_hash].decide(case.state, case.commands)
    times: dict[str, list[float]] = {name: [] for name in (*STAGES, "reference")}
    clock = time.process_time
    for case in cases:
        marks = [clock()]
        decision = deciders[case.spec.content_hash].decide(case.state, case.commands,
                                                           company_question=case.company_question)
        marks.append(clock())
        now = datetime.now(UTC)
        record = build_record(spec=case.spec, bundle=bundle, state_before=case.state, state_after=decision.new_state,
                              proposal=Proposal(adapter="bench", adapter_version="1"), decision=decision,
                              question=None, answer=GroundedAnswer(), fail_closed=None, timings={},
                              received_at=now, completed_at=now)
        marks.append(clock())
        body = record.model_dump(mode="json")
        marks.append(clock())
        redacted = redact_record(body, KEY)
        marks.append(clock())
        sealed = seal_dump(redacted, None, validated=redacted == body)  # as build_and_seal
        marks.append(clock())
        stored = stored_form(decision.new_state)
        marks.append(clock())
        head = SealedHead(sealed["conversation_id"], sealed["seq"], sealed["hash"])
        checkpoint(head.conversation_id, head.seq, head.hash, KEY, state_hash=state_hash(stored), counter=1)
        marks.append(clock())
        for name, start, end in zip(STAGES, marks[:-1], marks[1:], strict=True):
            times[name].append((end - start) * 1000)
        start = clock()
        reference_decision(case, bundle)
        times["reference"].append((clock() - start) * 1000)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=2000, help="random cases (1..20000)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    if not 1 <= args.turns <= 20000:
        parser.error("--turns must be 1..20000")
    _configure_logging()
    load_before = load_average()
    times = run(args.turns, args.seed)
    reference = statistics.median(times["reference"])
    print(f"stages of the engine side over {args.turns} random turns (CPU ms; load average {load_before}-"
          f"{load_average()} on {os.cpu_count()} CPUs)")
    for name in (*STAGES, "reference"):
        values = times[name]
        print(f"  {name:<13} p50 {statistics.median(values):7.3f}   mean {statistics.fmean(values):7.3f}")
    engine = sum(statistics.median(times[name]) for name in STAGES)
    audit = engine - statistics.median(times["decide"])
    print(f"  sum of stage p50s {engine:.3f} ms = {engine / reference:.2f}x the reference p50 "
          f"(decision alone {statistics.median(times['decide']) / reference:.2f}x, audit trail {audit:.3f} ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
