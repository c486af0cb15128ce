"""Instructions executed per turn by the engine side of ``grace bench decide`` and by the reference model,
counted by valgrind (cachegrind, no cache simulation): a measure the other processes on a shared machine do
not move, unlike the wall-clock percentiles of the bench itself.

    python -m benchmarks.decide_instructions --turns 300

Three child runs on the same seeded random cases as ``grace bench decide`` (after the same kind of warm-up):
set-up only, set-up + the engine side on ``--turns`` cases, set-up + the reference on them. The differences
divided by ``--turns`` are the per-turn counts (means, not percentiles). Needs ``valgrind`` on the PATH; each
child runs ~50x slower than natively (about a minute for 300 turns).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys

from benchmarks.load_bench import ROOT

WARM_UP = 60
KEY = b"bench-key-0123456789abcdef012345"


def _child(mode: str, turns: int, seed: int) -> None:
    from benchmarks.decide_bench import engine_turn
    from engine.cli import _configure_logging
    from engine.evaluation.differential import Case, random_case, reference_decision
    from engine.kernel.decision.bundle_proofs import load_verified_bundle
    from engine.kernel.decision.decider import Decider
    from engine.rules.loader import DEFAULT_RULES_DIR

    _configure_logging()
    bundle = load_verified_bundle(DEFAULT_RULES_DIR, require_published=False)
    rng = random.Random(seed)
    cases = [random_case(rng) for _ in range(WARM_UP + turns)]
    deciders = {c.spec.content_hash: Decider(c.spec, bundle) for c in cases}

    def engine(case: Case) -> None:  # the timed region of benchmarks.decide_bench
        engine_turn(case, deciders, bundle, KEY)

    for case in cases[:WARM_UP]:  # lazy loading and caches of both sides, outside the counted difference
        engine(case)
        reference_decision(case, bundle)
    for case in cases[WARM_UP:]:
        if mode == "engine":
            engine(case)
        elif mode == "reference":
            reference_decision(case, bundle)


def _count(mode: str, turns: int, seed: int) -> int:
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("error bench.no_valgrind: valgrind is not on the PATH")
    done = subprocess.run(
        [valgrind, "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", sys.executable, "-m",
         "benchmarks.decide_instructions", "--child", mode, "--turns", str(turns), "--seed", str(seed)],
        cwd=ROOT, capture_output=True, text=True, check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"},
    )
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if found is None:
        raise SystemExit("error bench.no_count: valgrind printed no instruction count")
    return int(found.group(1).replace(",", ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=300, help="counted turns (1..5000)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--child", choices=("setup", "engine", "reference"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not 1 <= args.turns <= 5000:
        parser.error("--turns must be 1..5000")
    if args.child:
        _child(args.child, args.turns, args.seed)
        return 0
    base = _count("setup", args.turns, args.seed)
    engine = (_count("engine", args.turns, args.seed) - base) / args.turns
    reference = (_count("reference", args.turns, args.seed) - base) / args.turns
    print(f"instructions per turn over {args.turns} random turns (valgrind; means)")
    print(f"  engine side  {engine / 1e6:8.3f} M")
    print(f"  reference    {reference / 1e6:8.3f} M")
    print(f"  ratio engine/reference: {engine / reference:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
