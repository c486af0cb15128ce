"""Contact provenance and injection attacks through the real TurnRuntime on every demo and benchmark company.

    grace bench adversarial [--attacks 1200] [--controls 240] [--seed 11] [--modes offline,adversarial]
                            [--families url,markup,...]   (default: every family, in rotation)

Prints tried/held per attack family and proposer mode, illegitimate acceptances, and controls completed.
Exit status 1 when any attack is accepted or any control fails to complete (numbers, and a verdict).
"""

from __future__ import annotations

import argparse
import logging
import time
from pathlib import Path

import structlog

from engine.evaluation.adversarial import FAMILIES, generate, load_companies, render, run
from engine.evaluation.targets import working_tree_bundle

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attacks", type=int, default=1200)
    parser.add_argument("--controls", type=int, default=240)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--modes", default="offline,adversarial")
    parser.add_argument("--families", default=",".join(FAMILIES), help="attack families, comma-separated")
    args = parser.parse_args(argv)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    started = time.perf_counter()
    bundle = working_tree_bundle(ROOT / "rules")
    companies = load_companies(bundle)
    print(f"companies: {', '.join(c.name for c in companies)} (loaded in {time.perf_counter() - started:.1f} s)")
    cases = generate(companies, args.attacks, args.seed, controls=args.controls,
                     families=tuple(args.families.split(",")))
    report = run(companies, cases, bundle, modes=tuple(args.modes.split(",")))
    print(f"attack cases: {sum(not c.legit for c in cases)}, control cases: {sum(c.legit for c in cases)}, "
          f"seed {args.seed}")
    print(render(report))
    return 0 if report.illegitimate == 0 and report.controls_completed == report.controls_tried else 1


if __name__ == "__main__":
    raise SystemExit(main())
