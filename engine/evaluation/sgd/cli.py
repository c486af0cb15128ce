"""``grace bench sgd``: GRACE on the SGD train and dev splits per service, per split, per criterion kind, per
cause and per failure class, beside two baselines.

    grace bench sgd [--sgd DIR] [--splits train,dev] [--services A,B] [--limit-per-service N] [--now ISO]
                    [--out FILE] [--unpublished-rules] [--llm PROVIDER [--llm-base-url URL] [--llm-model NAME]]

The default run takes every single-service dialogue of every benchmarked service in train and dev (34 services,
6,111 dialogues; several minutes on one core); ``--splits dev`` is issue 9's figure; ``--limit-per-service N``
takes the first N of each split per service for a quicker look. The first dialogues of a service are not a fair
sample (they come from one collection batch), so report numbers of the full run. Conversations happen at ``--now``,
else on the corpus's own "today" (its schemas' default dates: 2019-03-01 for SGD), else at a fixed Monday: a
result never depends on the day the command runs.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from engine.evaluation.cli import add_llm_arguments, add_now_argument
from engine.evaluation.sgd.mapping import DEFAULT_BENCH_DIR, PROJECT_ROOT
from engine.output_files import write_json_atomic
from engine.rules.loader import DEFAULT_RULES_DIR

DEFAULT_SGD_DIR = PROJECT_ROOT.parent / "shared" / "data" / "sgd"
DEFAULT_LIMIT = 0  # all
DEFAULT_SPLITS = ("train", "dev")


def register_bench(bsub: Any) -> None:
    parser: argparse.ArgumentParser = bsub.add_parser(
        "sgd", help="real dialogues (SGD dev split): STA/TSA/EP/ER/MC per service and kind vs two baselines")
    parser.add_argument("--sgd", type=Path, default=DEFAULT_SGD_DIR, help="SGD folder (holds dev/schema.json)")
    parser.add_argument("--services", default="", help="comma-separated services (default: every benchmarked one)")
    parser.add_argument("--splits", default=",".join(DEFAULT_SPLITS),
                        help="comma-separated SGD splits to read (default train,dev; 'dev' alone is issue 9's figure)")
    parser.add_argument("--limit-per-service", type=int, default=DEFAULT_LIMIT,
                        help="first N single-service dialogues per service and split (default 0 = all)")
    parser.add_argument("--out", type=Path, help="write the results (metrics, failure kinds, per-turn states) here")
    parser.add_argument("--rules", type=Path, default=DEFAULT_RULES_DIR, help="rule bundle folder")
    parser.add_argument("--unpublished-rules", action="store_true",
                        help="use the rule files as they are now, published or not (development only)")
    parser.add_argument("--bench-dir", type=Path, default=DEFAULT_BENCH_DIR,
                        help="folder with specs/<service>.json and mappings/<service>.json")
    parser.add_argument("--failures", type=int, default=10, help="missed-evidence kinds to print per service")
    parser.add_argument("--per-objective", action="store_true", help="also print GRACE's scores per objective")
    parser.add_argument("--classes", type=int, default=2, help="sample utterances to print per failure class")
    add_now_argument(parser)
    add_llm_arguments(parser)
    parser.set_defaults(handler=run_sgd_bench)


def run_sgd_bench(args: argparse.Namespace) -> int:
    from engine.evaluation.dataset import DEFAULT_REFERENCE_TIME
    from engine.evaluation.sgd.bench import prepare, run_benchmark
    from engine.evaluation.sgd.errors import SgdError
    from engine.evaluation.sgd.report import (
        cause_table,
        class_table,
        failure_report,
        kind_table,
        objective_table,
        results_json,
        service_table,
        speed_line,
        split_table,
    )
    from engine.evaluation.targets import working_tree_bundle
    from engine.rules.loader import load_bundle
    from llm_adapters.offline import OfflineProposer

    if args.limit_per_service < 0:
        raise SgdError("--limit-per-service must be 0 (all) or positive", code="sgd.limit_invalid")
    services = [s.strip() for s in args.services.split(",") if s.strip()]
    splits = [s.strip() for s in args.splits.split(",") if s.strip()]
    if not splits:
        raise SgdError("--splits needs at least one split (train, dev)", code="sgd.split_unknown")
    prepared = prepare(args.sgd, args.bench_dir, services or None, splits)  # data errors first, before the rules load
    bundle = working_tree_bundle(args.rules) if args.unpublished_rules else load_bundle(args.rules)
    proposer = OfflineProposer.from_bundle(bundle)
    result = run_benchmark(prepared, args.limit_per_service or None, bundle=bundle, proposer=proposer,
                           proposer_label=f"{proposer.name}/{proposer.version}", now=args.now)
    taken = f"the first {args.limit_per_service} per split" if args.limit_per_service else "all"
    when = (args.now or prepared.corpus.reference_time or DEFAULT_REFERENCE_TIME).isoformat()
    print(f"SGD {'+'.join(splits)} at {args.sgd}: {len(result.services)} services, {taken} single-service "
          f"dialogues of each; proposer {result.proposer}; conversations happen at {when}")
    print(service_table(result))
    print()
    print(split_table(result))
    print()
    print(kind_table(result.combined_kinds(), "kind (all)"))
    if args.per_objective:
        print()
        print(objective_table(result))
    print()
    print(speed_line(result))
    if args.failures > 0:
        print()
        print(failure_report(result, args.failures))
    print()
    print(cause_table(result))
    print()
    print(class_table(result, args.classes))
    payload = results_json(result)
    status = 0
    if args.llm:
        status, payload["comparison"] = _llm_side_by_side(args, prepared, bundle, proposer, result)
    if args.out is not None:
        write_json_atomic(args.out, payload, indent=1)  # never leave a half-written results file
        print(f"\nresults written to {args.out}")
    return status


def _llm_side_by_side(args: argparse.Namespace, prepared: Any, bundle: Any, proposer: Any,
                      offline: Any) -> tuple[int, dict[str, Any]]:
    """The same dialogues again with the LLM roles (offline fallbacks), beside the offline run."""
    from engine.evaluation.cli import print_comparison
    from engine.evaluation.sgd.bench import run_benchmark
    from llm_adapters.wiring import evaluation_roles

    roles, label = evaluation_roles(bundle, args.llm, base_url=args.llm_base_url, model=args.llm_model)
    with_llm = run_benchmark(prepared, args.limit_per_service or None, bundle=bundle, proposer=proposer,
                             proposer_label=label, roles=roles, now=args.now)
    print(f"\nthe same dialogues with {label} (offline fallbacks), all services combined:")
    comparison = print_comparison([r for s in offline.services for r in s.runs],
                                  [r for s in with_llm.services for r in s.runs], label)
    return (0 if all(g["held"] for g in comparison["guarantees"]) else 1), comparison
