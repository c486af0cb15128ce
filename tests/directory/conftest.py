"""A small directory written by the tests themselves (never the shared data): three towns in two counties."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import structlog

from engine.directory.directory_rules import load_rules
from engine.directory.retriever import TraceRetriever

# Wednesday 4 March 2026, 10:00. March 2026 Saturdays: 7, 14, 21, 28.
REFERENCE = datetime(2026, 3, 4, 10, 0)

RECORDS: list[dict[str, Any]] = [
    {"pantry_name": "Riverbend Community Pantry", "address": "12 Main St, Riverbend, KS 67001",
     "county": "Oak County, Kansas", "phone": "555-0100", "raw_hours": "Monday-Friday from 9am-12pm",
     "tags": ["tefap_site"]},
    {"pantry_name": "Hope Table", "address": "40 Elm Ave Riverbend, KS 67001", "county": "Oak County, Kansas",
     "phone": None, "raw_hours": "Tuesday from 5-7pm and Thursday from 9-11am", "tags": []},
    {"pantry_name": "Campus Cupboard (students)", "address": "1 University Way, Lakeview, KS 67002",
     "county": "Pine County, Kansas", "phone": "555-0102",
     "raw_hours": "2nd & 4th Saturday of each month from 10am-12pm", "tags": []},
    {"pantry_name": "Senior Center Pantry", "address": "7 Oak St, Lakeview, KS 67002", "county": "Pine County, Kansas",
     "phone": "555-0103", "raw_hours": "Not available", "tags": []},
    {"pantry_name": "Lakeview Food Bank", "address": "9 Lake Rd, Lakeview, KS 67002", "county": "Pine County, Kansas",
     "phone": "555-0104", "raw_hours": "Every Wednesday 6:00 PM - 8:00 PM", "tags": ["no_id_required"]},
    {"pantry_name": "Grace Mobile Pantry", "address": "Not available", "county": "Pine County, Kansas",
     "phone": "555-0105", "raw_hours": "One Thursday each month", "tags": []},
    {"pantry_name": "Hill Street Kitchen", "address": "3 Hill St, Millbrook, KS 67003", "county": "Oak County, Kansas",
     "phone": "555-0106", "raw_hours": "Sunday from 12-2pm", "tags": []},
    {"pantry_name": "Millbrook Pantry", "address": "5 Mill Rd, Millbrook, KS 67003", "county": "Oak County, Kansas",
     "phone": "555-0107", "raw_hours": "Saturday: 9:00:00-11:00:00", "tags": ["tefap_site"]},
    {"pantry_name": "Salvation Army - Riverbend", "address": "20 Main St, Riverbend, KS 67001",
     "county": "Oak County, Kansas", "phone": "555-0108", "raw_hours": "Monday 10am-12pm", "tags": []},
    {"pantry_name": "The Salvation Army - Lakeview", "address": "30 Lake Rd, Lakeview, KS 67002",
     "county": "Pine County, Kansas", "phone": "555-0109", "raw_hours": "Friday from 1-3pm", "tags": []},
]

NOTES = [
    "Must be a resident of Oak County to receive food",
    "Call to see if an appointment is required",
    "Students only, bring your college ID",
    "For seniors 60+ | Hot lunch served weekdays",
    "No ID required. Walk-ins welcome",
    "Drive-thru pickup in the church parking lot",
    "Soup kitchen; no requirements",
    "TEFAP Distribution Site",
    "By appointment only",
    "",
]


def write_directory(root: Path, records: list[dict[str, Any]] | None = None,
                    notes: list[str] | None = None) -> tuple[Path, Path]:
    records = RECORDS if records is None else records
    notes = NOTES if notes is None else notes
    root.mkdir(parents=True, exist_ok=True)
    directory = root / "pantries.json"
    directory.write_text(json.dumps(records, indent=1), encoding="utf-8")
    secondary = [{"pantry_name": r["pantry_name"], "other_info": n, "requirement_tags": []}
                 for r, n in zip(records, notes, strict=True)]
    (root / "notes.json").write_text(json.dumps(secondary, indent=1), encoding="utf-8")
    mapping = root / "mapping.json"
    mapping.write_text(json.dumps({
        "version": "1.0.0", "description": "test directory", "directory_id": "testdir", "format": "json",
        "fields": {"name": "pantry_name", "address": "address", "county": "county", "phone": "phone",
                   "hours": "raw_hours", "tags": ["tags"]},
        "secondary": {"file": "notes.json", "join": "index", "verify_field": "pantry_name",
                      "fields": {"notes": ["other_info"], "tags": ["requirement_tags"]}},
        "defaults": {"state": "KS"},
    }), encoding="utf-8")
    return directory, mapping


@pytest.fixture(autouse=True)
def _restore_structlog() -> Iterator[None]:
    """The CLI configures structlog for a terminal; never let that leak into other tests."""
    yield
    structlog.reset_defaults()


@pytest.fixture(scope="session")
def small_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return write_directory(tmp_path_factory.mktemp("directory"))


@pytest.fixture(scope="session")
def retriever(small_files: tuple[Path, Path]) -> TraceRetriever:
    directory, mapping = small_files
    return TraceRetriever.from_files(directory, mapping, rules=load_rules())


@pytest.fixture()
def reference() -> datetime:
    return REFERENCE
