"""``grace eval DATASET --out RESULTS.json``: run a dataset through the full turn runtime and score it."""

from __future__ import annotations

import argparse
from datetime import datetime
from pathlib import Path
from typing import Any

from engine.evaluation.comparison import comparison_json, comparison_table, guarantees, guarantees_text, summarize
from engine.evaluation.dataset import Dataset, load_dataset
from engine.evaluation.errors import EvaluationError
from engine.evaluation.report import metrics_by_config, metrics_table, mismatch_diff, results_json
from engine.evaluation.runner import ConversationRun, run_dataset
from engine.evaluation.targets import candidate_targets, published_demos, working_tree_bundle
from engine.output_files import check_output_folder, write_json_atomic
from engine.rules.loader import DEFAULT_RULES_DIR, load_bundle


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
    parser.add_argument("--limit", type=int, default=0,
                        help="the first N conversations only (default 0 = all): bounds a run with a slow model")
    add_now_argument(parser)
    add_llm_arguments(parser)
    parser.set_defaults(handler=run_eval)


def _aware_time(text: str) -> datetime:
    try:
        value = datetime.fromisoformat(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 time: {text!r}") from exc
    if value.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{text!r} needs a time zone (e.g. 2026-01-05T10:00:00Z)")
    return value


def add_now_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--now", type=_aware_time, default=None,
                        help="when the conversations happen if the dataset has no reference_time (ISO 8601 with "
                             "a zone); default: a fixed Monday, so results never depend on the day of the run")


def add_llm_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--llm", metavar="PROVIDER",
                        help="also run with this LLM provider of rules/llm.json (e.g. llamacpp) and print it beside "
                             "the offline baseline: fallbacks, fail-closed turns, rejections, latency, tokens")
    parser.add_argument("--llm-base-url", help="override the provider's base_url (e.g. http://127.0.0.1:8080/v1)")
    parser.add_argument("--llm-model", help="override the provider's model name")


def limited(dataset: Dataset, limit: int) -> Dataset:
    if limit < 0:
        raise EvaluationError("--limit must be 0 (all) or positive", code="eval.limit_invalid")
    if not limit:
        return dataset
    return dataset.model_copy(update={"conversations": dataset.conversations[:limit]})


def print_comparison(baseline: list[ConversationRun], llm: list[ConversationRun], label: str) -> dict[str, Any]:
    """The side-by-side table and the guarantees; returns them as JSON."""
    offline = summarize("offline", baseline)
    model = summarize(label, llm)
    checks = guarantees(offline, model)
    print(comparison_table([offline, model]))
    print("\nguarantees with the LLM proposer:")
    print(guarantees_text(checks))
    for violation in model.violations[:20]:
        print(f"    {violation}")
    return comparison_json([offline, model], checks)


def run_eval(args: argparse.Namespace) -> int:
    from llm_adapters.offline import OfflineProposer

    check_output_folder(args.out)  # before the run, not after minutes of work
    dataset = limited(load_dataset(args.dataset), args.limit)
    bundle = working_tree_bundle(args.rules) if args.unpublished_rules else load_bundle(args.rules)
    with_answerer = not args.no_answerer
    demos = (candidate_targets(args.candidate_spec, bundle, with_answerer) if args.candidate_spec
             else published_demos(with_answerer))
    if not demos:
        raise EvaluationError("no published demo goal spec found (publish with `grace goals approve`)",
                              code="eval.no_demos")
    proposer = OfflineProposer.from_bundle(bundle)
    roles = label = None
    if args.llm:
        from llm_adapters.wiring import evaluation_roles

        roles, label = evaluation_roles(bundle, args.llm, base_url=args.llm_base_url, model=args.llm_model)
    runs = run_dataset(dataset, demos, bundle=bundle, proposer=proposer, demo=args.demo, show_progress=True,
                       label="offline" if args.llm else None, now=args.now)
    metrics = metrics_by_config(runs)
    payload = results_json(dataset.name, runs, metrics, dataset.paper_results)
    llm_runs: list[ConversationRun] = []
    if roles is not None and label is not None:
        llm_runs = run_dataset(dataset, demos, bundle=bundle, proposer=proposer, demo=args.demo,
                               show_progress=True, roles=roles, label=label, now=args.now)
        payload["llm"] = results_json(dataset.name, llm_runs, metrics_by_config(llm_runs), None)
    if llm_runs and label is not None:
        print(f"dataset {dataset.name}: {len(runs)} conversations, {sum(len(r.turns) for r in runs)} visitor turns; "
              f"offline proposer {proposer.name}/{proposer.version} beside {label} (offline fallbacks)")
        payload["comparison"] = print_comparison(runs, llm_runs, label)
        write_json_atomic(args.out, payload)
        print(f"\nresults written to {args.out}")
        held = all(g["held"] for g in payload["comparison"]["guarantees"])
        return 0 if held else 1
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
