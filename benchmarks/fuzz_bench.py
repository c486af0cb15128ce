"""Mutation fuzzer over proposer command batches against the decision layer, judged by the spec/ reference model
and direct invariant checks.

    grace bench fuzz [--count 100000] [--seed 3]

Prints mutated/decided/held counts, accepted invalid transitions (must be 0) and proposals per second.
"""

from __future__ import annotations

import argparse
import logging
import time
from pathlib import Path

import structlog

from engine.evaluation.fuzz import base_batches, render, run
from engine.evaluation.targets import working_tree_bundle

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    started = time.perf_counter()
    bundle = working_tree_bundle(ROOT / "rules")
    bases = base_batches(bundle)
    commands = sum(len(b.commands) for b in bases)
    print(f"base batches: {len(bases)} real offline proposals ({commands} commands) in "
          f"{time.perf_counter() - started:.1f} s; seed {args.seed}")
    report = run(bases, bundle, args.count, args.seed)
    print(render(report))
    return 0 if report.invalid_accepted == 0 and report.disagreements == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
