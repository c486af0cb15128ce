"""Datetime criteria: parse the value grammar of spec/adr/0003 §3 and decide completion by granularity.

A value is one of: a date, a date range, a time (clock time, clock range or part of day), a datetime, a weekly
schedule or a time frame. Its canonical string is the normalised value; a value whose granularity does not
complete the criterion is rejected with ``datetime.granularity_partial`` (the record keeps it as partial
evidence).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Literal

from engine.kernel.validators.result import ValidationResult
from engine.value_tokens import PARTS_OF_DAY as PARTS_OF_DAY  # the proposer's parsers read them here
from engine.value_tokens import WEEKDAYS as WEEKDAYS

DATETIME = "datetime/2"

ValueKind = Literal["date", "date_range", "time", "time_range", "part", "datetime", "schedule", "timeframe"]
Granularity = Literal["date", "time", "datetime", "schedule", "timeframe"]


# The granularity a value of each kind has (ADR 0003 §3, first table).
GRANULARITY: dict[ValueKind, Granularity] = {
    "date": "date", "date_range": "date", "time": "time", "time_range": "time", "part": "time",
    "datetime": "datetime", "schedule": "schedule", "timeframe": "timeframe",
}
# Which value kinds complete a criterion of each granularity (ADR 0003 §3, second table).
COMPLETES: dict[str, frozenset[ValueKind]] = {
    "date": frozenset({"date", "date_range", "datetime"}),
    "time": frozenset({"time", "time_range", "part", "datetime"}),
    "datetime": frozenset({"datetime"}),
    "schedule": frozenset({"schedule"}),
    "timeframe": frozenset({"timeframe", "date", "date_range"}),
}

_DATE = r"(\d{4})-(\d{2})-(\d{2})"
_CLOCK = re.compile(r"^(\d{2}):(\d{2})$")
_LEGACY_DATETIME = re.compile(rf"^{_DATE}T(\d{{2}}):(\d{{2}})(?::00(?:\.0+)?)?$")  # seconds of old records
_DURATION = re.compile(r"^P(?=\d)(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?$")


class TemporalError(ValueError):
    """The value does not follow the grammar."""


@dataclass(frozen=True)
class TemporalValue:
    kind: ValueKind
    canonical: str

    @property
    def granularity(self) -> Granularity:
        return GRANULARITY[self.kind]


def _date(text: str) -> date:
    if re.fullmatch(_DATE, text) is None:
        raise TemporalError(f"not a date: {text!r}")
    try:
        return date.fromisoformat(text)
    except ValueError as exc:
        raise TemporalError(str(exc)) from exc


def _date_range(text: str) -> str:
    first, sep, second = text.partition("/")
    if not sep:
        raise TemporalError(f"not a range: {text!r}")
    start, end = _date(first), _date(second)
    if end < start:
        raise TemporalError(f"range ends before it starts: {text!r}")
    return f"{start.isoformat()}/{end.isoformat()}"


def _clock(text: str) -> str:
    match = _CLOCK.match(text)
    if match is None or int(match.group(1)) > 23 or int(match.group(2)) > 59:
        raise TemporalError(f"not a clock time: {text!r}")
    return text


def _time(text: str) -> tuple[ValueKind, str]:
    """A clock time, a clock range or a part of day."""
    if text in PARTS_OF_DAY:
        return "part", text
    first, sep, second = text.partition("-")
    if sep:
        return "time_range", f"{_clock(first)}-{_clock(second)}"
    return "time", _clock(text)


def _schedule(body: str) -> str:
    days_text, at, time_text = body.partition("@")
    days = days_text.split(",")
    if not days_text or any(d not in WEEKDAYS for d in days) or len(set(days)) != len(days):
        raise TemporalError(f"bad schedule days: {days_text!r}")
    ordered = ",".join(d for d in WEEKDAYS if d in days)  # canonical: week order
    return f"weekly:{ordered}@{_time(time_text)[1]}" if at else f"weekly:{ordered}"


def _timeframe(text: str) -> str:
    if text == "asap":
        return text
    head, _, body = text.partition(":")
    if head == "within":
        match = _DURATION.match(body)
        if match is None or not any(int(g) for g in match.groups() if g):
            raise TemporalError(f"bad duration: {body!r}")
        return text
    if head in ("before", "after"):
        return f"{head}:{_date(body).isoformat()}"
    if head == "period":
        return f"period:{_date_range(body)}"
    raise TemporalError(f"unknown time frame: {text!r}")


def parse_value(value: str) -> TemporalValue:
    """Parse one value of the grammar; raises TemporalError. ``canonical`` round-trips through this function."""
    text = value.strip()
    if text.startswith("weekly:"):
        return TemporalValue("schedule", _schedule(text.removeprefix("weekly:")))
    if text == "asap" or re.match(r"^(within|before|after|period):", text):
        return TemporalValue("timeframe", _timeframe(text))
    legacy = _LEGACY_DATETIME.match(text)
    if legacy is not None:
        day = _date(text[:10])
        return TemporalValue("datetime", f"{day.isoformat()}T{_clock(f'{legacy.group(4)}:{legacy.group(5)}')}")
    if "T" in text:
        day_text, _, time_text = text.partition("T")
        kind, clock = _time(time_text)
        if kind == "time_range":
            raise TemporalError(f"a datetime has one time: {text!r}")
        return TemporalValue("datetime", f"{_date(day_text).isoformat()}T{clock}")
    if "/" in text:
        return TemporalValue("date_range", _date_range(text))
    if re.fullmatch(_DATE, text):
        return TemporalValue("date", _date(text).isoformat())
    kind, canonical = _time(text)
    return TemporalValue(kind, canonical)


def completes(value: TemporalValue, granularity: str) -> bool:
    return value.kind in COMPLETES.get(granularity, frozenset())


def validate_datetime(value: str, span_text: str, granularity: str) -> ValidationResult:
    """Accept a grammar value whose granularity completes the criterion's; normalise to the canonical string."""
    try:
        parsed = parse_value(value)
    except TemporalError:
        return ValidationResult.reject("datetime.unparseable", DATETIME)
    if granularity not in COMPLETES:
        return ValidationResult.reject("datetime.granularity_unknown", DATETIME)
    if not completes(parsed, granularity):
        return ValidationResult.reject("datetime.granularity_partial", DATETIME)
    return ValidationResult(ok=True, code="datetime.ok", validator=DATETIME, normalized=parsed.canonical)
