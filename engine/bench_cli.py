"""``grace bench decide``: decision latency p50/p99 and the ratio to the reference model."""

from __future__ import annotations

import argparse
from pathlib import Path

from engine.rules_bundle import DEFAULT_RULES_DIR
from engine.verified_bundle import load_verified_bundle


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    bench = sub.add_parser("bench", help="benchmarks that print numbers")
    bsub = bench.add_subparsers(dest="bench_command", required=True)
    decide = bsub.add_parser("decide", help="decision latency per turn vs the reference model")
    decide.add_argument("--turns", type=int, default=2000)
    decide.add_argument("--seed", type=int, default=7)
    decide.add_argument("--rules", type=Path, default=DEFAULT_RULES_DIR)
    decide.set_defaults(handler=_decide)


def _decide(args: argparse.Namespace) -> int:
    from benchmarks.decide_bench import report, run

    bundle = load_verified_bundle(args.rules, require_published=False)
    print(report(run(bundle, turns=args.turns, seed=args.seed)))
    return 0
