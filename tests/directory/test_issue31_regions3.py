"""Issue 31, third batch of regions: a day stated apart from its times, stale weekday labels, the okina, regional
names with their source, negated names, non-food service types, enrollment and served ZIP codes, records placed
only by coordinates, misspelt towns."""

from __future__ import annotations

import json
from datetime import date, datetime
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.directory.answer import render
from engine.directory.constraints import HoursConstraint, TimeCondition
from engine.directory.directory_rules import load_rules
from engine.directory.hours import HoursParser
from engine.directory.normalize import key_tokens
from engine.directory.retriever import TraceRetriever
from tests.directory.directory_files import retriever_over

RULES = load_rules()
HOURS = HoursParser(RULES.time)
REFERENCE = datetime(2026, 3, 4, 10)  # a Wednesday
DAY_NAMES = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def _retriever(tmp_path: Path, records: list[dict[str, Any]], state: str, **fields: Any) -> TraceRetriever:
    return retriever_over(tmp_path, records, state, RULES, fields=fields.pop("fields", None),
                          coordinates={"latitude": "lat", "longitude": "lon"}, **fields)


def _clock(minute: int) -> str:
    hour, rest = divmod(minute, 60)
    return f"{hour % 12 or 12}:{rest:02d} {'am' if hour < 12 else 'pm'}"


@settings(max_examples=25, deadline=None)
@given(day=st.sampled_from(range(7)), start=st.integers(16, 30).map(lambda h: h * 30),
       length=st.integers(1, 6).map(lambda h: h * 30))
def test_a_day_note_is_read_with_the_time_note_after_it_and_quoted_verbatim(day: int, start: int,
                                                                            length: int) -> None:
    import tempfile

    span = f"{_clock(start)} - {_clock(start + length)}"
    notes = f"Distribution Day: {DAY_NAMES[day]} | Distribution Time: {span} | Enrollment Time: 9:00 am"
    with tempfile.TemporaryDirectory() as tmp:
        retriever = _retriever(Path(tmp), [{"name": "Site", "address": "1 Main St", "city": "San Francisco",
                                             "state": "CA", "zip": "94110", "hours": span, "notes": notes}], "CA")
    record = retriever.directory.records[0]
    assert {(s.day, s.start, s.end) for s in record.schedule.slots} == {(day, start, start + length)}
    assert record.hours_evidence is not None and record.hours_evidence.quote in notes
    assert record.hours_evidence.quote.startswith("Distribution Day") and span in record.hours_evidence.quote


@given(label=st.sampled_from(range(7)), day=st.sampled_from(range(7)),
       lead=st.sampled_from(["3rd {d} of the month", "Every {d}", "{d}s", "Last {d} of the month", "{d}"]))
def test_a_leading_day_label_followed_by_weekdays_of_its_own_labels_nothing(label: int, day: int,
                                                                            lead: str) -> None:
    text = f"{DAY_NAMES[label]}: {lead.format(d=DAY_NAMES[day])}, 9am-11am (except holidays)"
    assert {s.day for s in HOURS.parse(text).slots} == {day}, text


@given(first=st.sampled_from(range(7)), second=st.sampled_from(range(7)))
def test_a_day_label_followed_by_its_times_keeps_its_day(first: int, second: int) -> None:
    text = f"{DAY_NAMES[first]}s: 8 AM - 12 PM\n\n{DAY_NAMES[second]}s: 1 PM - 5 PM"
    assert {s.day for s in HOURS.parse(text).slots} == {first, second}


def test_the_okina_is_a_letter_of_the_word() -> None:
    assert key_tokens("Kea\u02bbau") == key_tokens("Keaau") == key_tokens("Kea'au") == ("keaau",)
    assert key_tokens("Honoka\u02bba") == ("honokaa",)


def _hawaii(tmp_path: Path) -> TraceRetriever:
    towns = [("Pahoa", "96778"), ("Keaau", "96749"), ("Hilo", "96720"), ("Honokaa", "96727"),
             ("Naalehu", "96772"), ("Kailua Kona", "96740"), ("Captain Cook", "96704")]
    records: list[dict[str, Any]] = [
        {"name": f"Pantry {i}", "address": f"{i} Main St", "city": city, "state": "HI", "zip": code,
         "hours": "Monday: Tuesday 9am-11am"} for i, (city, code) in enumerate(towns)]
    # placed only by coordinates (a failed geocode on another island): no town or ZIP of its own
    records.append({"name": "Pantry 7", "address": "", "city": "", "state": "HI", "zip": "", "hours": "",
                    "lat": 21.3069, "lon": -157.8583})
    return _retriever(tmp_path, records, "HI")


def test_districts_and_the_island_name_are_regions_from_the_rule_data(tmp_path: Path) -> None:
    retriever = _hawaii(tmp_path)
    puna = retriever.answer("food pantries in Puna", REFERENCE)
    assert sorted(r.name for r in puna.results) == ["Pantry 0", "Pantry 1"]
    kona = retriever.answer("food pantry in Kona", REFERENCE)
    assert sorted(r.name for r in kona.results) == ["Pantry 5", "Pantry 6"]
    island = retriever.answer("food pantries on the Big Island open Tuesday", REFERENCE)
    assert island.status == "results" and "Pantry 7" not in {r.name for r in island.results}
    # one county with records of its own: a question without a place is answered, never asked where
    assert retriever.answer("I need food", REFERENCE).status == "results"
    entries = json.loads((RULES.root / "directory" / "regional_names.json").read_text(encoding="utf-8"))
    hawaii = [e for e in entries["regions"] if e["state"] == "HI"]
    assert hawaii and all(e.get("source") for e in hawaii)  # every entry of this batch says where it is from


def test_a_regional_name_inside_a_records_whole_name_is_that_record(tmp_path: Path) -> None:
    records = [{"name": name, "address": f"{i} Main St", "city": "Seattle", "state": "WA", "zip": code,
                "hours": ""} for i, (name, code) in enumerate([("Ballard Food Bank", "98107"),
                                                                ("Sunset Hill Pantry", "98117"),
                                                                ("Downtown Pantry", "98101")])]
    retriever = _retriever(tmp_path, records, "WA")
    assert [r.name for r in retriever.answer("Ballard Food Bank", REFERENCE).results] == ["Ballard Food Bank"]
    neighbourhood = retriever.answer("food bank in Ballard", REFERENCE)
    assert sorted(r.name for r in neighbourhood.results) == ["Ballard Food Bank", "Sunset Hill Pantry"]


@given(cue=st.sampled_from(["not the", "other than the", "except the", "but not the", "anything but the"]))
@settings(max_examples=10, deadline=None)
def test_a_negated_name_excludes_its_records_and_cites_the_others_names(cue: str) -> None:
    import tempfile

    records = [{"name": name, "address": f"{i} Main St", "city": "Tacoma", "state": "WA", "zip": "98402",
                "hours": ""} for i, name in enumerate(["Salvation Army Tacoma", "Nourish Food Bank", "Hope Pantry"])]
    with tempfile.TemporaryDirectory() as tmp:
        retriever = _retriever(Path(tmp), records, "WA")
    answer = retriever.answer(f"Tacoma food bank, {cue} Salvation Army", REFERENCE)
    assert answer.status == "results"
    assert sorted(r.name for r in answer.results) == ["Hope Pantry", "Nourish Food Bank"]
    assert all(any(label == "not:name" for label, _ in r.citations) for r in answer.results)


def test_a_service_type_field_of_non_food_services_only_is_no_food_pantry(tmp_path: Path) -> None:
    records = [{"name": name, "address": f"{i} Main St", "city": "Seattle", "state": "WA", "zip": "98105",
                "hours": "", "services": services}
               for i, (name, services) in enumerate([("University District", ["Community Gardens"]),
                                                     ("University Farmers Market", ["Farmers Markets"]),
                                                     ("U District Food Bank", ["Food Bank"])])]
    retriever = _retriever(tmp_path, records, "WA", fields={"services": ["services"]})
    assert [r.name for r in retriever.answer("food banks in the U District", REFERENCE).results] == [
        "U District Food Bank"]
    gardens = retriever.answer("community gardens in Seattle", REFERENCE)
    assert [r.name for r in gardens.results] == ["University District"]


def _sf(tmp_path: Path) -> TraceRetriever:
    rows = [("Site A", "94110", "94110, 94112", True), ("Site B", "94112", "94112, 94116", False),
            ("Site C", "94116", "94116", True)]
    records = [{"name": name, "address": f"{i} Main St", "city": "San Francisco", "state": "CA", "zip": code,
                "hours": "10:00 am - 12:00 pm", "enrollment_required": flag,
                "notes": f"Distribution Day: Friday | Zip Codes Served: {served}"}
               for i, (name, code, served, flag) in enumerate(rows)]
    return _retriever(tmp_path, records, "CA",
                      value_tags=[{"field": "enrollment_required", "pattern": "(?i)^true$",
                                   "tag": "enrollment_required"}])


def test_a_zip_the_visitor_lives_in_asks_for_the_records_serving_it(tmp_path: Path) -> None:
    retriever = _sf(tmp_path)
    served = retriever.answer("I live in 94116, which San Francisco pantries serve my zip code?", REFERENCE)
    assert served.parsed.constraints.served_zip == "94116"
    assert sorted(r.name for r in served.results) == ["Site B", "Site C"]
    for result in served.results:  # the quote is the record's own 'Zip Codes Served' passage
        quote = dict(result.citations)["served_zip:94116"].quote
        assert quote.startswith("Zip Codes Served") and "94116" in quote
    located = retriever.answer("food pantry in 94116", REFERENCE)  # no residence cue: the ZIP is a place
    assert [r.name for r in located.results] == ["Site C"]


def test_enrollment_read_from_a_flag_and_its_negation(tmp_path: Path) -> None:
    retriever = _sf(tmp_path)
    needed = retriever.answer("San Francisco pantries that need enrollment", REFERENCE)
    assert sorted(r.name for r in needed.results) == ["Site A", "Site C"]
    assert all(dict(r.citations)["concept:enrollment"].quote == "true" for r in needed.results)
    for text in ("SF food pantry where I don't have to enroll", "San Francisco pantry, no enrollment needed"):
        assert [r.name for r in retriever.answer(text, REFERENCE).results] == ["Site B"], text
    friday = retriever.answer("San Francisco pantry open Friday", REFERENCE)  # the day note, the hours field's times
    assert len(friday.results) == 3
    shown = render(friday, RULES, "t")  # the day quoted from the note, the times from the hours field
    assert "Distribution Day: Friday 10:00 am - 12:00 pm" in shown


def test_a_misspelt_town_joins_the_real_town_it_is_close_to(tmp_path: Path) -> None:
    records = [{"name": f"Pantry {i}", "address": f"{i} Volcano Rd", "city": city, "state": "HI", "zip": "96760",
                "hours": ""} for i, city in enumerate(["Kurtistown", "Kurtisown"])]
    retriever = _retriever(tmp_path, records, "HI")
    assert {r.city for r in retriever.directory.records} == {"Kurtistown"}
    assert len(retriever.answer("food in Kurtistown", REFERENCE).results) == 2


@settings(max_examples=80, deadline=None)
@given(days=st.frozensets(st.sampled_from(range(7)), max_size=3),
       dates=st.lists(st.dates(min_value=date(2026, 3, 1), max_value=date(2026, 4, 30)), max_size=2),
       relation=st.sampled_from([None, "after", "before", "at", "until"]), minute=st.integers(6 * 60, 20 * 60),
       among=st.one_of(st.none(), st.frozensets(st.integers(0, 9), max_size=6)))
def test_grouped_openings_find_exactly_the_records_a_per_record_scan_finds(
        retriever: TraceRetriever, days: frozenset[int], dates: list[date], relation: str | None, minute: int,
        among: frozenset[int] | None) -> None:
    # differential: the pattern-grouped set query against the per-record scan it replaced on the query path
    conditions = (TimeCondition(relation, minute),) if relation else ()
    hours = HoursConstraint(days=days, dates=tuple(dates), conditions=conditions)
    pool = set(among) if among is not None else None
    graph = retriever.graph
    assert graph.records_open_set(hours, among=pool) == set(graph.records_open(hours, among=pool))


def test_a_chains_branch_named_by_its_town_is_found_by_the_chain_and_the_town(tmp_path: Path) -> None:
    records = [{"name": f"Hopelink {town}", "address": f"{i} Main St", "city": town, "state": "WA", "zip": code,
                "hours": ""} for i, (town, code) in enumerate([("Bellevue", "98004"), ("Redmond", "98052")])]
    records.append({"name": "Renewal Food Bank", "address": "9 Elm St", "city": "Bellevue", "state": "WA",
                    "zip": "98004", "hours": ""})
    retriever = _retriever(tmp_path, records, "WA")
    assert [r.name for r in retriever.answer("Hopelink in Bellevue", REFERENCE).results] == ["Hopelink Bellevue"]
    chain = retriever.answer("Hopelink", REFERENCE)  # two towns: ask which, naming them
    assert chain.status == "clarify" and chain.question is not None and "Redmond" in chain.question
