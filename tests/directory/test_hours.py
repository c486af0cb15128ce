from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.directory.directory_rules import load_rules
from engine.directory.hours import HoursParser
from engine.directory.models import Slot

PARSER = HoursParser(load_rules().time)
MON, TUE, WED, THU, FRI, SAT, SUN = range(7)


def hm(text: str) -> int:
    hour, minute = text.split(":")
    return int(hour) * 60 + int(minute)


def slots(text: str) -> set[tuple[int, int | None, int | None, frozenset[int] | None, bool]]:
    return {(s.day, s.start, s.end, s.weeks, s.irregular) for s in PARSER.parse(text).slots}


@pytest.mark.parametrize(("text", "expected"), [
    ("Monday-Friday from 8:30am-3pm", {(d, hm("8:30"), hm("15:00"), None, False) for d in range(5)}),
    ("Tuesday from 5-7pm and Thursday from 9-11am",
     {(TUE, hm("17:00"), hm("19:00"), None, False), (THU, hm("9:00"), hm("11:00"), None, False)}),
    ("2nd & 4th Saturday of each month from 10am-12pm", {(SAT, hm("10:00"), hm("12:00"), frozenset({2, 4}), False)}),
    ("Last Wednesday of the month 4:30-6pm", {(WED, hm("16:30"), hm("18:00"), frozenset({-1}), False)}),
    ("Saturday: 9:00:00-12:00:00, 9:00:00-12:00:00", {(SAT, hm("9:00"), hm("12:00"), None, False)}),
    ("Every Wednesday 6:00 PM - 8:00 PM", {(WED, hm("18:00"), hm("20:00"), None, False)}),
    ("MWF 10-12pm", {(d, hm("10:00"), hm("12:00"), None, False) for d in (MON, WED, FRI)}),
    ("Mon-Thur: 9:30am to 12:30pm", {(d, hm("9:30"), hm("12:30"), None, False) for d in range(4)}),
    ("Sunday-Tuesday from 1-3pm", {(d, hm("13:00"), hm("15:00"), None, False) for d in (SUN, MON, TUE)}),
    ("Weekly Tuesday 9:00AM 1:00PM", {(TUE, hm("9:00"), hm("13:00"), None, False)}),
    ("Every Friday 10:00 AM Noon", {(FRI, hm("10:00"), hm("12:00"), None, False)}),
    ("Thursdays at 11:15am", {(THU, hm("11:15"), None, None, False)}),
    ("One Thursday each month", {(THU, None, None, None, True)}),
    ("Twice per Month Saturday 3:00PM 4:30PM", {(SAT, hm("15:00"), hm("16:30"), None, True)}),
    ("Wednesdays", {(WED, None, None, None, False)}),
    ("Friday before the 4th Saturday of each month from 4:45-5:45pm", {(FRI, hm("16:45"), hm("17:45"), None, True)}),
])
def test_formats(text: str, expected: set[tuple[int, int | None, int | None, frozenset[int] | None, bool]]) -> None:
    assert slots(text) == expected


def test_closed_clause_subtracts_lunch_break() -> None:
    result = slots("M-F 9:00-4:30 Closed 12:30-1:30 for lunch")
    assert (MON, hm("9:00"), hm("12:30"), None, False) in result
    assert (MON, hm("13:30"), hm("16:30"), None, False) in result
    assert not any(s[1] is not None and s[1] < hm("13:00") < (s[2] or 0) for s in result)


def test_closed_week_of_month_removes_that_week() -> None:
    result = slots("Saturday, 10:00am-12:00pm, (closed 1st Saturday of each month)")
    assert result == {(SAT, hm("10:00"), hm("12:00"), frozenset({2, 3, 4, 5}), False)}


@pytest.mark.parametrize("text", ["Not available", "", "Call for hours", "TEFAP Distribution Site: https://x.org/tefap/",
                                  "Next Mobile Pantry :  Wednesday, March 26, 2025 starting at 11am",
                                  "Photo ID or SS card for each household member"])
def test_unknown_stays_unknown(text: str) -> None:
    assert not PARSER.parse(text).known


def test_phone_numbers_are_not_times() -> None:
    result = slots("Tue and Thu, 8:30am-11:30am 620-228-8694")
    assert result == {(TUE, hm("8:30"), hm("11:30"), None, False), (THU, hm("8:30"), hm("11:30"), None, False)}


def test_months_make_schedule_seasonal() -> None:
    schedule = PARSER.parse("Last Saturday of the month from 8:30-9:30am (not available Nov or Dec)")
    assert schedule.seasonal and schedule.known


def test_impossible_range_keeps_day_but_not_time() -> None:
    assert slots("Every Thursday 5:00 PM 1:00 PM") == {(THU, None, None, None, False)}


def test_slot_dates_follow_week_of_month() -> None:
    second_fourth = Slot(SAT, 600, 720, frozenset({2, 4}))
    assert second_fourth.opens_on_date(date(2026, 3, 14))
    assert not second_fourth.opens_on_date(date(2026, 3, 7))
    last = Slot(SAT, 600, 720, frozenset({-1}))
    assert last.opens_on_date(date(2026, 3, 28)) and not last.opens_on_date(date(2026, 3, 21))
    assert not Slot(SAT, 600, 720, None, irregular=True).opens_on_date(date(2026, 3, 14))


DAY_NAMES = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


@settings(max_examples=150, deadline=None)
@given(day=st.integers(0, 6), start=st.integers(7, 11), length=st.integers(1, 5), pm=st.booleans())
def test_generated_day_ranges_round_trip(day: int, start: int, length: int, pm: bool) -> None:
    begin = start + (12 if pm and start + length + 12 <= 23 else 0)
    end = begin + length
    def clock(h: int) -> str:
        return f"{h % 12 or 12}{'am' if h < 12 else 'pm'}"
    text = f"{DAY_NAMES[day]} from {clock(begin)}-{clock(end)}"
    assert slots(text) == {(day, begin * 60, end * 60, None, False)}


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=120))
def test_arbitrary_text_never_breaks_invariants(text: str) -> None:
    for slot in PARSER.parse(text).slots:
        assert 0 <= slot.day <= 6
        if slot.start is not None:
            assert 0 <= slot.start <= 24 * 60
            if slot.end is not None:
                assert slot.start < slot.end <= 24 * 60
        if slot.weeks is not None:
            assert slot.weeks <= {1, 2, 3, 4, 5, -1}
