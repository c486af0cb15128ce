"""Issue 31: names of chains, the clarification rule as data, regional names, places read from ZIPs, negation."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from engine.directory.directory_rules import load_rules
from engine.directory.ingest import load_directory
from engine.directory.models import Evidence
from engine.directory.retriever import TraceRetriever
from engine.directory.semantic import ConceptMatcher
from tests.directory.conftest import NOTES, RECORDS, write_directory


def test_a_chain_named_without_a_place_asks_which_branch(retriever: TraceRetriever, reference: datetime) -> None:
    answer = retriever.answer("Salvation Army", reference)
    assert answer.status == "clarify" and not answer.results and answer.reason == "ambiguous_name"
    assert answer.question is not None and "Riverbend" in answer.question and "Lakeview" in answer.question
    placed = retriever.answer("Salvation Army in Lakeview", reference)
    assert [r.name for r in placed.results] == ["The Salvation Army - Lakeview"]


def test_a_unique_name_is_answered_without_a_place(retriever: TraceRetriever, reference: datetime) -> None:
    answer = retriever.answer("Hope Table", reference)
    assert answer.status == "results" and [r.name for r in answer.results] == ["Hope Table"]


def test_no_place_asks_where_only_when_the_directory_spans_several_counties(
        tmp_path: Path, retriever: TraceRetriever, reference: datetime) -> None:
    # the TRACE rule as data: hours or an eligibility need without a place ask where (the paper's clarification
    # question is 'Which city or county?'), but only in a directory spanning several counties
    assert retriever.rules.retrieval.clarify_min_regions == 2 and retriever.rules.retrieval.clarify_requires_location
    oak = [(r, n) for r, n in zip(RECORDS, NOTES, strict=True) if r["county"].startswith("Oak")]
    files = write_directory(tmp_path / "oak", [r for r, _ in oak], [n for _, n in oak])
    one_county = TraceRetriever.from_files(*files, rules=retriever.rules)
    for query in ("food pantry open saturday", "I need a food pantry for seniors"):
        assert retriever.answer(query, reference).status == "clarify", query
        answer = one_county.answer(query, reference)
        assert answer.status != "clarify" and all(r.record.county_keys == ("oak",) for r in answer.results)
    assert any(one_county.answer("food pantry open saturday", reference).results)


def _zip_directory(tmp_path: Path, records: list[dict[str, object]]) -> tuple[Path, Path]:
    directory = tmp_path / "scraped.json"
    directory.write_text(json.dumps(records), encoding="utf-8")
    mapping = tmp_path / "mapping.json"
    mapping.write_text(json.dumps({
        "version": "1.0.0", "description": "no county field", "directory_id": "scraped", "format": "json",
        "fields": {"name": "name", "address": "address", "city": "city", "state": "state", "zip": "zip",
                   "hours": "hours"},
        "coordinates": {"latitude": "lat", "longitude": "lon"}}), encoding="utf-8")
    return directory, mapping


def test_county_and_city_a_directory_leaves_out_are_read_from_the_zip(tmp_path: Path) -> None:
    rules = load_rules()
    records = [
        {"name": "A", "address": "1 Main St", "city": "45 Topeka", "state": "KS", "zip": "66603", "hours": ""},
        {"name": "B", "address": "2 Elm St", "city": None, "state": "KS", "zip": "66044", "hours": ""},
        # a street number scraped as the ZIP: the county comes from the nearest ZIP centroid to the coordinates
        {"name": "C", "address": "3 Oak St", "city": "Wichita", "state": "KS", "zip": "12345", "hours": "",
         "lat": 37.6872, "lon": -97.3301},
    ]
    loaded = load_directory(*_zip_directory(tmp_path, records), rules)
    a, b, c = loaded.records
    assert (a.city, a.county_keys, a.county_from_zip) == ("Topeka", ("shawnee",), True)
    assert (b.city, b.county_keys) == ("Lawrence", ("douglas",))
    assert c.county_keys == ("sedgwick",)
    retriever = TraceRetriever(loaded, rules)
    answer = retriever.answer("food pantry in Shawnee County", datetime(2026, 3, 4, 10))
    assert [r.name for r in answer.results] == ["A"]
    assert any(label.startswith("county:") and ev.quote == "66603" for label, ev in answer.results[0].citations)


def test_a_regional_name_stands_for_its_counties(tmp_path: Path) -> None:
    rules = load_rules()
    assert any(("joco",) in entry.names for entry in rules.regions)
    records = [
        {"name": "Olathe Pantry", "address": "1 Main St", "city": "Olathe", "state": "KS", "zip": "66061",
         "hours": ""},
        {"name": "Topeka Pantry", "address": "2 Elm St", "city": "Topeka", "state": "KS", "zip": "66603",
         "hours": ""},
    ]
    retriever = TraceRetriever(load_directory(*_zip_directory(tmp_path, records), rules), rules)
    answer = retriever.answer("food pantry in JoCo", datetime(2026, 3, 4, 10))
    assert [r.name for r in answer.results] == ["Olathe Pantry"]
    assert any("place_region" in note for note in answer.parsed.notes)


def test_a_college_prep_school_or_a_referral_to_enrol_is_no_evidence_of_serving_students() -> None:
    # a secondary school named 'College Prep' and a note offering help to enrol at a college do not say the
    # pantry serves students; a college's own pantry and 'students enrolled at ... College' do
    matcher = ConceptMatcher(load_rules().semantic)

    def for_students(field: str, quote: str) -> bool:
        return "students" in matcher.evidence([Evidence(field, quote, "test")], [])

    assert not for_students("name", "Northside College Prep")
    assert not for_students("name", "Eastway College Preparatory Academy")
    assert not for_students("notes", "Clients may also inquire about enrolling at a community college.")
    assert for_students("name", "Riverbend Community College")
    assert for_students("notes", "Only for students currently enrolled at Riverbend Community College.")
    assert for_students("notes", "Open to college students.")
