"""Run the TRACE benchmark on the four shared directories (every variant) and print one summary table.

    /work/venv/bin/python benchmarks/trace_bench.py [--seed N] [--json-out FILE]

Reads ../shared/data/directories relative to the project root (never copied into the project).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

import structlog

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from benchmarks.directory.data import shared_directories  # noqa: E402
from benchmarks.directory.runner import format_report, run_bench  # noqa: E402
from engine.directory.directory_rules import load_rules  # noqa: E402
from engine.directory.retriever import TraceRetriever, Variant  # noqa: E402

MAPPINGS = PROJECT / "demos" / "directories" / "mappings"
DIRECTORIES = [
    ("kansas/pantry_data.json", "kansas.json"),
    ("haarrrvest/second_harvest_of_silicon_valley_ca_raw.json", "second_harvest_silicon_valley.json"),
    ("haarrrvest/the_food_pantries_org_raw.json", "the_food_pantries_org_ny.json"),
    ("haarrrvest/capital_area_food_bank_dc_raw.json", "capital_area_food_bank_dc.json"),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--latency-queries", type=int, default=200)
    parser.add_argument("--json-out", default=None)
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    shared = shared_directories()
    if shared is None:
        print("shared directories not found (set GRACE_SHARED_DIRECTORIES)", file=sys.stderr)
        return 2
    summary: dict[str, dict[str, Any]] = {}
    for data, mapping in DIRECTORIES:
        started = time.perf_counter()
        retriever = TraceRetriever.from_files(shared / data, MAPPINGS / mapping, rules=load_rules())
        setup = (time.perf_counter() - started) * 1000
        report = run_bench(retriever, list(Variant), args.seed, args.latency_queries)
        report.setup_ms = setup
        print(format_report(report), end="\n\n")
        summary[report.directory] = report.as_dict()
    print(f"{'directory':20} {'variant':7} {'P@3':>6} {'R@3':>6} {'F1@3':>6} {'CSR':>8} {'halluc':>8}")
    for name, report_data in summary.items():
        for variant, families in report_data["variants"].items():
            s = families["all"]
            print(f"{name:20} {variant:7} {s['P@3']:>6.3f} {s['R@3']:>6.3f} {s['F1@3']:>6.3f} {s['CSR']:>8.2%} "
                  f"{s['hallucination']:>8.2%}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
