"""Issue 31, second batch of regions: letter day codes and structured schedules, negated times, townships, names
written as people write them (ampersands, hosts, initials, titles), towns from coordinates."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.directory.directory_rules import load_rules
from engine.directory.hours import HoursParser
from engine.directory.ingest import load_directory
from engine.directory.mapping import values
from engine.directory.query_time import QueryTimeParser
from engine.directory.retriever import TraceRetriever

RULES = load_rules()
HOURS = HoursParser(RULES.time)
QUERY_TIME = QueryTimeParser(RULES.time)
REFERENCE = datetime(2026, 3, 4, 10)  # a Wednesday
DAY_NAMES = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
CODES = {0: "M", 1: "Tu", 2: "W", 3: "Th", 4: "F", 5: "Sa", 6: "Su"}  # as the NC directory writes them


def _clock(minute: int) -> str:
    hour, rest = divmod(minute, 60)
    suffix = "a" if hour < 12 else "p"
    shown = hour % 12 or 12
    return f"{shown}:{rest:02d}{suffix}" if rest else f"{shown}{suffix}"


@settings(max_examples=120, deadline=None)
@given(days=st.lists(st.sampled_from(range(7)), min_size=1, max_size=3, unique=True),
       start=st.integers(7 * 2, 15 * 2).map(lambda h: h * 30), length=st.integers(1, 8).map(lambda h: h * 30),
       joiner=st.sampled_from([" & ", ", "]), colon=st.booleans())
def test_lone_letter_day_codes_read_as_the_days_they_name(days: list[int], start: int, length: int, joiner: str,
                                                          colon: bool) -> None:
    days = sorted(days)
    separator = ": " if colon else " "
    text = joiner.join(CODES[d] for d in days) + separator + f"{_clock(start)} - {_clock(start + length)}"
    schedule = HOURS.parse(text)
    assert {(s.day, s.start, s.end) for s in schedule.slots} == {(d, start, start + length) for d in days}, text


@given(word=st.sampled_from(["the month", "Thanks to all", "Free food for Families", "Saturday mornings"]))
def test_day_codes_inside_words_are_no_days(word: str) -> None:
    # 'Th' in 'Thanks', 'F' in 'Free', 'M' in 'month': only a code standing alone before a schedule counts
    assert all(slot.day == 5 for slot in HOURS.parse(word).slots)


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(st.sampled_from(range(7)), st.integers(8, 12), st.integers(1, 4)), min_size=1,
                     max_size=4, unique_by=lambda r: r[0]))
def test_a_structured_schedule_reads_one_opening_per_row(rows: list[tuple[int, int, int]]) -> None:
    def am_pm(hour: int) -> str:
        return f"{hour % 12 or 12} {'a.m.' if hour < 12 else 'p.m.'}"

    record = {"regular_schedule": [{"weekday": DAY_NAMES[d], "opens_at": am_pm(h), "closes_at": am_pm(h + n)}
                                   for d, h, n in rows]}
    text = "; ".join(values(record, "regular_schedule"))
    assert {(s.day, s.start, s.end) for s in HOURS.parse(text).slots} == {
        (d, h * 60, (h + n) * 60) for d, h, n in rows}


def _time(query: str) -> Any:
    folded = query.lower()
    return QUERY_TIME.parse(folded, query, [True] * len(folded), REFERENCE).hours


@given(day=st.sampled_from(range(7)), form=st.sampled_from(["not on {d}s", "any day except {d}", "but not {d}",
                                                            "no {d}s please", "I can't go on {d}"]))
def test_a_negated_weekday_is_excluded_never_asked_for(day: int, form: str) -> None:
    hours = _time("food pantry in town " + form.format(d=DAY_NAMES[day]))
    assert hours is not None and hours.days == frozenset(range(7)) - {day}


@given(day=st.sampled_from(range(7)))
def test_closed_on_a_day_is_fine_is_no_constraint_and_a_plain_day_is_wanted(day: int) -> None:
    assert _time(f"pantry, closed {DAY_NAMES[day]}s is fine") is None
    wanted = _time(f"pantry open on {DAY_NAMES[day]}")
    assert wanted is not None and wanted.days == frozenset({day})
    weekday = day % 4  # two weekdays asked for, the weekend excluded: the two weekdays remain
    both = _time(f"pantry open {DAY_NAMES[weekday]} or {DAY_NAMES[weekday + 1]}, not on weekends")
    assert both is not None and both.days == frozenset({weekday, weekday + 1})


def test_a_negated_daypart_asks_for_the_other_side_of_the_day() -> None:
    morning = _time("food but not in the morning")
    assert morning is not None and [(c.relation, c.start) for c in morning.conditions] == [("after", 12 * 60)]
    evening = _time("food, not in the evening")
    assert evening is not None and [(c.relation, c.start) for c in evening.conditions] == [("before", 17 * 60)]


def _directory(tmp_path: Path, records: list[dict[str, Any]], state: str) -> TraceRetriever:
    path = tmp_path / "records.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    mapping = tmp_path / "mapping.json"
    mapping.write_text(json.dumps({
        "version": "1.0.0", "description": "test", "directory_id": "t", "format": "json",
        "fields": {"name": "name", "address": "address", "city": "city", "state": "state", "zip": "zip",
                   "hours": "hours"},
        "defaults": {"state": state}, "coordinates": {"latitude": "lat", "longitude": "lon"}}), encoding="utf-8")
    return TraceRetriever(load_directory(path, mapping, RULES), RULES)


def test_a_township_is_every_directory_town_inside_it_never_a_neighbouring_city(tmp_path: Path) -> None:
    # the ZIP source lists Lawrenceville under a Lawrence Township ZIP; Trenton is listed there too but is the
    # main town of its own ZIPs, so it is no village of the township
    records = [{"name": f"Pantry {i}", "address": f"{i} Main St", "city": city, "state": "NJ", "zip": zip_code,
                "hours": "Monday 9am-11am"}
               for i, (city, zip_code) in enumerate([("Lawrenceville", "08648"), ("Lawrence Township", "08648"),
                                                     ("Trenton", "08608"), ("Ewing", "08618")])]
    retriever = _directory(tmp_path, records, "NJ")
    names = {r.name for r in retriever.answer("food pantry in Lawrence Township", REFERENCE).results}
    assert names == {"Pantry 0", "Pantry 1"}
    ewing = retriever.answer("Ewing Twp food pantry", REFERENCE)
    assert [r.name for r in ewing.results] == ["Pantry 3"]


def test_names_as_people_write_them(tmp_path: Path) -> None:
    records = [
        {"name": "Loaves & Fishes Soup Kitchen", "address": "1 Main St", "city": "Pueblo", "state": "CO",
         "zip": "81003", "hours": ""},
        {"name": "First Church \u2013 dba Hope\u2019s Kitchen", "address": "2 Main St", "city": "Cortez",
         "state": "CO", "zip": "81321", "hours": ""},
        {"name": "Grace's Kitchen Cortez", "address": "3 Elm St", "city": "Cortez", "state": "CO", "zip": "81321",
         "hours": ""},
        {"name": "Pikes Valley Community College Food Pantry", "address": "4 Oak St", "city": "Pueblo",
         "state": "CO", "zip": "81003", "hours": ""},
    ] + [{"name": f"Daily Bread @ {host}", "address": f"{n} Pine St", "city": "Pueblo", "state": "CO",
          "zip": "81003", "hours": ""} for n, host in enumerate(["St. Paul", "Union Hall", "Rescue Mission",
                                                                  "Train Station"], start=10)]
    retriever = _directory(tmp_path, records, "CO")
    assert [r.name for r in retriever.answer("Loaves & Fishes in Pueblo", REFERENCE).results] == [
        "Loaves & Fishes Soup Kitchen"]
    assert [r.source_index for r in retriever.answer("Hope's Kitchen in Cortez", REFERENCE).results] == [1]
    assert [r.source_index for r in retriever.answer("PVCC food pantry", REFERENCE).results] == [3]
    # one programme at four hosts of one town: more sites than one answer shows, so ask which, naming them
    asked = retriever.answer("Daily Bread", REFERENCE)
    assert asked.status == "clarify" and asked.question is not None and "Train Station" in asked.question


def test_a_town_before_its_state_code_and_a_lone_spanish_phrase_word_are_towns(tmp_path: Path) -> None:
    records: list[dict[str, Any]] = [
        {"name": "A", "address": "1 Main St", "city": "La Junta", "state": "CO", "zip": "81050", "hours": ""},
               {"name": "B", "address": "2 Main St", "city": "Pueblo", "state": "CO", "zip": "81003", "hours": ""},
               # no city, no ZIP: the town its coordinates lie in
               {"name": "C", "address": "", "city": "", "state": "CO", "zip": "", "hours": "",
                "lat": 38.0512, "lon": -103.7247}]
    retriever = _directory(tmp_path, records, "CO")
    assert [r.name for r in retriever.answer("food pantry La Junta CO", REFERENCE).results] == ["A"]
    assert [r.name for r in retriever.answer("pueblo food pantries", REFERENCE).results] == ["B"]
    assert retriever.directory.records[2].city == "Rocky Ford"


@given(cue=st.sampled_from(["isn't a", "isnt a", "is not a", "that's not a", "aren't"]))
def test_a_negated_service_is_excluded_never_asked_for(cue: str) -> None:
    from engine.directory.semantic import ConceptMatcher

    requests = ConceptMatcher(RULES.semantic).requests(f"pantry that {cue} soup kitchen")
    assert [(r.concept, r.excluded) for r in requests] == [("hot_meals", True)]


def test_a_town_by_its_leading_word_and_an_organisation_by_its_programmes(tmp_path: Path) -> None:
    # 'Manitou' is a town in other states, but here it can only mean the one listed town it begins
    records = [{"name": "Community Pantry", "address": "1 Main St", "city": "Manitou Springs", "state": "CO",
                "zip": "80829", "hours": ""},
               {"name": "Open Door Ministries - Pantry", "address": "2 Main St", "city": "Pueblo", "state": "CO",
                "zip": "81003", "hours": ""},
               {"name": "Open Door Ministries - Father's Table", "address": "2 Main St", "city": "Pueblo",
                "state": "CO", "zip": "81003", "hours": ""},
               {"name": "Open Door Ministries Thrift Store", "address": "9 Elm St", "city": "Pueblo",
                "state": "CO", "zip": "81003", "hours": ""}]
    retriever = _directory(tmp_path, records, "CO")
    assert [r.name for r in retriever.answer("Manitou food pantry", REFERENCE).results] == ["Community Pantry"]
    named = retriever.answer("Open Door Ministries in Pueblo", REFERENCE)
    assert sorted(r.source_index for r in named.results) == [1, 2]


def test_an_address_in_another_state_moves_its_record_and_a_one_county_directory_still_needs_no_place(
        tmp_path: Path) -> None:
    # every record's fields say Mercer County, NJ (a directory-wide default); one address says Morrisville, PA
    records: list[dict[str, Any]] = [
        {"name": f"Pantry {i}", "address": f"{i} Main St Trenton, NJ 08608", "county": "Mercer", "state": "NJ",
         "hours": "Saturday 9am-11am"} for i in range(3)]
    records.append({"name": "Over The Line", "address": "771 North Pennsylvania Avenue Morrisville, PA 19067",
                    "county": "Mercer", "state": "NJ", "hours": "Saturday 9am-11am"})
    path = tmp_path / "records.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    mapping = tmp_path / "mapping.json"
    mapping.write_text(json.dumps({
        "version": "1.0.0", "description": "test", "directory_id": "t", "format": "json",
        "fields": {"name": "name", "address": "address", "county": "county", "state": "state", "hours": "hours"},
        "defaults": {"county_suffix": "County"}}), encoding="utf-8")  # like Mercer's: the ZIP only in the address
    retriever = TraceRetriever(load_directory(path, mapping, RULES), RULES)
    moved = retriever.directory.records[3]
    assert (moved.state, moved.county_keys) == ("PA", ("bucks",))
    assert [r.name for r in retriever.answer("Bucks County PA food pantry", REFERENCE).results] == ["Over The Line"]
    assert retriever.answer("food pantry open Saturday", REFERENCE).status == "results"
