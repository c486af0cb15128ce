"""Availability criteria (spec/adr/0008): the parts a value holds, what ``suffices`` accepts, and the validator
against an independent reading of the ADR's tables."""

from __future__ import annotations

import itertools
from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.kernel.goal_models import Criterion
from engine.kernel.validators.availability import PARTS, SufficesError, parse_suffices, validate_availability
from engine.kernel.validators.registry import validate_value
from engine.kernel.validators.temporal import PARTS_OF_DAY, WEEKDAYS
from engine.rules.loader import RuleBundle

# The ADR's table, written out by value form (not by the validator's kinds): form -> parts it holds.
days = st.dates(min_value=date(2026, 1, 1), max_value=date(2030, 12, 31))
clocks = st.builds(lambda h, m: f"{h:02d}:{m:02d}", st.integers(0, 23), st.integers(0, 59))
times = st.one_of(clocks, st.sampled_from(PARTS_OF_DAY))
weekday_sets = st.sets(st.sampled_from(WEEKDAYS), min_size=1).map(lambda s: ",".join(d for d in WEEKDAYS if d in s))


def _value_with_parts() -> st.SearchStrategy[tuple[str, frozenset[str]]]:
    date_only = days.map(lambda d: (d.isoformat(), frozenset({"date"})))
    date_range = st.tuples(days, st.integers(0, 30)).map(
        lambda t: (f"{t[0].isoformat()}/{(t[0] + timedelta(days=t[1])).isoformat()}", frozenset({"date"})))
    date_time = st.tuples(days, times).map(lambda t: (f"{t[0].isoformat()}T{t[1]}", frozenset({"date", "time"})))
    weekly = weekday_sets.map(lambda s: (f"weekly:{s}", frozenset({"weekday"})))
    weekly_time = st.tuples(weekday_sets, times).map(
        lambda t: (f"weekly:{t[0]}@{t[1]}", frozenset({"weekday", "time"})))
    time_only = times.map(lambda t: (t, frozenset({"time"})))
    period = st.one_of(
        st.just("asap"), st.sampled_from(["within:P3M", "within:P2W", "within:P1Y"]),
        days.map(lambda d: f"before:{d.isoformat()}"), days.map(lambda d: f"after:{d.isoformat()}"),
    ).map(lambda v: (v, frozenset({"period"})))
    return st.one_of(date_only, date_range, date_time, weekly, weekly_time, time_only, period)


alternatives = st.lists(st.sets(st.sampled_from(PARTS), min_size=1), min_size=1, max_size=4)


@given(_value_with_parts(), alternatives)
def test_a_value_completes_exactly_when_it_holds_every_part_of_one_alternative(
        case: tuple[str, frozenset[str]], wanted: list[set[str]]) -> None:
    value, parts = case
    suffices = ["+".join(sorted(a)) for a in wanted]
    result = validate_availability(value, value, suffices)
    expected = any(a <= parts for a in wanted)
    assert result.ok is expected
    assert result.code == ("datetime.availability_ok" if expected else "datetime.granularity_partial")
    if expected:
        assert result.normalized is not None and validate_availability(result.normalized, "", suffices).ok


@pytest.mark.parametrize("suffices", [[], "date", ["date", ""], ["day"], ["date+hour"], [3], None])
def test_malformed_suffices_fail_closed(suffices: object) -> None:
    with pytest.raises(SufficesError):
        parse_suffices(suffices)
    assert validate_availability("2027-03-10", "today", suffices).code == "datetime.availability_invalid"


def test_unparseable_values_are_rejected() -> None:
    assert validate_availability("next friday", "next friday", ["date"]).code == "datetime.unparseable"


def _criterion(**params: object) -> Criterion:
    return Criterion(kind="datetime", description="When the visitor can come",
                     params={"granularity": "availability", **params})


def test_the_bundle_default_accepts_any_one_part(bundle: RuleBundle) -> None:
    default = bundle.file("criteria")["availability"]["default_suffices"]
    assert sorted(default) == sorted(PARTS)
    for value in ("2027-03-10", "weekly:fri@morning", "evening", "18:00", "period:2027-03-15/2027-03-21", "asap"):
        assert validate_value(_criterion(), value, value, bundle).ok, value


def test_a_day_or_a_weekday_with_or_without_a_time(bundle: RuleBundle) -> None:
    criterion = _criterion(suffices=["date", "weekday"])
    for value in ("2027-03-10", "2027-03-11Tafternoon", "weekly:tue,wed", "weekly:fri@morning"):
        assert validate_value(criterion, value, value, bundle).ok, value
    for value in ("evening", "18:00", "asap", "within:P3M"):
        assert validate_value(criterion, value, value, bundle).code == "datetime.granularity_partial", value


def test_every_combination_of_parts_is_a_valid_suffices() -> None:
    for size in range(1, len(PARTS) + 1):
        for combo in itertools.combinations(PARTS, size):
            assert parse_suffices(["+".join(combo)]) == (frozenset(combo),)
