from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.directory.address import AddressParser
from engine.directory.directory_rules import load_rules
from engine.directory.errors import DirectoryFileError, MappingError
from engine.directory.ingest import load_directory

from .conftest import NOTES, RECORDS, write_directory

ADDRESS = AddressParser(load_rules().address)


@pytest.mark.parametrize(("address", "city", "state", "zip_code"), [
    ("16 W Broadway, Iola, KS 66749", "Iola", "KS", "66749"),
    ("1429 N Andover Rd, Andover 67002", "Andover", None, "67002"),
    ("Weir, Kansas, ZIP code 66781", "Weir", "KS", "66781"),
    ("504 Kansas Ave., Atchison, KS 66002 913-367-4655 Monday through Friday", "Atchison", "KS", "66002"),
    ("5010 Leavenworth Road, Kansas City, Kansas 66104", "Kansas City", "KS", "66104"),
    ("College Student Pantry 245 NE 30 Rd., Great Bend, KS", "Great Bend", "KS", None),
    ("112 E Smith St, Hesston, KS 672062", "Hesston", "KS", None),
    ("Not available", None, None, None),
])
def test_address_parts(address: str, city: str | None, state: str | None, zip_code: str | None) -> None:
    parts = ADDRESS.parse(address)
    assert (parts.city, parts.state, parts.zip) == (city, state, zip_code)


def test_city_without_comma_is_left_for_the_directory_pass() -> None:
    parts = ADDRESS.parse("700 W Main Hill City, KS 67642")
    assert parts.city is None and parts.tail[-2:] == ("Hill", "City")
    assert ADDRESS.guess_from_tail(parts.tail) == "Hill City"
    assert ADDRESS.guess_from_tail(ADDRESS.parse("216 N Chautauqua, KS 67361").tail) is None


@pytest.mark.parametrize(("raw", "display", "key"), [
    ("Allen County, Kansas", "Allen County", "allen"),
    ("MD Prince George's County", "Prince George's County", "prince georges"),
    ("VA City of Manassas", "Manassas City", "manassas city"),
    ("VA Manassas City", "Manassas City", "manassas city"),
    ("DC Ward 8", "Ward 8", "ward 8"),
])
def test_county_spellings(raw: str, display: str, key: str) -> None:
    county = ADDRESS.county(raw)
    assert county is not None and (county.display, county.key) == (display, key)


def test_outside_service_area_is_no_county() -> None:
    assert ADDRESS.county("**Outside CAFB Service Area**") is None


def test_records_keep_source_index_and_join_notes(small_files: tuple[Path, Path]) -> None:
    directory = load_directory(*small_files, load_rules())
    assert [r.source_index for r in directory.records] == list(range(len(RECORDS)))
    assert [r.name for r in directory.records] == [r["pantry_name"] for r in RECORDS]
    first = directory.records[0]
    assert first.passages and first.passages[0].quote == NOTES[0] and first.passages[0].source == "notes.json"


def test_city_from_address_uses_cities_seen_elsewhere(small_files: tuple[Path, Path]) -> None:
    directory = load_directory(*small_files, load_rules())
    assert directory.records[1].city == "Riverbend"  # '40 Elm Ave Riverbend, KS' has no comma before the city
    assert directory.records[5].city is None  # 'Not available' stays unknown


def test_unknown_hours_stay_unknown(small_files: tuple[Path, Path]) -> None:
    directory = load_directory(*small_files, load_rules())
    assert not directory.records[3].schedule.known
    assert directory.records[5].schedule.slots[0].irregular


def test_attributes_quote_record_text(small_files: tuple[Path, Path]) -> None:
    directory = load_directory(*small_files, load_rules())
    students = directory.records[2].attributes["students"]
    assert all(ev.quote in (json.dumps(RECORDS[2]) + NOTES[2]) for ev in students)
    assert "appointment" not in directory.records[1].attributes  # 'see if an appointment is required'
    assert "appointment" in directory.records[8].attributes
    assert "no_id" in directory.records[4].attributes and "walk_in" in directory.records[4].attributes


def test_secondary_mismatch_fails_closed(tmp_path: Path) -> None:
    directory, mapping = write_directory(tmp_path)
    notes = json.loads((tmp_path / "notes.json").read_text())
    notes[3]["pantry_name"] = "Someone Else"
    (tmp_path / "notes.json").write_text(json.dumps(notes))
    with pytest.raises(MappingError) as info:
        load_directory(directory, mapping, load_rules())
    assert info.value.code == "directory.secondary_mismatch"


def test_secondary_length_mismatch(tmp_path: Path) -> None:
    directory, mapping = write_directory(tmp_path)
    notes = json.loads((tmp_path / "notes.json").read_text())
    (tmp_path / "notes.json").write_text(json.dumps(notes[:-1]))
    with pytest.raises(MappingError) as info:
        load_directory(directory, mapping, load_rules())
    assert info.value.code == "directory.secondary_length"


def test_bad_mapping_is_rejected(tmp_path: Path) -> None:
    directory, mapping = write_directory(tmp_path)
    data = json.loads(mapping.read_text())
    del data["fields"]["name"]
    mapping.write_text(json.dumps(data))
    with pytest.raises(MappingError) as info:
        load_directory(directory, mapping, load_rules())
    assert info.value.code == "directory.mapping_invalid"


def test_unreadable_directory(tmp_path: Path) -> None:
    directory, mapping = write_directory(tmp_path)
    directory.write_text("{not json")
    with pytest.raises(DirectoryFileError) as info:
        load_directory(directory, mapping, load_rules())
    assert info.value.code == "directory.file_json"


def test_record_without_name(tmp_path: Path) -> None:
    records = [dict(r) for r in RECORDS]
    records[2]["pantry_name"] = "  "
    directory, mapping = write_directory(tmp_path, records)
    notes = json.loads((tmp_path / "notes.json").read_text())
    data = json.loads(mapping.read_text())
    data["secondary"]["verify_field"] = None
    mapping.write_text(json.dumps(data))
    (tmp_path / "notes.json").write_text(json.dumps(notes))
    with pytest.raises(DirectoryFileError) as info:
        load_directory(directory, mapping, load_rules())
    assert info.value.code == "directory.record_no_name"


def test_csv_directory(tmp_path: Path) -> None:
    path = tmp_path / "dir.csv"
    path.write_text("Name,Street,Town,Zip,County,Hours,Notes\n"
                    "Corner Pantry,1 First St,Maple Falls,12345,Elm,Tues 5-7pm,Seniors only\n"
                    "Second Pantry,2 Second St,Maple Falls,12345,Elm,,\n", encoding="utf-8")
    mapping = tmp_path / "map.json"
    mapping.write_text(json.dumps({
        "version": "1.0.0", "description": "csv", "directory_id": "csvdir", "format": "csv",
        "fields": {"name": "Name", "address": "Street", "city": "Town", "zip": "Zip", "county": "County",
                   "hours": "Hours", "notes": ["Notes"]},
        "defaults": {"state": "NY", "county_suffix": "County"}}))
    directory = load_directory(path, mapping, load_rules())
    first, second = directory.records
    assert (first.city, first.zip, first.counties, first.state) == ("Maple Falls", "12345", ("Elm County",), "NY")
    assert first.schedule.slots[0].day == 1 and "seniors" in first.attributes
    assert not second.schedule.known and second.source_index == 1
