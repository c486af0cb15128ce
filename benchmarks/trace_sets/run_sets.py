"""Score the natural-language query sets against the retriever (KG-3) and print one table per directory.

    .venv/bin/python benchmarks/trace_sets/run_sets.py [--failures] [--only kansas]

Reads the directories from ../shared/data/directories relative to the project root (never copied in).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import structlog

PROJECT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(PROJECT))

from benchmarks.directory.data import shared_directories  # noqa: E402
from benchmarks.directory.sets import format_set_report, load_set, score_set  # noqa: E402
from engine.directory.directory_rules import load_rules  # noqa: E402
from engine.directory.retriever import TraceRetriever  # noqa: E402

SETS = ["kansas", "sv", "ny", "dc"]
REGION_SETS = ["gulf_coast", "western_mass", "nw_ohio"]  # fresh sets on HAARRRvest regions (regions/README.md)
REGION2_SETS = ["nw_nc", "southern_co", "mercer_nj"]  # blind sets on three more regions (regions2/README.md)
REGION3_SETS = ["western_wa", "sf_marin", "hawaii_island"]  # blind third batch (regions3/README.md)
REGION4_SETS = ["union_nj", "hudson_nj", "greater_boston"]  # blind fourth batch (regions4/README.md)
REGION5_SETS = ["metro_detroit", "metro_atlanta", "baltimore_md"]  # blind fifth batch (regions5/README.md)
REGION6_SETS = ["philadelphia_pa", "charlotte_nc", "passaic_nj"]  # blind sixth batch (regions6/README.md)


def _judge(folder: str, name: str) -> Callable[[dict[str, Any]], set[int]] | None:
    """The batch's own gold evaluator (acceptable records of a constraint dict), to split the off-gold
    recommendations into those failing a gold constraint and those failing none; None for the first four sets."""
    modules = {"regions": "benchmarks.trace_sets.regions.build_regions",
               "regions2": "benchmarks.trace_sets.regions2.build_regions2",
               "regions3": "benchmarks.trace_sets.regions3.build_regions3",
               "regions4": "benchmarks.trace_sets.regions4.build_regions4",
               "regions5": "benchmarks.trace_sets.regions5.build_regions5"}
    if folder not in modules:
        return None
    evaluate = importlib.import_module(modules[folder]).evaluate
    return lambda constraints: set(evaluate(name, constraints)[1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--failures", action="store_true", help="list every query not scored 1/1")
    parser.add_argument("--only", action="append", help="directory set name (repeatable)")
    parser.add_argument("--regions", action="store_true", help="the fresh region sets instead of the four")
    parser.add_argument("--regions2", action="store_true", help="the blind second batch of region sets")
    parser.add_argument("--regions3", action="store_true", help="the blind third batch of region sets")
    parser.add_argument("--regions4", action="store_true", help="the blind fourth batch of region sets")
    parser.add_argument("--regions5", action="store_true", help="the blind fifth batch of region sets")
    parser.add_argument("--regions6", action="store_true", help="the blind sixth batch of region sets")
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    batches = ((args.regions6, REGION6_SETS), (args.regions5, REGION5_SETS), (args.regions4, REGION4_SETS),
               (args.regions3, REGION3_SETS), (args.regions2, REGION2_SETS), (args.regions, REGION_SETS))
    default = next((sets for chosen, sets in batches if chosen), SETS)
    folders = {**dict.fromkeys(REGION_SETS, "regions"), **dict.fromkeys(REGION2_SETS, "regions2"),
               **dict.fromkeys(REGION3_SETS, "regions3"), **dict.fromkeys(REGION4_SETS, "regions4"),
               **dict.fromkeys(REGION5_SETS, "regions5"), **dict.fromkeys(REGION6_SETS, "regions6")}
    for name in args.only or default:
        folder = folders.get(name, "")
        payload = load_set(PROJECT / "benchmarks" / "trace_sets" / folder / f"{name}.json")
        if payload["directory"].startswith("benchmarks/"):  # committed benchmark data, not the shared folder
            directory = PROJECT / payload["directory"]
        else:
            root = shared_directories()
            if root is None:
                print("shared directories not found (set GRACE_SHARED_DIRECTORIES)", file=sys.stderr)
                return 2
            directory = root / payload["directory"]
        retriever = TraceRetriever.from_files(directory, PROJECT / payload["mapping"], rules=load_rules())
        totals = score_set(retriever, payload, judge=_judge(folder, name))
        print(format_set_report(name, totals, args.failures), end="\n\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
