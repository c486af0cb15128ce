"""Issue 31, fifth batch of regions: a negated weekday excludes the records opening that day (rule
``negated_day_closed``), never only asks for another day."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from engine.directory.directory_rules import load_rules
from engine.directory.ingest import load_directory
from engine.directory.query_time import QueryTimeParser
from engine.directory.retriever import TraceRetriever

RULES = load_rules()
QUERY_TIME = QueryTimeParser(RULES.time)
REFERENCE = datetime(2026, 3, 4, 10)  # a Wednesday
DAY_NAMES = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def _retriever(tmp_path: Path, records: list[dict[str, Any]], state: str) -> TraceRetriever:
    folder = tmp_path / str(len(list(tmp_path.iterdir())))
    folder.mkdir()
    path = folder / "records.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    mapping = folder / "mapping.json"
    mapping.write_text(json.dumps({
        "version": "1.0.0", "description": "test", "directory_id": "t", "format": "json",
        "fields": {"name": "name", "address": "address", "city": "city", "state": "state", "zip": "zip",
                   "hours": "hours", "notes": ["notes"]},
        "defaults": {"state": state}}), encoding="utf-8")
    return TraceRetriever(load_directory(path, mapping, RULES), RULES)


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
