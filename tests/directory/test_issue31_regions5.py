"""Issue 31, fifth batch of regions: a negated weekday excludes the records opening that day (rule
``negated_day_closed``), never only asks for another day."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from engine.directory.directory_rules import load_rules
from engine.directory.query_time import QueryTimeParser
from engine.directory.retriever import TraceRetriever
from tests.directory.directory_files import retriever_over

RULES = load_rules()
QUERY_TIME = QueryTimeParser(RULES.time)
REFERENCE = datetime(2026, 3, 4, 10)  # a Wednesday
DAY_NAMES = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def _retriever(tmp_path: Path, records: list[dict[str, Any]], state: str) -> TraceRetriever:
    return retriever_over(tmp_path, records, state, RULES)


def _site(name: str, hours: str) -> dict[str, Any]:
    return {"name": name, "address": "1 Main St", "city": "Lowell", "state": "MA", "zip": "01852", "hours": hours,
            "notes": "Food pantry"}


@given(day=st.sampled_from(range(7)), form=st.sampled_from(["not on {d}s", "any day except {d}", "but not {d}",
                                                            "not on a {d}"]))
def test_a_negated_weekday_is_a_closed_day_besides_the_other_days(day: int, form: str) -> None:
    query = "food pantry in town " + form.format(d=DAY_NAMES[day])
    folded = query.lower()
    hours = QUERY_TIME.parse(folded, query, [True] * len(folded), REFERENCE).hours
    assert RULES.time.negated_day_closed
    assert hours is not None and hours.days == frozenset(range(7)) - {day} and hours.closed_days == {day}


@given(day=st.sampled_from(range(7)))
def test_a_plain_weekday_closes_no_day(day: int) -> None:
    query = f"food pantry open on {DAY_NAMES[day]}"
    hours = QUERY_TIME.parse(query.lower(), query, [True] * len(query), REFERENCE).hours
    assert hours is not None and hours.days == {day} and hours.closed_days == frozenset()


def test_a_record_opening_on_the_negated_day_is_left_out_even_when_it_opens_another_day(tmp_path: Path) -> None:
    retriever = _retriever(tmp_path, [_site("Both Days Pantry", "Tuesday 9am-11am; Friday 9am-11am"),
                                      _site("Friday Pantry", "Friday 1pm-3pm"),
                                      _site("Tuesday Pantry", "Tuesday 1pm-3pm")], "MA")
    answer = retriever.answer("food in Lowell not on Tuesday", REFERENCE)
    assert answer.status == "results"
    assert [r.name for r in answer.results] == ["Friday Pantry"]
    assert any(label == "hours" and "Friday" in ev.quote for label, ev in answer.results[0].citations)
    # only the excluded day open: nothing satisfies it, and nothing is invented
    only = _retriever(tmp_path, [_site("Tuesday Pantry", "Tuesday 1pm-3pm")], "MA")
    assert only.answer("food in Lowell not on Tuesday", REFERENCE).results == ()


# ------------------------------------------------------------------ places from the ZIP source
def _zip_site(name: str, city: str, zip_code: str, state: str, notes: str = "Food pantry") -> dict[str, Any]:
    return {"name": name, "address": "1 Main St", "city": city, "state": state, "zip": zip_code,
            "hours": "Monday 9am-11am", "notes": notes}


def _alternate_examples(state: str, limit: int) -> list[tuple[str, str, str, str]]:
    """(alternate name, a ZIP listing it, a ZIP of the same main town not listing it, main town) from the ZIP source:
    two-word names that are no ZIP's main town and no landmark."""
    from engine.directory.geo_cache import us_places
    from engine.directory.normalize import key_tokens

    us = us_places()
    rows = [r for r in us.zips.values() if r.state == state and r.standard]
    mains = {key_tokens(r.city) for r in us.zips.values() if r.state == state}
    landmarks = [key_tokens(w) for w in RULES.natural.landmark_words]
    found = []
    for row in sorted(rows, key=lambda r: r.zip):
        for name in row.alternates:
            key = key_tokens(name)
            if (len(key) != 2 or key in mains or any(w in key for lm in landmarks for w in lm)
                    or us.town_states.get(key)):
                continue
            other = next((r for r in rows if r.city == row.city and r.zip != row.zip and name not in r.alternates),
                         None)
            if other is not None and all(key != key_tokens(n) for n in other.alternates):
                found.append((name, row.zip, other.zip, row.city))
                break
        if len(found) >= limit:
            break
    return found


def test_another_name_of_some_zips_is_those_zips_never_the_whole_main_town(tmp_path: Path) -> None:
    examples = _alternate_examples("GA", 3)
    assert examples
    for name, listing, other, main in examples:
        retriever = _retriever(tmp_path, [_zip_site("Listed Pantry", main, listing, "GA"),
                                          _zip_site("Other Pantry", main, other, "GA")], "GA")
        answer = retriever.answer(f"food in {name}", REFERENCE)
        assert [r.name for r in answer.results] == ["Listed Pantry"], name
        assert any(label == f"zip:{listing}" for label, _ in answer.results[0].citations)
        # the directory lists none of its ZIP codes: an explicit no match, not the main town's records
        elsewhere = _retriever(tmp_path, [_zip_site("Other Pantry", main, other, "GA")], "GA")
        assert elsewhere.answer(f"food in {name}", REFERENCE).status == "no_match", name


def test_two_words_inside_one_listed_place_name_resolve_to_it_but_never_between_two(tmp_path: Path) -> None:
    one = _retriever(tmp_path, [_zip_site("Harbour Pantry", "Upper Quill Point", "21231", "MD"),
                                _zip_site("Hill Pantry", "Bolton Knoll", "21217", "MD")], "MD")
    answer = one.answer("food in Quill Point", REFERENCE)
    assert [r.name for r in answer.results] == ["Harbour Pantry"]
    two = _retriever(tmp_path, [_zip_site("Harbour Pantry", "Upper Quill Point", "21231", "MD"),
                                _zip_site("Lower Pantry", "Lower Quill Point", "21230", "MD")], "MD")
    assert two.answer("food in Quill Point", REFERENCE).results == ()


def test_a_compass_part_of_a_large_town_is_its_zips_lying_that_way(tmp_path: Path) -> None:
    import math

    from engine.directory.geo_cache import us_places

    us = us_places()
    compass = RULES.natural.compass
    assert compass is not None
    rows = [r for r in us.zips.values() if r.state == "OH" and r.city == "Columbus" and r.standard]
    assert len(rows) >= compass.min_town_zips
    records = [_zip_site(f"Pantry {r.zip}", "Columbus", r.zip, "OH") for r in rows]
    retriever = _retriever(tmp_path, records, "OH")
    west = retriever.answer("food in West Columbus", REFERENCE)
    centre = (sum(r.point[0] for r in rows) / len(rows), sum(r.point[1] for r in rows) / len(rows))
    assert west.status == "results" and west.results
    for result in west.results:
        point = us.zips[result.name.split()[-1]].point
        east_of_centre = (point[1] - centre[1]) * math.cos(math.radians(centre[0]))
        assert east_of_centre < 0, result.name  # never a ZIP east of the town's centre
        assert any(label.startswith("zip:") for label, _ in result.citations)
    east = {r.name for r in retriever.answer("food in East Columbus", REFERENCE).results}
    assert not east & {r.name for r in west.results}


# ------------------------------------------------------------------ concepts read from the records' own text
def test_kids_meals_are_their_own_service_not_hot_meals_for_families(tmp_path: Path) -> None:
    retriever = _retriever(tmp_path, [
        _site("Summer Site", "Monday 11am-1pm") | {"notes": "Summer Meal Program. All children under 18 are eligible"},
        _site("Family Kitchen", "Monday 11am-1pm") | {"notes": "Hot lunch served for families with children"}], "MA")
    for query in ("kids summer meals in Lowell", "free lunch for my kids in Lowell", "Lowell summer meal sites"):
        answer = retriever.answer(query, REFERENCE)
        assert [r.name for r in answer.results] == ["Summer Site"], query
        assert any(label == "concept:kids_meals" for label, _ in answer.results[0].citations)
    negated = retriever.answer("food in Lowell, not kids meal sites", REFERENCE)
    assert [r.name for r in negated.results] == ["Family Kitchen"]


def test_fridges_open_to_all_and_own_bags_are_read_from_the_record(tmp_path: Path) -> None:
    retriever = _retriever(tmp_path, [
        _site("Corner Fridge", "Monday 9am-11am") | {"notes": "Free outdoor community fridge/pantry"},
        _site("Open Pantry", "Monday 9am-11am") | {"notes": "Open to all. Must bring own bags/cart"},
        _site("Church Pantry", "Monday 9am-11am") | {"notes": "Photo ID required"}], "MA")
    assert [r.name for r in retriever.answer("community fridge in Lowell", REFERENCE).results] == ["Corner Fridge"]
    assert [r.name for r in retriever.answer("Lowell pantry with no requirements", REFERENCE).results] == [
        "Open Pantry"]
    assert [r.name for r in retriever.answer("Lowell pantry where I bring my own bags", REFERENCE).results] == [
        "Open Pantry"]
    others = {r.name for r in retriever.answer("Lowell food that isn't a community fridge", REFERENCE).results}
    assert others == {"Open Pantry", "Church Pantry"}


def test_a_note_saying_when_to_phone_adds_no_opening_but_a_note_with_more_openings_does(tmp_path: Path) -> None:
    retriever = _retriever(tmp_path, [
        _site("Phone Pantry", "Saturday 5pm-7pm") | {
            "notes": "Call the church office Monday through Friday before 3:00 to check which Saturdays we are open."},
        _site("Extra Pantry", "Saturday 5pm-7pm") | {"notes": "Also open Wednesday 10am-12pm."}], "MA")
    phone = retriever.directory.record(0)
    extra = retriever.directory.record(1)
    assert phone is not None and {s.day for s in phone.schedule.slots} == {5}
    assert extra is not None and {s.day for s in extra.schedule.slots} == {2, 5}
    assert [r.name for r in retriever.answer("food in Lowell open Wednesday", REFERENCE).results] == ["Extra Pantry"]


def test_a_place_of_three_words_is_found_by_its_initials_with_an_ordinal_as_its_digit(tmp_path: Path) -> None:
    retriever = _retriever(tmp_path, [_zip_site("Mill Pantry", "Old Third Mill", "21231", "MD"),
                                      _zip_site("Hill Pantry", "Bolton Knoll", "21217", "MD")], "MD")
    for said in ("O3M", "OTM"):
        assert [r.name for r in retriever.answer(f"food in {said}", REFERENCE).results] == ["Mill Pantry"], said


def test_zip_codes_and_towns_listed_apart_are_alternatives_but_a_zip_inside_a_town_narrows_it(tmp_path: Path) -> None:
    retriever = _retriever(tmp_path, [_zip_site("Harbour Pantry", "Baltimore", "21231", "MD"),
                                      _zip_site("Midtown Pantry", "Baltimore", "21201", "MD"),
                                      _zip_site("Brooklyn Pantry", "Brooklyn", "21225", "MD")], "MD")
    either = retriever.answer("food in 21231 or Brooklyn", REFERENCE)
    assert either.parsed.constraints.places_any
    assert {r.name for r in either.results} == {"Harbour Pantry", "Brooklyn Pantry"}
    inside = retriever.answer("food in 21231, Baltimore", REFERENCE)
    assert not inside.parsed.constraints.places_any
    assert [r.name for r in inside.results] == ["Harbour Pantry"]
