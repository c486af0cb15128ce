"""The offline proposer's time against message length (issue 9: linear growth; issue 11: hostile shapes up to
50,000 characters). Runs propose() on messages of growing length and several shapes, on every goal spec given.

    .venv/bin/python -m benchmarks.proposer_length_bench [--spec PATH ...] [--rounds 5] [--lengths 2500,50000]

Prints the median milliseconds per message, the ratio to the shortest length, and the growth exponent k of
time ~ length^k between the shortest and the longest message (1.0 is linear, 2.0 quadratic). The service
refuses messages above rules/runtime.json max_message_chars; the proposer is measured beyond that on purpose.
Numbers, not assertions.
"""

from __future__ import annotations

import argparse
import logging
import math
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import structlog

from engine.evaluation.targets import working_tree_bundle
from engine.goals.publication import spec_hash
from engine.kernel.conversation import Message, Role
from engine.kernel.goal_models import GoalSpec, PublishedGoalSpec
from engine.kernel.ports import ProposerInput
from engine.rules.loader import DEFAULT_RULES_DIR
from llm_adapters.offline import OfflineProposer

ROOT = Path(__file__).resolve().parents[1]
SPECS = [ROOT / "demos/real_estate/goal_spec.json", ROOT / "benchmarks/companies/wedding-venue/goal_spec.json",
         ROOT / "benchmarks/companies/language-school/goal_spec.json"]
LENGTHS = (2500, 5000, 10000, 50000)
SHAPES: dict[str, Callable[[int], str]] = {
    "prose": lambda n: ("Hello, we are looking for a venue for about 120 guests in June, budget around 9k. " * n)[:n],
    "digits '1 '": lambda n: ("1 " * n)[:n],
    "digits '1, '": lambda n: ("1, " * n)[:n],
    "sentences '1. '": lambda n: ("1. " * n)[:n],
    "one word": lambda n: "a" * n,
    "counts": lambda n: ("12 guests, 3 nights and my partner and I, " * n)[:n],
    "spanish": lambda n: ("Seremos unos treinta invitados el sábado 4 de septiembre, presupuesto 5000 euros. " * n)[:n],
    # hostile shapes (issue 11): runs that look like contact data, amounts, dates or cue words, without end
    "phone runs": lambda n: ("612 345 678 " * n)[:n],
    "one digit run": lambda n: "6" * n,
    "e-mail runs": lambda n: ("ana@example.com " * n)[:n],
    "one e-mail": lambda n: "a" * max(1, n - 12) + "@example.com",
    "cue 'not'": lambda n: ("not " * n)[:n],
    "cue 'budget'": lambda n: ("budget " * n)[:n],
    "amounts": lambda n: ("5000 euros " * n)[:n],
    "dates": lambda n: ("June 3 " * n)[:n],
    "place names": lambda n: ("Madrid " * n)[:n],
    "ranges": lambda n: ("between 3 and 4 " * n)[:n],
    "dashes '1-'": lambda n: ("1-" * n)[:n],
}


def _published(path: Path) -> PublishedGoalSpec:
    spec = GoalSpec.model_validate_json(path.read_bytes())
    return PublishedGoalSpec(spec=spec, version=1, content_hash=spec_hash(spec), approved_by="bench",
                             approved_at=datetime(2026, 1, 1, tzinfo=UTC))


def _median_ms(proposer: OfflineProposer, spec: PublishedGoalSpec, text: str, rounds: int) -> float:
    objectives = spec.spec.ordered()
    request = ProposerInput(
        spec=spec, bits=[0] * len(objectives), language=spec.spec.default_language, turn=1, history=[],
        message=Message(role=Role.VISITOR, turn=1, text=text), last_asked=objectives[0].id,
        reference_time=datetime(2026, 12, 1, 12, tzinfo=UTC),
    )
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        proposer.propose(request)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", type=Path, action="append", help="goal spec JSON (default: three specs)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--lengths", default=",".join(str(n) for n in LENGTHS), help="comma-separated lengths")
    parser.add_argument("--shapes", default="", help="comma-separated shape names (default: all)")
    args = parser.parse_args(argv)
    lengths = tuple(int(n) for n in args.lengths.split(","))
    shapes = {k: v for k, v in SHAPES.items() if not args.shapes or k in args.shapes.split(",")}
    worst = (0.0, "")
    logging.disable(logging.CRITICAL)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.CRITICAL))
    proposer = OfflineProposer.from_bundle(working_tree_bundle(DEFAULT_RULES_DIR))
    for path in args.spec or SPECS:
        spec = _published(path)
        proposer.propose(ProposerInput(spec=spec, bits=[0] * len(spec.spec.objectives), language="en", turn=1,
                                       history=[], message=Message(role=Role.VISITOR, turn=1, text="warm up")))
        print(f"\n{spec.spec.id}: median ms of propose() over {args.rounds} rounds (ratio to {lengths[0]} chars)")
        print(f"{'shape':18}" + "".join(f"{n:>17}" for n in lengths) + "   exponent k")
        for name, make in shapes.items():
            cells = [_median_ms(proposer, spec, make(n), args.rounds) for n in lengths]
            k = math.log(cells[-1] / cells[0]) / math.log(lengths[-1] / lengths[0]) if cells[0] > 0 else float("nan")
            worst = max(worst, (k, f"{spec.spec.id} / {name}"))
            print(f"{name:18}" + "".join(f"{ms:9.1f} ({ms / cells[0]:5.1f})" for ms in cells) + f"   {k:5.2f}")
    print(f"\nlargest growth exponent: {worst[0]:.2f} ({worst[1]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
