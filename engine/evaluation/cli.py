"""``grace eval DATASET --out RESULTS.json``: run a dataset through the full turn runtime and score it."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from engine.evaluation.dataset import load_dataset
from engine.evaluation.errors import EvaluationError
from engine.evaluation.report import metrics_by_config, metrics_table, mismatch_diff, results_json
from engine.evaluation.runner import run_dataset
from engine.evaluation.targets import candidate_targets, published_demos, working_tree_bundle
from engine.output_files import check_output_folder, write_json_atomic
from engine.rules_bundle import DEFAULT_RULES_DIR, load_bundle


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "eval", help="run an evaluation dataset through the turn runtime and print STA/TSA/MC/EP/ER")
    parser.add_argument("dataset", type=Path, help="dataset JSON in the paper_traces.json format")
    parser.add_argument("--out", type=Path, required=True, help="where to write the per-turn results JSON")
    parser.add_argument("--demo", default="auto", help="demo to run every conversation on (default: by config)")
    parser.add_argument("--rules", type=Path, default=DEFAULT_RULES_DIR, help="rule bundle folder")
    parser.add_argument("--unpublished-rules", action="store_true",
                        help="use the rule files as they are now, published or not (development only)")
    parser.add_argument("--candidate-spec", type=Path, action="append", default=[],
                        help="evaluate this unpublished goal spec instead of the published demos (repeatable)")
    parser.add_argument("--no-answerer", action="store_true", help="skip retrieval (state metrics only)")
    parser.add_argument("--quiet", action="store_true", help="print the metrics only, not the mismatch diff")
    parser.set_defaults(handler=run_eval)


def run_eval(args: argparse.Namespace) -> int:
    from llm_adapters.offline import OfflineProposer

    check_output_folder(args.out)  # before the run, not after minutes of work
    dataset = load_dataset(args.dataset)
    bundle = working_tree_bundle(args.rules) if args.unpublished_rules else load_bundle(args.rules)
    with_answerer = not args.no_answerer
    demos = (candidate_targets(args.candidate_spec, bundle, with_answerer) if args.candidate_spec
             else published_demos(with_answerer))
    if not demos:
        raise EvaluationError("no published demo goal spec found (publish with `grace goals approve`)",
                              code="eval.no_demos")
    proposer = OfflineProposer.from_bundle(bundle)
    runs = run_dataset(dataset, demos, bundle=bundle, proposer=proposer, demo=args.demo, show_progress=True)
    metrics = metrics_by_config(runs)
    payload = results_json(dataset.name, runs, metrics, dataset.paper_results)
    write_json_atomic(args.out, payload)  # never leave a half-written results file
    print(f"dataset {dataset.name}: {len(runs)} conversations, "
          f"{sum(len(r.turns) for r in runs)} visitor turns; proposer {proposer.name}/{proposer.version}")
    print(metrics_table(metrics, dataset.paper_results))
    if not args.quiet:
        names = {name: config.ids for name, config in dataset.configs.items()}
        print("\nmismatching turns:")
        print(mismatch_diff(runs, names))
    print(f"\nresults written to {args.out}")
    return 0
