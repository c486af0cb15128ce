"""Where the decision layer's time goes in ``grace bench decide``: a sampling profile (py-spy) of the engine side
only (decide + record + redaction + seal + checkpoint, the timed region of ``benchmarks.decide_bench``), written
as a short text artefact (top functions by own and by inclusive time).

    python -m benchmarks.profile_decide --turns 2000 --out benchmarks/profiles/decide_after.txt

A child process builds the same seeded random cases as ``grace bench decide`` and runs the engine side on them
``--rounds`` times (the reference model is not run); py-spy records it from the start and the folded stacks of
the set-up (imports, bundle load, case generation) are left out by keeping only samples under the timed loop.
Frames are per function (``--nolineno``). The first round includes lazy loading (phone metadata, durable-rules).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.load_bench import ROOT, load_average
from benchmarks.profile_service import _pyspy, fold, write_report

LOOP = "_timed_loop"


def _engine_loop(rounds: int, turns: int, seed: int) -> None:
    from engine.cli import _configure_logging
    from engine.evaluation.differential import random_case
    from engine.kernel.decision.bundle_proofs import load_verified_bundle
    from engine.kernel.decision.decider import Decider
    from engine.rules.loader import DEFAULT_RULES_DIR

    _configure_logging()
    bundle = load_verified_bundle(DEFAULT_RULES_DIR, require_published=False)
    rng = random.Random(seed)
    cases = [random_case(rng) for _ in range(turns)]
    deciders = {c.spec.content_hash: Decider(c.spec, bundle) for c in cases}
    _timed_loop(bundle, cases, deciders, rounds)


def _timed_loop(bundle: Any, cases: list[Any], deciders: dict[str, Any], rounds: int) -> None:
    from datetime import UTC, datetime

    from engine.kernel.ports import GroundedAnswer, Proposal
    from engine.kernel.stored_state import stored_form
    from engine.kernel.turn_record import build_and_seal

    key = b"bench-key-0123456789abcdef012345"
    for _ in range(rounds):
        for case in cases:
            decision = deciders[case.spec.content_hash].decide(case.state, case.commands,
                                                               company_question=case.company_question)
            now = datetime.now(UTC)
            build_and_seal(None, key, stored_state=stored_form(decision.new_state),
                           spec=case.spec, bundle=bundle, state_before=case.state, state_after=decision.new_state,
                           proposal=Proposal(adapter="bench", adapter_version="1"), decision=decision,
                           question=None, answer=GroundedAnswer(), fail_closed=None, timings={},
                           received_at=now, completed_at=now)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=2000, help="random cases, as grace bench decide (1..20000)")
    parser.add_argument("--rounds", type=int, default=2, help="passes over the cases (1..20)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rate", type=int, default=250, help="py-spy samples per second")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "profiles" / "decide.txt")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not 1 <= args.turns <= 20000 or not 1 <= args.rounds <= 20:
        parser.error("--turns must be 1..20000 and --rounds 1..20")
    if args.child:
        _engine_loop(args.rounds, args.turns, args.seed)
        return 0
    with tempfile.TemporaryDirectory(prefix="grace-profile-decide-") as tmp:
        raw_path = Path(tmp) / "raw.txt"
        load_before = load_average()
        started = time.perf_counter()
        subprocess.run([_pyspy(), "record", "--rate", str(args.rate), "--format", "raw", "--nolineno",
                        "--output", str(raw_path), "--", sys.executable, "-m", "benchmarks.profile_decide",
                        "--child", "--turns", str(args.turns), "--rounds", str(args.rounds), "--seed", str(args.seed)],
                       check=True, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
        wall = time.perf_counter() - started
        raw = raw_path.read_text(encoding="utf-8")
    timed = "\n".join(line for line in raw.splitlines() if LOOP in line)
    total, own, inclusive, ours = fold(timed, args.top)
    lines = [
        "# py-spy profile of the engine side of `grace bench decide` (decide + record + redact + seal + checkpoint)",
        f"# command: python -m benchmarks.profile_decide --turns {args.turns} --rounds {args.rounds}",
        f"# {args.turns * args.rounds} decisions, {wall:.1f} s wall in all; load average {load_before}-"
        f"{load_average()} on {os.cpu_count()} CPUs",
        f"# samples {total} at {args.rate}/s inside the timed loop (set-up left out)",
    ]
    write_report(lines, (total, own, inclusive, ours), args.top, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
