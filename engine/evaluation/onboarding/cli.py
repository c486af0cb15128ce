"""``grace bench onboarding``: SGD services onboarded from their schema's own words, compiled with no hand edits.

    grace bench onboarding [--sgd DIR] [--splits train,dev] [--services A,B] [--variants 0,1,2,3,4,5]
                           [--limit-per-service N] [--per-slot] [--out FILE] [--turns] [--unpublished-rules]

Per service: the intent (``template``), the slots it asks for (``slots``), compile as a new user would
(``compile_step``), the slot mapping (``mapping``), every single-service dialogue of the splits through the full
turn runtime with the offline proposer, and STA/TSA/EP/ER/MC per service and pooled. ``--variants`` runs SGD-X's
rewordings (0 = the original wording) and prints the spread.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from engine.evaluation.sgd.cli import DEFAULT_SGD_DIR
from engine.output_files import write_json_atomic
from engine.rules.loader import DEFAULT_RULES_DIR


def register_bench(bsub: Any) -> None:
    parser: argparse.ArgumentParser = bsub.add_parser(
        "onboarding", help="SGD services compiled from their schema's words (no hand edits): STA/TSA/EP/ER/MC per "
                           "service and pooled, per SGD-X wording")
    parser.add_argument("--sgd", type=Path, default=DEFAULT_SGD_DIR, help="SGD folder (train/, dev/, sgd_x/)")
    parser.add_argument("--splits", default="train,dev", help="comma-separated splits (default train,dev)")
    parser.add_argument("--services", default="", help="comma-separated services (default: every one)")
    parser.add_argument("--variants", default="0", help="wordings: 0 = original, 1..5 = SGD-X (e.g. 0,1,2,3,4,5)")
    parser.add_argument("--limit-per-service", type=int, default=0,
                        help="first N single-service dialogues per service (default 0 = all)")
    parser.add_argument("--no-language-flag", action="store_true",
                        help="compile without --language (the compiler must tell the intent's language)")
    parser.add_argument("--per-slot", action="store_true", help="also print each slot's kind and scores")
    parser.add_argument("--out", type=Path, help="write the results (intents, compiles, mappings, metrics) here")
    parser.add_argument("--turns", action="store_true", help="with --out: also write every turn's state")
    parser.add_argument("--companies", type=Path,
                        help="instead of SGD: compile each config's manager_intent of this annotated dataset (e.g. "
                             "benchmarks/companies/conversations.json) and score its conversations on the compiled "
                             "spec")
    parser.add_argument("--phrases", type=Path,
                        help="with --companies: where each reference objective is asked for in its intent "
                             "(default: objective_phrases.json beside the dataset)")
    parser.add_argument("--rules", type=Path, default=DEFAULT_RULES_DIR, help="rule bundle folder")
    parser.add_argument("--unpublished-rules", action="store_true",
                        help="use the rule files as they are now, published or not (development only)")
    parser.set_defaults(handler=run_onboarding_bench)


def _variants(text: str) -> list[int]:
    from engine.evaluation.onboarding.errors import OnboardingError
    from engine.evaluation.sgd.corpus import VARIANTS

    try:
        chosen = [int(v) for v in text.split(",") if v.strip()]
    except ValueError as exc:
        raise OnboardingError(f"--variants {text!r}: give numbers such as 0,1,2", code="onboarding.variant_invalid") \
            from exc
    bad = [v for v in chosen if v != 0 and v not in VARIANTS]
    if not chosen or bad or len(set(chosen)) != len(chosen):
        raise OnboardingError(f"--variants {text!r}: each of 0 (original) or {VARIANTS[0]}..{VARIANTS[-1]}, once",
                              code="onboarding.variant_invalid")
    return chosen


def _bundle(args: argparse.Namespace) -> Any:
    import os

    from engine.evaluation.targets import working_tree_bundle
    from engine.rules.loader import load_bundle

    if args.unpublished_rules:
        os.environ["GRACE_RULES_DRAFT"] = "1"  # the compiles read the same working-tree rules
        return working_tree_bundle(args.rules)
    return load_bundle(args.rules)


def _run_companies(args: argparse.Namespace) -> int:
    from engine.evaluation.onboarding.companies import companies_json, companies_table, run_companies
    from engine.evaluation.onboarding.compile_step import scratch_folder
    from llm_adapters.offline import OfflineProposer

    bundle = _bundle(args)
    proposer = OfflineProposer.from_bundle(bundle)
    results = run_companies(args.companies, args.phrases, bundle=bundle, proposer=proposer, folder=scratch_folder(),
                            rules=args.rules)
    print(f"companies of {args.companies} compiled from their intents; proposer {proposer.name}/{proposer.version}")
    print(companies_table(results))
    if args.out is not None:
        write_json_atomic(args.out, companies_json(results), indent=1)
        print(f"\nresults written to {args.out}")
    return 0


def run_onboarding_bench(args: argparse.Namespace) -> int:

    from engine.evaluation.onboarding.bench import VariantResult, run_service
    from engine.evaluation.onboarding.compile_step import scratch_folder
    from engine.evaluation.onboarding.errors import OnboardingError
    from engine.evaluation.onboarding.report import (
        failure_report,
        results_json,
        service_table,
        slot_table,
        spread_table,
    )
    from engine.evaluation.sgd.corpus import load_corpus, load_schema
    from engine.progress import progress
    from llm_adapters.offline import OfflineProposer

    if args.companies is not None:
        return _run_companies(args)
    if args.limit_per_service < 0:
        raise OnboardingError("--limit-per-service must be 0 (all) or positive", code="onboarding.limit_invalid")
    variants = _variants(args.variants)
    splits = tuple(s.strip() for s in args.splits.split(",") if s.strip())
    wanted = [s.strip() for s in args.services.split(",") if s.strip()]
    schemas = {v: load_schema(args.sgd, splits, v) for v in variants}
    names = wanted or sorted(schemas[variants[0]])
    unknown = [n for n in names if n not in schemas[variants[0]]]
    if unknown:
        raise OnboardingError(f"the SGD schema has no service {', '.join(unknown)}", code="onboarding.service_unknown")
    corpus = load_corpus(args.sgd, set(names), splits)
    bundle = _bundle(args)
    proposer = OfflineProposer.from_bundle(bundle)
    folder = scratch_folder()
    limit = args.limit_per_service or None
    results = []
    for variant in variants:
        services = [run_service(schemas[variant][n], corpus.dialogues, variant=variant, limit=limit, bundle=bundle,
                                proposer=proposer, folder=folder, rules=args.rules,
                                language_flag=not args.no_language_flag)
                    for n in progress(names, f"onboarding wording {variant}")]
        result = VariantResult(variant, tuple(services))
        results.append(result)
        taken = f"the first {limit}" if limit else "all"
        print(f"\nwording {'original' if variant == 0 else f'SGD-X v{variant}'}: {len(services)} services, "
              f"{taken} single-service dialogues of each ({'+'.join(splits)}); proposer "
              f"{proposer.name}/{proposer.version}")
        print(service_table(result))
        if args.per_slot:
            print()
            print(slot_table(result))
        print("\nfailures by class:")
        print(failure_report(result))
    if len(results) > 1:
        print()
        print(spread_table(results))
    if args.out is not None:
        write_json_atomic(args.out, results_json(results, sgd=str(args.sgd), splits=splits, limit=limit,
                                                 proposer=f"{proposer.name}/{proposer.version}",
                                                 with_turns=args.turns), indent=1)
        print(f"\nresults written to {args.out}")
    return 0
