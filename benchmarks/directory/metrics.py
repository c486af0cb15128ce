"""Benchmark metrics. Definitions (per query q, k = 3):

* relevant set R(q): every directory record satisfying all gold constraints of q (``constraints.check``);
  it may be empty (e.g. an hours query on a directory without hours): then the right answer is a no-match.
* returned list L(q): the answer's records in rank order, at most k.
* P@3 = |L ∩ R| / |L| when L is non-empty; with L empty it is 1 if R is empty (a correct no-match) else 0.
* R@3 = |L ∩ R| / min(3, |R|) when R is non-empty; with R empty it is 1 if L is empty else 0.
* F1@3 = harmonic mean of that query's P@3 and R@3 (0 when both are 0). All three are macro-averaged.
* constraint-satisfaction rate (CSR) = share of returned recommendations that satisfy every gold constraint.
* hallucination rate = share of returned recommendations that are not in the directory (unknown source_index,
  a name that is not the record's, or an evidence quote that is not verbatim in the record's source fields) or
  that violate a gold constraint.
* clarify rate / no-match rate: share of queries answered with a question / an explicit no-match.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.directory.generator import BenchQuery
from engine.directory.constraints import check
from engine.directory.ingest import Directory
from engine.directory.mapping import Mapping, row_text


def _strings(value: Any) -> Iterator[str]:
    """Every string, plus structured rows as the engine quotes them (``mapping.values``): an object as its values in
    field order, a list of objects as those lines joined by '; ' (an HSDS schedule). No word is added."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, bool):  # a flag as the file spells it (a value tag quotes it so)
        yield "true" if value else "false"
    elif isinstance(value, dict):
        line = row_text(value)
        if line:
            yield line
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        rows = [row_text(item) for item in value if isinstance(item, dict)]
        if len(rows) > 1:
            yield "; ".join(row for row in rows if row)
        for item in value:
            yield from _strings(item)


def source_texts(directory: Directory) -> list[str]:
    """Every string of every source record (primary + secondary file), read straight from disk."""
    mapping: Mapping = directory.mapping
    raw: Any = json.loads(directory.path.read_text(encoding="utf-8-sig")) if mapping.format == "json" else None
    if raw is None:
        import csv

        raw = list(csv.DictReader(directory.path.read_text(encoding="utf-8-sig").splitlines()))
    for key in mapping.records_path:
        raw = raw[key]
    texts = ["\n".join(_strings(r)) for r in raw]
    if mapping.secondary is not None:
        extra = json.loads((directory.path.parent / mapping.secondary.file).read_text(encoding="utf-8-sig"))
        texts = [a + "\n" + "\n".join(_strings(b)) for a, b in zip(texts, extra, strict=True)]
    return texts


@dataclass
class QueryOutcome:
    query: BenchQuery
    status: str
    returned: list[int]
    relevant: set[int]
    precision: float
    recall: float
    f1: float
    satisfied: int
    hallucinated: int


@dataclass
class Totals:
    queries: int = 0
    precision: float = 0.0
    recall: float = 0.0
    f1: float = 0.0
    recommendations: int = 0
    satisfied: int = 0
    hallucinated: int = 0
    clarify: int = 0
    no_match: int = 0
    outcomes: list[QueryOutcome] = field(default_factory=list)

    def add(self, outcome: QueryOutcome) -> None:
        self.queries += 1
        self.precision += outcome.precision
        self.recall += outcome.recall
        self.f1 += outcome.f1
        self.recommendations += len(outcome.returned)
        self.satisfied += outcome.satisfied
        self.hallucinated += outcome.hallucinated
        self.clarify += outcome.status == "clarify"
        self.no_match += outcome.status == "no_match"
        self.outcomes.append(outcome)

    def summary(self) -> dict[str, float | int]:
        n = max(self.queries, 1)
        recs = self.recommendations
        return {
            "queries": self.queries,
            "P@3": round(self.precision / n, 4), "R@3": round(self.recall / n, 4), "F1@3": round(self.f1 / n, 4),
            "CSR": round(self.satisfied / recs, 4) if recs else 1.0,
            "hallucination": round(self.hallucinated / recs, 4) if recs else 0.0,
            "recommendations": recs, "clarify_rate": round(self.clarify / n, 4),
            "no_match_rate": round(self.no_match / n, 4),
        }


def relevant_set(directory: Directory, query: BenchQuery) -> set[int]:
    return {r.source_index for r in directory.records if check(r, query.gold).ok}


def score(directory: Directory, texts: list[str], query: BenchQuery, status: str,
          results: list[tuple[int, str, str]], relevant: set[int], k: int) -> QueryOutcome:
    """``results``: (source_index, name, evidence) as the retriever returned them."""
    returned = [index for index, _, _ in results[:k]]
    hits = len(set(returned) & relevant)
    precision = hits / len(returned) if returned else float(not relevant)
    recall = hits / min(k, len(relevant)) if relevant else float(not returned)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    satisfied = 0
    hallucinated = 0
    for index, name, evidence in results[:k]:
        record = directory.record(index)
        real = record is not None and 0 <= index < len(texts) and record.name == name and evidence in texts[index]
        ok = record is not None and check(record, query.gold).ok
        satisfied += ok
        hallucinated += (not real) or (not ok)
    return QueryOutcome(query, status, returned, relevant, precision, recall, f1, satisfied, hallucinated)


def write_queries(queries: list[BenchQuery], path: Path) -> None:
    payload = {"queries": [{"id": q.id, "family": q.family, "language": q.language, "text": q.text,
                            "reference_date": q.reference.isoformat(timespec="minutes")} for q in queries]}
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
