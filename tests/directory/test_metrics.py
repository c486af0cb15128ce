from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from benchmarks.directory.generator import FAMILY_MIX, BenchQuery, generate
from benchmarks.directory.metrics import relevant_set, score, source_texts
from engine.directory.constraints import Constraints, PlaceConstraint, check
from engine.directory.directory_rules import load_rules
from engine.directory.ingest import load_directory
from engine.directory.retriever import TraceRetriever

RIVERBEND = Constraints(places=(PlaceConstraint("city", "riverbend", "Riverbend"),))


def query(gold: Constraints) -> BenchQuery:
    return BenchQuery("q", "location", "x", gold, datetime(2026, 3, 2, 9), "en")


@pytest.fixture(scope="module")
def texts(small_files: tuple[Path, Path]) -> list[str]:
    return source_texts(load_directory(*small_files, load_rules()))


def test_precision_recall_definitions(retriever: TraceRetriever, texts: list[str]) -> None:
    directory = retriever.directory
    q = query(RIVERBEND)
    relevant = relevant_set(directory, q)
    assert relevant == {0, 1, 8}
    name = {i: directory.records[i].name for i in range(len(directory.records))}
    good = score(directory, texts, q, "results", [(0, name[0], name[0]), (1, name[1], name[1])], relevant, 3)
    assert (good.precision, good.recall) == (1.0, pytest.approx(2 / 3)) and good.hallucinated == 0
    mixed = score(directory, texts, q, "results", [(0, name[0], name[0]), (2, name[2], name[2])], relevant, 3)
    assert mixed.precision == 0.5 and mixed.satisfied == 1 and mixed.hallucinated == 1


def test_empty_answers(retriever: TraceRetriever, texts: list[str]) -> None:
    directory = retriever.directory
    nothing = Constraints(unknown_places=("Atlantis",))
    assert relevant_set(directory, query(nothing)) == set()
    right = score(directory, texts, query(nothing), "no_match", [], set(), 3)
    assert (right.precision, right.recall, right.f1) == (1.0, 1.0, 1.0)
    wrong = score(directory, texts, query(RIVERBEND), "no_match", [], {0, 1, 8}, 3)
    assert (wrong.precision, wrong.recall, wrong.f1) == (0.0, 0.0, 0.0)


def test_invented_recommendations_are_hallucinations(retriever: TraceRetriever, texts: list[str]) -> None:
    directory = retriever.directory
    q = query(RIVERBEND)
    fake_index = score(directory, texts, q, "results", [(99, "Nowhere Pantry", "x")], {0, 1, 8}, 3)
    fake_quote = score(directory, texts, q, "results", [(0, directory.records[0].name, "open 24/7 forever")],
                       {0, 1, 8}, 3)
    assert fake_index.hallucinated == 1 and fake_quote.hallucinated == 1


def test_generator_mix_and_gold(retriever: TraceRetriever) -> None:
    queries = generate(retriever.directory, retriever.rules, seed=5)
    counts = {family: sum(q.family == family for q in queries) for family, _ in FAMILY_MIX}
    assert counts == dict(FAMILY_MIX)
    assert generate(retriever.directory, retriever.rules, seed=5) == queries
    for q in queries:
        if q.family in ("location", "eligibility", "recall"):
            assert any(check(r, q.gold).ok for r in retriever.directory.records), q.text
    assert len({q.text for q in queries}) > 150
