"""``grace bench decide``: decision latency p50/p99 and the ratio to the reference model."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from pathlib import Path

from engine.evaluation.onboarding.cli import register_bench as register_onboarding
from engine.evaluation.sgd.cli import register_bench as register_sgd
from engine.kernel.decision.bundle_proofs import load_verified_bundle
from engine.rules.loader import DEFAULT_RULES_DIR


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    bench = sub.add_parser("bench", help="benchmarks that print numbers")
    bsub = bench.add_subparsers(dest="bench_command", required=True)
    decide = bsub.add_parser("decide", help="decision latency per turn vs the reference model")
    decide.add_argument("--turns", type=int, default=2000)
    decide.add_argument("--seed", type=int, default=7)
    decide.add_argument("--rules", type=Path, default=DEFAULT_RULES_DIR)
    decide.set_defaults(handler=_decide)
    for name, module, text in (
        ("rag", "benchmarks.rag_bench",
         "grounded answering on labelled sets (demo sets, or --corpus DIR --set FILE, or --sets DIR): answer rate, "
         "correct citation, key facts, abstention silent/near miss, padding, non-questions, p50/p99"),
        ("turns", "benchmarks.turn_bench", "full offline turns (proposer + decision + store): turns/s, p50/p99"),
        ("load", "benchmarks.load_bench", "HTTP load: concurrent conversations against a local server"),
        ("adversarial", "benchmarks.adversarial_bench",
         "contact provenance and injection attacks on every company, offline and adversarial proposer: tried/held"),
        ("fuzz", "benchmarks.fuzz_bench", "mutation fuzzer over proposer command batches: mutated/held/time"),
        ("crash", "benchmarks.crash_bench", "kill -9 the HTTP service at random points: acknowledged turns, chain"),
    ):
        p = bsub.add_parser(name, help=text + " (other arguments go to the benchmark)", add_help=False)
        p.set_defaults(handler=_forward(module), forward_extra=True)
    register_sgd(bsub)
    register_onboarding(bsub)


def _forward(module_name: str) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        module = importlib.import_module(module_name)
        result: int = module.main(list(getattr(args, "args", [])))  # no extra options: the defaults
        return result

    return run


def _decide(args: argparse.Namespace) -> int:
    from benchmarks.decide_bench import report, run

    bundle = load_verified_bundle(args.rules, require_published=False)
    print(report(run(bundle, turns=args.turns, seed=args.seed)))
    return 0
