"""A small fake pantry directory written by the tests (never the shared data): eight pantries in three towns of
two counties, with valid-looking US phone numbers so that a pantry number in an answer *would* validate as a
contact if the runtime ever mistook answer text for caller evidence."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from engine.directory.answer import DirectoryAnswerer
from engine.directory.directory_rules import load_rules
from engine.directory.retriever import TraceRetriever
from engine.rules.loader import DEFAULT_RULES_DIR

DIRECTORY_ID = "pantrytest"
# Wednesday 4 March 2026, 10:00: fixed "now" for hours constraints.
REFERENCE = datetime(2026, 3, 4, 10, 0)

PANTRIES: list[dict[str, Any]] = [
    {"pantry_name": "Prairieton Community Pantry", "address": "10 Main St, Prairieton, KS 67501",
     "county": "Bluestem County, Kansas", "phone": "620-555-0101", "raw_hours": "Monday-Friday from 9am-12pm",
     "tags": ["tefap_site"], "notes": "Walk-ins welcome. Fresh produce every week."},
    {"pantry_name": "First Street Food Shelf", "address": "22 First St, Prairieton, KS 67501",
     "county": "Bluestem County, Kansas", "phone": "620-555-0102", "raw_hours": "Saturday from 9-11am",
     "tags": [], "notes": "Diapers and baby formula available."},
    {"pantry_name": "Prairieton Senior Table", "address": "5 Elm Ave, Prairieton, KS 67501",
     "county": "Bluestem County, Kansas", "phone": "620-555-0103", "raw_hours": "Every Tuesday 11:00 AM - 1:00 PM",
     "tags": [], "notes": "For seniors 60+."},
    {"pantry_name": "Millford Food Bank", "address": "3 Mill Rd, Millford, KS 67502",
     "county": "Bluestem County, Kansas", "phone": "620-555-0104", "raw_hours": "Every Wednesday 6:00 PM - 8:00 PM",
     "tags": ["no_id_required"], "notes": "No ID required."},
    {"pantry_name": "Millford Mobile Pantry", "address": "Not available", "county": "Bluestem County, Kansas",
     "phone": "620-555-0105", "raw_hours": "Saturday: 10:00:00-12:00:00", "tags": [],
     "notes": "Drive-thru pickup in the church parking lot."},
    {"pantry_name": "Cedar Springs Pantry", "address": "8 Spring St, Cedar Springs, KS 67601",
     "county": "Cedar County, Kansas", "phone": "785-555-0106", "raw_hours": "Thursday from 1-4pm", "tags": [],
     "notes": "Call to see if an appointment is required."},
    {"pantry_name": "Cedar Valley Helping Hands", "address": "40 Valley Rd, Cedar Springs, KS 67601",
     "county": "Cedar County, Kansas", "phone": "785-555-0107", "raw_hours": "Monday 10am-12pm",
     "tags": [], "notes": "Home delivery for homebound residents."},
    {"pantry_name": "Student Cupboard", "address": "1 College Way, Cedar Springs, KS 67601",
     "county": "Cedar County, Kansas", "phone": "785-555-0108", "raw_hours": "Friday from 2-5pm", "tags": [],
     "notes": "Students only, bring your college ID."},
]


def write_directory(root: Path) -> tuple[Path, Path]:
    """pantries.json + notes.json (secondary file joined by position) + mapping.json under ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    directory = root / "pantries.json"
    primary = [{k: v for k, v in p.items() if k != "notes"} for p in PANTRIES]
    directory.write_text(json.dumps(primary, indent=1), encoding="utf-8")
    secondary = [{"pantry_name": p["pantry_name"], "other_info": p["notes"], "requirement_tags": []} for p in PANTRIES]
    (root / "notes.json").write_text(json.dumps(secondary, indent=1), encoding="utf-8")
    mapping = root / "mapping.json"
    mapping.write_text(json.dumps({
        "version": "1.0.0", "description": "pantry-helpline test directory", "directory_id": DIRECTORY_ID,
        "format": "json",
        "fields": {"name": "pantry_name", "address": "address", "county": "county", "phone": "phone",
                   "hours": "raw_hours", "tags": ["tags"]},
        "secondary": {"file": "notes.json", "join": "index", "verify_field": "pantry_name",
                      "fields": {"notes": ["other_info"], "tags": ["requirement_tags"]}},
        "defaults": {"state": "KS"},
    }), encoding="utf-8")
    return directory, mapping


def directory_answerer(root: Path) -> DirectoryAnswerer:
    directory, mapping = write_directory(root)
    rules = load_rules(DEFAULT_RULES_DIR)
    retriever = TraceRetriever.from_files(directory, mapping, rules=rules)
    return DirectoryAnswerer(retriever, clock=lambda: REFERENCE)


def verbatim_texts() -> list[str]:
    """Every string value of the fake directory (primary and secondary files): what a quote may come from."""
    texts: list[str] = []
    for pantry in PANTRIES:
        for value in pantry.values():
            texts.extend(value if isinstance(value, list) else [value] if isinstance(value, str) else [])
    return texts
