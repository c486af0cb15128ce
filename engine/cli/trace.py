"""`grace trace ask | run | bench`: the directory retriever from the command line."""

from __future__ import annotations

import argparse
import json
import logging
import time
from datetime import date, datetime
from pathlib import Path
from typing import Any

import structlog

from benchmarks.directory.generator import generate
from benchmarks.directory.metrics import write_queries
from benchmarks.directory.runner import format_report, run_bench
from benchmarks.directory.scale import format_scale, run_scale
from benchmarks.directory.sets import format_set_report, load_set, score_set
from engine.directory.answer import citations, render
from engine.directory.directory_rules import DirectoryRules, directory_rules
from engine.directory.errors import DirectoryUsageError, QueryFileError
from engine.directory.retriever import Answer, TraceRetriever, Variant, as_reference, parse_variant
from engine.kernel.decision.bundle_proofs import load_verified_bundle
from engine.output_files import write_json_atomic
from engine.rules.loader import DEFAULT_RULES_DIR

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DIRECTORY = PROJECT_ROOT.parent / "shared" / "data" / "directories" / "kansas" / "pantry_data.json"
DEFAULT_MAPPING = PROJECT_ROOT / "demos" / "directories" / "mappings" / "kansas.json"


def parse_reference(value: str | None, where: str = "--reference-date") -> datetime | None:
    if value is None or value == "":
        return None
    try:
        if len(value) == 10:
            return as_reference(date.fromisoformat(value))
        return datetime.fromisoformat(value)
    except ValueError:
        raise DirectoryUsageError(f"{where}: {value!r} is not an ISO date (YYYY-MM-DD[THH:MM])",
                                  code="directory.usage_reference_date") from None


def _quiet_logs() -> None:
    """Keep stdout for answers: unless the host configured structlog, only warnings go (via logging) to stderr."""
    if not structlog.is_configured():
        structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING),
                            logger_factory=structlog.stdlib.LoggerFactory())


def _rules(args: argparse.Namespace) -> DirectoryRules:
    """The directory rules of the verified bundle under --rules, loaded explicitly (never an unverified folder)."""
    return directory_rules(load_verified_bundle(Path(args.rules), require_published=False))


def _retriever(args: argparse.Namespace, variant: Variant = Variant.KG3) -> TraceRetriever:
    _quiet_logs()
    return TraceRetriever.from_files(Path(args.directory), Path(args.mapping), rules=_rules(args), variant=variant,
                                     embeddings=True if args.embeddings else None,
                                     cache_dir=Path(args.cache_dir) if args.cache_dir else None)


def answer_json(answer: Answer, query_id: Any, directory_id: str, message: str) -> dict[str, Any]:
    return {
        "id": query_id,
        "status": answer.status,
        "results": [{
            "source_index": r.source_index, "name": r.name, "evidence": r.evidence,
            "citations": [{"constraint": label, "field": ev.field, "file": ev.source, "quote": ev.quote}
                          for label, ev in r.citations],
        } for r in answer.results],
        "question": answer.question,
        "message": message,
    }


# ---------------------------------------------------------------------------- ask
def _cmd_ask(args: argparse.Namespace) -> int:
    retriever = _retriever(args, parse_variant(args.variant))
    answer = retriever.answer(args.text, parse_reference(args.reference_date))
    text = render(answer, retriever.rules, retriever.directory.id)
    if args.json:
        print(json.dumps(answer_json(answer, None, retriever.directory.id, text), indent=2, ensure_ascii=False))
        return 0
    print(text)
    for citation in citations(answer, retriever.directory.id):
        print(f"  [{citation.source}] {citation.passage_id}: {citation.quote}")
    return 0


# ---------------------------------------------------------------------------- run
def load_queries(path: Path) -> tuple[list[dict[str, Any]], str | None]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise QueryFileError(f"{path}: not readable JSON ({exc})", code="directory.queries_unreadable") from exc
    if not isinstance(data, dict) or not isinstance(data.get("queries"), list):
        raise QueryFileError(f"{path.name}: expected {{\"queries\": [...]}}", code="directory.queries_shape")
    seen: set[str] = set()
    for i, item in enumerate(data["queries"]):
        if not isinstance(item, dict) or "id" not in item or not isinstance(item.get("text"), str):
            raise QueryFileError(f"{path.name}: query {i} needs an 'id' and a string 'text'",
                                 code="directory.queries_item")
        if not isinstance(item["id"], str | int) or isinstance(item["id"], bool):
            raise QueryFileError(f"{path.name}: query {i} id must be a string or integer", code="directory.queries_id")
        if str(item["id"]) in seen:
            raise QueryFileError(f"{path.name}: duplicate query id {item['id']!r}", code="directory.queries_duplicate")
        seen.add(str(item["id"]))
        if item.get("reference_date") is not None and not isinstance(item["reference_date"], str):
            raise QueryFileError(f"{path.name}: query {i} reference_date must be a string",
                                 code="directory.queries_reference_date")
    top = data.get("reference_date")
    if top is not None and not isinstance(top, str):
        raise QueryFileError(f"{path.name}: reference_date must be a string", code="directory.queries_reference_date")
    return data["queries"], top


def _cmd_run(args: argparse.Namespace) -> int:
    queries, top_reference = load_queries(Path(args.queries))
    default_reference = parse_reference(args.reference_date)
    file_reference = parse_reference(top_reference, "reference_date")
    references = [parse_reference(q.get("reference_date"), f"query {q['id']} reference_date") for q in queries]
    retriever = _retriever(args, parse_variant(args.variant))
    out = []
    for query, reference in zip(queries, references, strict=True):
        answer = retriever.answer(query["text"], reference or file_reference or default_reference)
        message = render(answer, retriever.rules, retriever.directory.id)
        out.append(answer_json(answer, query["id"], retriever.directory.id, message))
    write_json_atomic(Path(args.out), {"queries": out})
    counts = {s: sum(1 for a in out if a["status"] == s) for s in ("results", "clarify", "no_match")}
    print(f"wrote {len(out)} answers to {args.out} ({counts['results']} results, {counts['clarify']} clarify, "
          f"{counts['no_match']} no_match)")
    return 0


# ---------------------------------------------------------------------------- bench
def _cmd_bench(args: argparse.Namespace) -> int:
    variants = [parse_variant(v) for v in (args.variant or ["KG-0", "KG-1", "KG-2", "KG-3"])]
    started = time.perf_counter()
    retriever = _retriever(args)
    setup_ms = (time.perf_counter() - started) * 1000
    queries = generate(retriever.directory, retriever.rules, args.seed)
    if args.queries_out:
        write_queries(queries, Path(args.queries_out))
    count = args.latency_queries or retriever.rules.retrieval.latency_queries
    report = run_bench(retriever, variants, args.seed, count, queries)
    report.setup_ms = setup_ms
    print(format_report(report))
    payload: dict[str, Any] = report.as_dict()
    for path in args.sets or []:
        query_set = load_set(Path(path))
        if not Path(args.directory).as_posix().endswith(str(query_set.get("directory", ""))):
            raise DirectoryUsageError(f"{path} labels {query_set.get('directory')}, not {args.directory}",
                                      code="directory.usage_query_set_mismatch")
        print()
        print(format_set_report(Path(path).stem, score_set(retriever, query_set), args.failures))
    if args.scale:
        sizes = _sizes(args.scale)
        rows = run_scale(Path(args.directory), Path(args.mapping), sizes, args.scale_queries, args.seed,
                         Path(args.rules))
        print()
        print(format_scale(rows))
        payload["scale"] = rows
    if args.json_out:
        write_json_atomic(Path(args.json_out), payload)
    return 0


def _sizes(value: str) -> list[int]:
    try:
        sizes = [int(v) for v in value.split(",") if v.strip()]
    except ValueError:
        raise DirectoryUsageError(f"--scale takes record counts like 1000,10000,100000, not {value!r}",
                                  code="directory.usage_scale") from None
    if not sizes or any(n < 1 or n > 1_000_000 for n in sizes):
        raise DirectoryUsageError("--scale sizes must be between 1 and 1,000,000", code="directory.usage_scale")
    return sizes


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--directory", default=str(DEFAULT_DIRECTORY), help="directory file (JSON or CSV)")
    parser.add_argument("--mapping", default=str(DEFAULT_MAPPING), help="field-mapping JSON for that directory")
    parser.add_argument("--embeddings", action="store_true", help="re-rank with the offline embedder (cached)")
    parser.add_argument("--cache-dir", default=None,
                        help="embedding cache folder (default $GRACE_CACHE_DIR/trace, else <temp>/grace-cache/trace)")
    parser.add_argument("--rules", default=str(DEFAULT_RULES_DIR), help="rule bundle folder (verified before use)")


def register(subparsers: Any) -> None:
    trace = subparsers.add_parser("trace", help="constraint-aware directory retrieval (TRACE)")
    sub = trace.add_subparsers(dest="trace_command", required=True)

    ask = sub.add_parser("ask", help="answer one question from the directory, with citations")
    ask.add_argument("text")
    _common(ask)
    ask.add_argument("--variant", default="KG-3")
    ask.add_argument("--reference-date", default=None, help="ISO date/time for 'today', 'tomorrow' (default: now)")
    ask.add_argument("--json", action="store_true", help="print the answer as JSON")
    ask.set_defaults(handler=_cmd_ask)

    run = sub.add_parser("run", help="answer a batch query file")
    _common(run)
    run.add_argument("--queries", required=True, help='{"queries": [{"id": ..., "text": ...}]}')
    run.add_argument("--out", required=True, help="answers JSON to write")
    run.add_argument("--variant", default="KG-3")
    run.add_argument("--reference-date", default=None, help="ISO date/time used when a query has none")
    run.set_defaults(handler=_cmd_run)

    bench = sub.add_parser("bench", help="synthetic benchmark (P/R/F1@3, CSR, hallucination, latency)")
    _common(bench)
    bench.add_argument("--variant", action="append", help="KG-0..KG-3 (repeatable; default all four)")
    bench.add_argument("--seed", type=int, default=0)
    bench.add_argument("--latency-queries", type=int, default=None)
    bench.add_argument("--queries-out", default=None, help="also write the generated queries here")
    bench.add_argument("--json-out", default=None, help="also write the report as JSON")
    bench.add_argument("--sets", action="append", help="also score a labelled query set (benchmarks/trace_sets/"
                       "<directory>.json, for the same --directory); repeatable")
    bench.add_argument("--failures", action="store_true", help="with --sets: list every query not scored 1/1")
    bench.add_argument("--scale", default=None, help="also measure latency and memory on the directory scaled to "
                       "these record counts, e.g. 1000,10000,100000")
    bench.add_argument("--scale-queries", type=int, default=200, help="queries timed per scaled size")
    bench.set_defaults(handler=_cmd_bench)
