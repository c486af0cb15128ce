"""The HAARRRvest batch builders share one extraction module (benchmarks/trace_sets/haarrrvest_extract.py).

The fourth and fifth batches' scripts rebuild their committed query sets byte for byte from the committed records
through the shared module, and keep the names other batches' scripts import from them.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

from benchmarks.trace_sets import haarrrvest_extract as hx

PROJECT = Path(__file__).resolve().parents[2]
BATCHES = {"regions4": ("union_nj", "hudson_nj", "greater_boston"),
           "regions5": ("metro_detroit", "metro_atlanta", "baltimore_md")}
SHARED = ("zip_info", "_hours", "_text", "_towns", "_slots", "COMMIT", "DAY", "DAYS", "MARK", "SCRAPER")


@pytest.mark.parametrize("batch", sorted(BATCHES))
def test_batch_script_rebuilds_its_committed_sets_through_the_shared_module(batch: str) -> None:
    module = importlib.import_module(f"benchmarks.trace_sets.{batch}.build_regions{batch[-1]}")
    for region in BATCHES[batch]:
        committed = (PROJECT / "benchmarks" / "trace_sets" / batch / f"{region}.json").read_text(encoding="utf-8")
        assert json.dumps(module.build(region), indent=1, ensure_ascii=False) + "\n" == committed


@pytest.mark.parametrize("batch", sorted(BATCHES))
def test_batch_script_re_exports_the_shared_readers(batch: str) -> None:
    module = importlib.import_module(f"benchmarks.trace_sets.{batch}.build_regions{batch[-1]}")
    for name in SHARED:
        assert getattr(module, name) is getattr(hx, name)
    assert set(module.REGIONS) == set(BATCHES[batch])
    assert callable(module.extract) and callable(module.main_extract) and callable(module.main)


def test_slots_read_a_schedule_row_past_midnight_as_the_next_day_hours() -> None:
    record = {"regular_schedule": [{"weekday": "Friday", "opens_at": "22:00", "closes_at": "00:30"},
                                   {"weekday": "Monday", "opens_at": "09:00", "closes_at": ""},
                                   {"weekday": "Someday", "opens_at": "09:00", "closes_at": "10:00"}]}
    assert hx._slots(record) == [(4, 22.0, 24.5), (0, 9.0, None)]


def test_towns_are_the_written_city_and_the_zip_town_lowercased() -> None:
    record = {"address": {"city": " Old Town ", "postal_code": "10001-1234"}}
    info = hx.zip_info(record)
    assert info is not None and info["state"] == "NY"
    assert hx._towns(record) == {"old town", info["city"].lower()}
    assert hx.zip_info({"address": {"postal_code": "ABCDE"}}) is None
