"""The datetime value grammar (spec/adr/0003 §3): parsing, canonical round trip, the granularity table."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.kernel.goal_models import Criterion
from engine.kernel.validators.registry import validate_value
from engine.kernel.validators.temporal import (
    COMPLETES,
    DATETIME,
    PARTS_OF_DAY,
    WEEKDAYS,
    TemporalError,
    parse_value,
    validate_datetime,
)
from engine.rules.loader import RuleBundle

CASES = [
    ("2027-09-04", "date", "2027-09-04"),
    ("2027-06-03/2027-06-05", "date_range", "2027-06-03/2027-06-05"),
    ("17:30", "time", "17:30"),
    ("14:00-16:00", "time_range", "14:00-16:00"),
    ("afternoon", "part", "afternoon"),
    ("2027-09-07T15:00", "datetime", "2027-09-07T15:00"),
    ("2027-09-07Tafternoon", "datetime", "2027-09-07Tafternoon"),
    ("2027-09-04T17:30:00", "datetime", "2027-09-04T17:30"),  # records written before datetime/2
    ("weekly:tue,thu@afternoon", "schedule", "weekly:tue,thu@afternoon"),
    ("weekly:thu,tue", "schedule", "weekly:tue,thu"),
    ("weekly:mon,tue,wed,thu,fri@evening", "schedule", "weekly:mon,tue,wed,thu,fri@evening"),
    ("weekly:sat@09:00-12:00", "schedule", "weekly:sat@09:00-12:00"),
    ("within:P3M", "timeframe", "within:P3M"),
    ("before:2027-06-21", "timeframe", "before:2027-06-21"),
    ("after:2027-06-21", "timeframe", "after:2027-06-21"),
    ("period:2027-01-01/2027-03-31", "timeframe", "period:2027-01-01/2027-03-31"),
    ("asap", "timeframe", "asap"),
    (" 2027-09-04 ", "date", "2027-09-04"),
]


@pytest.mark.parametrize(("value", "kind", "canonical"), CASES)
def test_grammar_values_parse(value: str, kind: str, canonical: str) -> None:
    parsed = parse_value(value)
    assert (parsed.kind, parsed.canonical) == (kind, canonical)


@pytest.mark.parametrize("value", [
    "", "tomorrow", "2027-02-30", "2027-9-4", "25:00", "17:60", "2027-06-05/2027-06-03", "weekly:", "weekly:mon,mon",
    "weekly:monday", "weekly:mon@teatime", "within:P0M", "within:3M", "within:P", "period:2027-01-01",
    "2027-09-07T15:00-16:00", "2027-09-07T", "dawn", "350.000", "170", "+34 600 123 456", "before:soon",
])
def test_non_grammar_values_are_unparseable(value: str) -> None:
    with pytest.raises(TemporalError):
        parse_value(value)
    assert validate_datetime(value, value, "date").code == "datetime.unparseable"


@pytest.mark.parametrize(("granularity", "accepted"), [
    ("date", {"2027-09-04", "2027-06-03/2027-06-05", "2027-09-07T15:00", "2027-09-07Tafternoon"}),
    ("time", {"17:30", "14:00-16:00", "afternoon", "2027-09-07T15:00", "2027-09-07Tafternoon"}),
    ("datetime", {"2027-09-07T15:00", "2027-09-07Tafternoon"}),
    ("schedule", {"weekly:tue,thu@afternoon"}),
    ("timeframe", {"within:P3M", "asap", "period:2027-01-01/2027-03-31", "2027-09-04", "2027-06-03/2027-06-05"}),
])
def test_granularity_table(granularity: str, accepted: set[str]) -> None:
    values = ["2027-09-04", "2027-06-03/2027-06-05", "17:30", "14:00-16:00", "afternoon", "2027-09-07T15:00",
              "2027-09-07Tafternoon", "weekly:tue,thu@afternoon", "within:P3M", "asap",
              "period:2027-01-01/2027-03-31"]
    for value in values:
        result = validate_datetime(value, value, granularity)
        if value in accepted:
            assert result.ok and result.code == "datetime.ok" and result.validator == DATETIME, value
        else:
            assert not result.ok and result.code == "datetime.granularity_partial", value


def test_old_values_keep_validating(bundle: RuleBundle) -> None:
    day = Criterion(kind="datetime", description="date")  # granularity defaults to "date"
    assert validate_value(day, "2027-09-04", "4 September 2027", bundle).normalized == "2027-09-04"
    when = Criterion(kind="datetime", description="when", params={"granularity": "datetime"})
    result = validate_value(when, "2027-09-04T17:30", "4 September 2027 at 17:30", bundle)
    assert result.ok and result.normalized == "2027-09-04T17:30"
    assert validate_value(day, "2027-09-04T17:30", "4 September 2027 at 17:30", bundle).ok
    assert validate_value(when, "2027-09-04", "4 September 2027", bundle).code == "datetime.granularity_partial"


def test_unknown_granularity_fails_closed() -> None:
    assert validate_datetime("2027-09-04", "", "fortnight").code == "datetime.granularity_unknown"


# --- properties: every value the grammar produces round-trips, and its granularity follows the table

_dates = st.dates(min_value=date(1990, 1, 1), max_value=date(2099, 12, 31))
_clocks = st.builds(lambda h, m: f"{h:02d}:{m:02d}", st.integers(0, 23), st.integers(0, 59))
_times = st.one_of(_clocks, st.sampled_from(PARTS_OF_DAY),
                   st.builds(lambda a, b: f"{a}-{b}", _clocks, _clocks))
_ranges = st.builds(lambda a, b: f"{min(a, b).isoformat()}/{max(a, b).isoformat()}", _dates, _dates)
_durations = st.builds(
    lambda n, unit: f"P{n}{unit}", st.integers(1, 99), st.sampled_from("YMWD"))
_values = st.one_of(
    _dates.map(date.isoformat),
    _ranges,
    _times,
    st.builds(lambda d, t: f"{d.isoformat()}T{t}", _dates, st.one_of(_clocks, st.sampled_from(PARTS_OF_DAY))),
    st.builds(lambda days, t: f"weekly:{','.join(days)}" + (f"@{t}" if t else ""),
              st.lists(st.sampled_from(WEEKDAYS), min_size=1, max_size=7, unique=True),
              st.one_of(st.none(), _times)),
    _durations.map(lambda d: f"within:{d}"),
    st.builds(lambda k, d: f"{k}:{d.isoformat()}", st.sampled_from(["before", "after"]), _dates),
    _ranges.map(lambda r: f"period:{r}"),
    st.just("asap"),
)


@given(_values)
def test_every_grammar_value_round_trips(value: str) -> None:
    parsed = parse_value(value)
    again = parse_value(parsed.canonical)
    assert again == parsed
    for granularity, kinds in COMPLETES.items():
        result = validate_datetime(value, value, granularity)
        assert result.ok == (parsed.kind in kinds)
        if result.ok:
            assert result.normalized == parsed.canonical
        else:
            assert result.code == "datetime.granularity_partial"


@given(st.text(max_size=40))
def test_arbitrary_text_never_crashes(text: str) -> None:
    result = validate_datetime(text, text, "date")
    assert result.code in {"datetime.ok", "datetime.unparseable", "datetime.granularity_partial"}
