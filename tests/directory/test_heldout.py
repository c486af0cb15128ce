"""Held-out informal queries (not from the bench generator) through the KG-3 retriever.

Gold and constraint checks come from tests/directory/heldout_gold.py, which reads the raw directory
fields itself. Thresholds sit just under the measured final run (Kansas: status 0.988, CSR 0.972,
P@3 0.960, R@3 0.983; NY: status 0.975, CSR 0.963, P@3 0.932, R@3 0.953) so a regression fails.
Second round (heldout_queries_2.json, Silicon Valley and DC): first run SV 1.000 on every score, DC status 0.875,
P@3 0.811, R@3 0.811, CSR 0.932; final run 1.000 on every score for both, so the floors sit at 0.97.
Issue 31 relabelled ks-73 and ny-36 (a weekday, no place) from results to clarify: the TRACE paper's rule, now rule
data (``retrieval.clarify_min_regions``), asks where when a directory spans several counties.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from tests.directory import heldout_gold as hg

ROOT = Path(__file__).resolve().parents[2]
DATA = json.loads(hg.QUERIES.read_text())
DATA_2 = json.loads(hg.QUERIES_2.read_text())

try:
    DATA_ROOT: Path | None = hg._data_root()
except FileNotFoundError:
    DATA_ROOT = None

pytestmark = pytest.mark.skipif(DATA_ROOT is None, reason="shared directory data absent")


def _run(directory: str, data: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    from engine.directory.directory_rules import load_rules
    from engine.directory.retriever import TraceRetriever

    assert DATA_ROOT is not None
    spec = data["directories"][directory]
    retriever = TraceRetriever.from_files(DATA_ROOT / spec["directory"], ROOT / spec["mapping"], rules=load_rules())
    ref = dt.datetime.fromisoformat(data["reference_date"])
    queries = [q for q in data["queries"] if q["directory"] == directory]
    answers = {q["id"]: retriever.answer(q["text"], ref) for q in queries}
    return queries, answers


def _score(directory: str, data: dict[str, Any] = DATA) -> dict[str, float]:
    queries, answers = _run(directory, data)
    records = hg.load(directory)
    ref = dt.date.fromisoformat(data["reference_date"])
    status_ok = returned = sat = halluc = 0
    precision: list[float] = []
    recall: list[float] = []
    for q in queries:
        answer = answers[q["id"]]
        status_ok += answer.status == q["expect"]
        ids = [r.source_index for r in answer.results][:3]
        for i in ids:
            returned += 1
            if not 0 <= i < len(records):
                halluc += 1
            elif q["expect"] == "clarify" or hg.satisfies(records[i], q["constraints"], ref):
                sat += 1
            else:
                halluc += 1
        gold = q["gold"]
        if q["expect"] == "results" and gold:
            hit = len(set(ids) & set(gold))
            precision.append(hit / len(ids) if ids else 0.0)
            recall.append(hit / min(3, len(gold)))
    return {"status": status_ok / len(queries), "csr": sat / max(returned, 1),
            "halluc": halluc / max(returned, 1), "p3": sum(precision) / len(precision),
            "r3": sum(recall) / len(recall)}


def test_heldout_file_is_well_formed() -> None:
    counts = {"kansas": 0, "ny": 0}
    for q in DATA["queries"]:
        counts[q["directory"]] += 1
        assert q["expect"] in {"results", "clarify", "no_match"}
        if q["expect"] == "no_match":
            assert q["gold"] == [], q["id"]
        if q["expect"] == "results":
            assert q["gold"] is None or q["gold"], q["id"]
    assert counts == {"kansas": 80, "ny": 40}


def test_heldout_2_file_is_well_formed() -> None:
    counts = {"sv": 0, "dc": 0}
    for q in DATA_2["queries"]:
        counts[q["directory"]] += 1
        assert q["expect"] in {"results", "clarify", "no_match"}
        if q["expect"] == "no_match":
            assert q["gold"] == [], q["id"]
        if q["expect"] == "results":
            assert q["gold"] is None or q["gold"], q["id"]
        if q["directory"] == "sv" and {"weekday", "dates", "after", "before"} & set(q["constraints"]):
            assert q["expect"] == "no_match", q["id"]  # SV lists no hours: an hours query never has results
    assert counts == {"sv": 40, "dc": 40}


@pytest.mark.parametrize(("directory", "floor"), [
    ("kansas", {"status": 0.97, "csr": 0.96, "p3": 0.94, "r3": 0.96}),
    ("ny", {"status": 0.95, "csr": 0.95, "p3": 0.92, "r3": 0.94}),
])
def test_heldout_scores(directory: str, floor: dict[str, float]) -> None:
    scores = _score(directory)
    for key, minimum in floor.items():
        assert scores[key] >= minimum, (key, scores)
    # Only recall-by-name extras violate the (strict, name-only) constraint today.
    assert scores["halluc"] <= 0.04, scores


@pytest.mark.parametrize(("directory", "floor"), [
    ("sv", {"status": 0.97, "csr": 0.97, "p3": 0.97, "r3": 0.97}),
    ("dc", {"status": 0.97, "csr": 0.97, "p3": 0.97, "r3": 0.97}),
])
def test_heldout_2_scores(directory: str, floor: dict[str, float]) -> None:
    scores = _score(directory, DATA_2)
    for key, minimum in floor.items():
        assert scores[key] >= minimum, (key, scores)
    assert scores["halluc"] <= 0.03, scores
