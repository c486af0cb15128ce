"""Dates as real visitors write them (issue 28): a clock's minutes are never a day, 'by <day>' gives a date
objective the day, a lone 'today' closing a statement is a date but a pleasantry's 'today' is not, and a request
phrased as a question proposes the day or hour it names."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.kernel.goal_models import GoalSpec
from llm_adapters.offline.evidence import ExtractionContext
from llm_adapters.offline.temporal import extract_datetime
from tests.proposer.helpers import project_bundle
from tests.proposer.temporal_support import REF, analysis_of, mentions, objective, spec_with
from tests.proposer.test_temporal_extract import extract, single

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 11), st.integers(10, 59), st.integers(1, 12), st.integers(1, 28))
def test_the_minutes_of_a_clock_time_are_never_the_day(hour: int, minute: int, month: int, day: int) -> None:
    text = f"I would like to book at {hour}:{minute:02d} on {MONTHS[month - 1]} {day}"
    values = [v for m in mentions(text) for v in m.values]
    days = {date.fromisoformat(v[:10]).day for v in values if v[:4].isdigit()}
    assert days == {day}, (text, values)


@pytest.mark.parametrize(("text", "value"), [
    ("I need the car by next Monday", "2027-03-15"),
    ("Probably by Tuesday next week.", "2027-03-16"),
])
def test_by_a_day_gives_a_date_objective_the_day(text: str, value: str) -> None:
    assert extract(text, single("date"), "when") == [value]
    assert extract(text, single("timeframe"), "when") == [f"before:{value}"]


def test_a_lone_today_closing_a_statement_is_a_date() -> None:
    assert extract("I'll be checking in today.", single("date"), "when") == [REF.date().isoformat()]
    assert extract("Today I wanted to ask about prices.", single("date"), "when") == []


@pytest.mark.parametrize("lenient", [True, False])
def test_a_pleasantry_today_is_no_date(lenient: bool) -> None:
    assert extract("Thanks for your help today.", single("date"), "when", lenient=lenient) == []


@pytest.mark.parametrize(("text", "granularity", "value"), [
    ("Can you set the alarm for three pm?", "time", "15:00"),
    ("Could you book me for tomorrow?", "date", "2027-03-11"),
    ("Is there anything on the 14th of June?", "date", "2027-06-14"),
])
def test_a_request_as_a_question_proposes_what_it_names(text: str, granularity: str, value: str) -> None:
    assert extract(text, single(granularity), "when") == [value]


def test_a_question_about_the_company_still_states_nothing() -> None:
    assert extract("Are you open tomorrow?", single("date"), "when") == []


def _stay() -> tuple[GoalSpec, list[str]]:
    spec = spec_with(objective("arrival", "date", 1, cues={"en": ["check in", "arrive"]}),
                     objective("departure", "date", 2, cues={"en": ["check out", "leave"]}))
    return spec, ["arrival", "departure"]


@pytest.mark.parametrize(("text", "owner"), [
    ("We will be checking out on March 7th.", "departure"),
    ("I am checking in on the 7th of April.", "arrival"),
    ("She arrives on the 9th of April.", "arrival"),
])
def test_an_inflected_cue_names_its_objective(text: str, owner: str) -> None:
    spec, ids = _stay()
    found = {oid: extract(text, spec, oid) for oid in ids}
    assert [oid for oid, values in found.items() if values] == [owner], found


@pytest.mark.parametrize("asked", ["arrival", "departure"])
def test_an_unnamed_date_belongs_to_the_date_just_asked(asked: str) -> None:
    spec, ids = _stay()
    target = {o.id: o for o in spec.objectives}
    values = {}
    for oid in ids:
        ctx = ExtractionContext(analysis=analysis_of("On the 13th, I guess.", "en"), objective=target[oid],
                                lenient=oid == asked, correcting=False, spec=spec, reference_time=REF, asked=asked)
        values[oid] = [e.value for e in extract_datetime(ctx)]
    assert values == {oid: (["2027-03-13"] if oid == asked else []) for oid in ids}


def _ruling_out() -> list[tuple[str, str, str]]:
    """(language, 'tomorrow' word, a phrase of the language data that rules a day out after it)."""
    out = []
    for language in ("en", "es", "fr"):
        data = project_bundle().file(f"temporal/{language}")
        tomorrow = str(data["relative_days"]["1"][0])
        out.extend((language, tomorrow, str(phrase)) for phrase in data["negation_after"])
    return out


@pytest.mark.parametrize(("language", "tomorrow", "phrase"), _ruling_out())
@pytest.mark.parametrize("lenient", [True, False])
def test_a_day_ruled_out_after_it_is_never_the_answer(language: str, tomorrow: str, phrase: str,
                                                      lenient: bool) -> None:
    text = f"{tomorrow.capitalize()} {phrase}."
    assert extract(text, single("date", language), "when", language=language, lenient=lenient) == [], text
    assert extract(f"{tomorrow.capitalize()}.", single("date", language), "when", language=language,
                   lenient=True), "the day alone is an answer"
