"""Two date objectives of one kind (issue 28): a range whose ends are written as a weekday with its day ('from
Saturday the 9th until Sunday the 10th', 'del sábado 9 al domingo 10', 'du samedi 9 au dimanche 10') reads both
ends whole; 'from the 2nd till next Friday' ends on the first such weekday after its start; and the end objective
takes the range's last day even when a weekday names its first one (the weekday check looks at the day's own
words). Weekday names and connectors come from rules/temporal/<lang>.json; dates are generated around REF."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from functools import cache
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.goals.publication import spec_hash
from engine.kernel.conversation import Message, Role
from engine.kernel.goal_models import GoalSpec, PublishedGoalSpec
from engine.kernel.ports import ProposerInput
from engine.kernel.validators.temporal import WEEKDAYS
from tests.proposer.helpers import project_bundle, proposer
from tests.proposer.temporal_support import REF, mentions, objective, spec_with

# How each language writes "from <weekday> <day> until <weekday> <day>" (glue words; names from the rules).
FRAME = {"en": "from {wd1} the {d1}th until {wd2} the {d2}th",
         "es": "del {wd1} {d1} al {wd2} {d2}",
         "fr": "du {wd1} {d1} au {wd2} {d2}"}
TODAY = REF.date()


@cache
def _weekday_word(language: str, day: str) -> str:
    data: dict[str, Any] = project_bundle().file(f"temporal/{language}")
    return str(data["weekdays"][day][0])


def _day(offset: int) -> date:
    return TODAY + timedelta(days=offset)


# Both ends within this month and after today, so the day numbers alone name them.
spans = st.integers(1, 12).flatmap(lambda first: st.tuples(st.just(first), st.integers(first + 1, first + 6)))
spans = spans.filter(lambda pair: _day(pair[1]).month == TODAY.month and 4 <= _day(pair[0]).day <= 20)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(FRAME)), spans)
def test_a_range_of_weekdays_with_their_days_reads_both_ends(language: str, pair: tuple[int, int]) -> None:
    first, last = _day(pair[0]), _day(pair[1])
    text = FRAME[language].format(wd1=_weekday_word(language, WEEKDAYS[first.weekday()]), d1=first.day,
                                  wd2=_weekday_word(language, WEEKDAYS[last.weekday()]), d2=last.day)
    values = [v for m in mentions(text, language) for v in m.values]
    assert values[:1] == [f"{first.isoformat()}/{last.isoformat()}"], (text, values)


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 14), st.sampled_from(WEEKDAYS))
def test_till_next_weekday_ends_after_the_start(offset: int, weekday: str) -> None:
    first = _day(offset)
    text = f"from {first.strftime('%B')} {first.day}th till next {_weekday_word('en', weekday)}"
    values = [v for m in mentions(text) for v in m.values if "/" in v]
    assert values, text
    start, _, end = values[0].partition("/")
    last = date.fromisoformat(end)
    assert start == first.isoformat()
    assert WEEKDAYS[last.weekday()] == weekday and first < last <= first + timedelta(days=7), (text, values)


def _published(spec: GoalSpec) -> PublishedGoalSpec:
    return PublishedGoalSpec(spec=spec, version=1, content_hash=spec_hash(spec), approved_by="tests",
                             approved_at=datetime(2026, 1, 1, tzinfo=UTC))


def _completed(spec: GoalSpec, text: str) -> dict[str, str]:
    request = ProposerInput(spec=_published(spec), bits=[0] * len(spec.objectives), language="en", turn=1,
                            message=Message(role=Role.VISITOR, turn=1, text=text), history=[],
                            reference_time=REF)
    out: dict[str, str] = {}
    for command in proposer().propose(request).commands:
        if command.type == "complete":
            out[command.objective] = command.value  # type: ignore[union-attr]
    return out


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 6), st.integers(2, 12))  # a bare weekday names its next occurrence
def test_the_end_objective_takes_the_last_day_when_a_weekday_names_the_first(offset: int, length: int) -> None:
    spec = spec_with(objective("pickup", "date", 1, cues={"en": ["pick up", "from"]}),
                     objective("dropoff", "date", 2, cues={"en": ["return", "until"]}))
    first, last = _day(offset), _day(offset + length)
    start = _weekday_word("en", WEEKDAYS[first.weekday()])
    text = f"I need the car from {start} until {last.strftime('%B')} {last.day}."
    assert _completed(spec, text) == {"pickup": first.isoformat(), "dropoff": last.isoformat()}, text


def _stay() -> GoalSpec:
    return spec_with(objective("arrival", "date", 1, cues={"en": ["check in", "arrive"]}),
                     objective("departure", "date", 2, cues={"en": ["check out", "leave"]}))


def _proposed(spec: GoalSpec, text: str, recorded: dict[str, str]) -> dict[str, str]:
    ordered = [o.id for o in spec.ordered()]
    request = ProposerInput(spec=_published(spec), bits=[int(oid in recorded) for oid in ordered], language="en",
                            turn=2, message=Message(role=Role.VISITOR, turn=2, text=text), history=[],
                            reference_time=REF, recorded=recorded)
    return {c.objective: c.value for c in proposer().propose(request).commands  # type: ignore[union-attr]
            if c.type in ("complete", "correct")}


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 20), st.integers(1, 20))
def test_an_unnamed_date_goes_to_the_date_objective_still_open(first: int, second: int) -> None:
    arrival, departure = _day(first), _day(first + second)
    text = f"On the {departure.day}th of {departure.strftime('%B')}, I guess."
    found = _proposed(_stay(), text, {"arrival": arrival.isoformat()})
    assert found == {"departure": departure.isoformat()}, (text, found)


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 20))
def test_restating_the_recorded_date_fills_no_other(first: int) -> None:
    arrival = _day(first)
    text = f"Yes, the {arrival.day}th of {arrival.strftime('%B')}."
    assert _proposed(_stay(), text, {"arrival": arrival.isoformat()}) == {}, text


NOUNS = {"en": "people", "es": "personas", "fr": "personnes"}


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(sorted(NOUNS)), st.sampled_from(WEEKDAYS), st.integers(1, 12))
def test_a_count_after_a_weekday_is_no_day_of_the_month(language: str, weekday: str, count: int) -> None:
    text = f"{_weekday_word(language, weekday)} {count} {NOUNS[language]}"
    values = [v for m in mentions(text, language) for v in m.values]
    days = [date.fromisoformat(v[:10]) for v in values if v[:4].isdigit()]
    assert days and all(WEEKDAYS[d.weekday()] == weekday for d in days), (text, values)


def _booking() -> GoalSpec:
    """A start and an end date whose cue words are the manager's shared ones ('start date for the hotel
    reservation', 'end date for the hotel reservation'): only their roles tell them apart."""
    shared = ["date", "hotel", "reservation"]
    return spec_with(objective("start_date", "date", 1, cues={"en": ["start", *shared]},
                               name="Start date for the hotel reservation"),
                     objective("end_date", "date", 2, cues={"en": ["end", *shared]},
                               name="End date for the hotel reservation"))


END_MARKERS = ["check out on", "checking out on", "I'll check out on", "we are checking out on"]


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(END_MARKERS), st.integers(2, 20))
def test_a_role_marker_of_several_words_points_a_date_at_its_end_of_the_range(marker: str, offset: int) -> None:
    day = _day(offset)
    text = f"I want to book a hotel and {marker} {day.strftime('%B')} {day.day}th."
    assert _completed(_booking(), text) == {"end_date": day.isoformat()}, text


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["a hotel reservation on", "a hotel room for", "the reservation for"]), st.integers(2, 20))
def test_a_cue_word_both_date_objectives_share_names_neither(lead: str, offset: int) -> None:
    day = _day(offset)
    text = f"I need {lead} {day.strftime('%B')} {day.day}th."
    assert _completed(_booking(), text) == {"start_date": day.isoformat()}, text
