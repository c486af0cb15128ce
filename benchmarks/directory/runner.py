"""`grace trace bench`: generated queries x variants -> metrics per family and overall, plus latency."""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Any

from benchmarks.directory.generator import FAMILY_MIX, BenchQuery, generate
from benchmarks.directory.metrics import Totals, relevant_set, score, source_texts
from engine.directory.retriever import TraceRetriever, Variant
from engine.progress import progress


@dataclass
class BenchReport:
    directory: str
    records: int
    seed: int
    variants: dict[str, dict[str, Totals]]  # variant -> family (and "all") -> totals
    latency_ms: dict[str, float]
    setup_ms: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "directory": self.directory, "records": self.records, "seed": self.seed,
            "variants": {v: {f: t.summary() for f, t in fams.items()} for v, fams in self.variants.items()},
            "latency_ms": self.latency_ms, "setup_ms": round(self.setup_ms, 1),
        }


def run_bench(retriever: TraceRetriever, variants: list[Variant], seed: int, latency_queries: int,
              queries: list[BenchQuery] | None = None) -> BenchReport:
    directory = retriever.directory
    queries = queries if queries is not None else generate(directory, retriever.rules, seed)
    texts = source_texts(directory)
    k = retriever.rules.retrieval.k
    relevant = {q.id: relevant_set(directory, q) for q in queries}
    parsed = {q.id: retriever.parse(q.text, q.reference) for q in progress(queries, "TRACE: parsing queries")}
    report: dict[str, dict[str, Totals]] = {}
    for variant in variants:
        view = retriever.with_variant(variant)
        families: dict[str, Totals] = {f: Totals() for f, _ in FAMILY_MIX}
        families["all"] = Totals()
        for query in progress(queries, f"TRACE {variant}"):
            answer = view.retrieve(parsed[query.id])
            results = [(r.source_index, r.name, r.evidence) for r in answer.results]
            outcome = score(directory, texts, query, answer.status, results, relevant[query.id], k)
            families.setdefault(query.family, Totals()).add(outcome)
            families["all"].add(outcome)
        report[str(variant)] = families
    latency = measure_latency(retriever.with_variant(Variant.KG3), queries, latency_queries)
    return BenchReport(directory.id, len(directory.records), seed, report, latency, 0.0)


def measure_latency(retriever: TraceRetriever, queries: list[BenchQuery], count: int) -> dict[str, float]:
    """Wall time of parse + retrieve per query (ms), over the first ``count`` generated queries (cycled)."""
    if not queries:
        return {}
    samples = []
    for i in progress(range(count), "TRACE latency"):
        query = queries[(i * 7) % len(queries)]
        started = time.perf_counter()
        retriever.answer(query.text, query.reference)
        samples.append((time.perf_counter() - started) * 1000)
    samples.sort()
    p99_index = min(len(samples) - 1, max(0, round(0.99 * len(samples)) - 1))
    return {"n": float(len(samples)), "p50": round(statistics.median(samples), 3),
            "p99": round(samples[p99_index], 3), "max": round(samples[-1], 3)}


def format_report(report: BenchReport) -> str:
    lines = [f"TRACE benchmark: directory={report.directory} records={report.records} seed={report.seed}"]
    header = f"{'variant':7} {'family':12} {'n':>5} {'P@3':>6} {'R@3':>6} {'F1@3':>6} {'CSR':>7} {'halluc':>7} " \
             f"{'clarify':>7} {'nomatch':>7}"
    lines.append(header)
    for variant, families in report.variants.items():
        for family, totals in families.items():
            s = totals.summary()
            lines.append(f"{variant:7} {family:12} {s['queries']:>5} {s['P@3']:>6.3f} {s['R@3']:>6.3f} "
                         f"{s['F1@3']:>6.3f} {s['CSR']:>7.2%} {s['hallucination']:>7.2%} "
                         f"{s['clarify_rate']:>7.2%} {s['no_match_rate']:>7.2%}")
    lat = report.latency_ms
    if lat:
        lines.append(f"latency KG-3 (parse+retrieve, n={int(lat['n'])}): p50={lat['p50']:.2f} ms "
                     f"p99={lat['p99']:.2f} ms max={lat['max']:.2f} ms; setup {report.setup_ms:.0f} ms")
    return "\n".join(lines)
