"""The four real directories from ../shared (skipped when that folder is absent): KG-3 targets per directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.directory.data import shared_directories
from benchmarks.directory.runner import run_bench
from engine.directory.directory_rules import load_rules
from engine.directory.retriever import TraceRetriever, Variant

PROJECT = Path(__file__).resolve().parents[2]
SHARED = shared_directories() or PROJECT.parent / "shared" / "data" / "directories"
MAPPINGS = PROJECT / "demos" / "directories" / "mappings"
DIRECTORIES = [
    ("kansas/pantry_data.json", "kansas.json"),
    ("haarrrvest/second_harvest_of_silicon_valley_ca_raw.json", "second_harvest_silicon_valley.json"),
    ("haarrrvest/the_food_pantries_org_raw.json", "the_food_pantries_org_ny.json"),
    ("haarrrvest/capital_area_food_bank_dc_raw.json", "capital_area_food_bank_dc.json"),
]

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not SHARED.is_dir(), reason="shared directories not present")]


@pytest.mark.parametrize(("data", "mapping"), DIRECTORIES, ids=[m.split(".")[0] for _, m in DIRECTORIES])
def test_kg3_meets_targets(data: str, mapping: str) -> None:
    retriever = TraceRetriever.from_files(SHARED / data, MAPPINGS / mapping, rules=load_rules())
    assert [r.source_index for r in retriever.directory.records] == list(range(len(retriever.directory.records)))
    report = run_bench(retriever, [Variant.KG3], seed=0, latency_queries=20)
    overall = report.variants["KG-3"]["all"].summary()
    assert overall["P@3"] >= 0.95 and overall["R@3"] >= 0.97
    assert overall["CSR"] >= 0.99 and overall["hallucination"] == 0.0
