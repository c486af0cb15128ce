"""Availability: when a visitor can come or wants something (spec/adr/0008).

An availability criterion is a datetime criterion of granularity ``availability``. Its values are the datetime
grammar's (spec/adr/0003 §3); what the visitor must have said for the objective to be complete is the criterion's
``suffices``: a list of alternatives, each a set of *parts* joined by ``+`` (``["date", "weekday"]`` is "a day
or a weekday, with or without a time"; ``["date+time"]`` is "a day and a time"). A value satisfies an
alternative when it holds every part the alternative names; more is always welcome.

Parts of a value:

| value | parts |
|---|---|
| date, date range | date |
| datetime | date, time |
| weekly schedule | weekday (and time when it has ``@<time>``) |
| clock time, clock range, part of day | time |
| time frame (within, before, after, period, asap) | period |

Exclusions ("not Mondays") are written as what remains: ``weekly:tue,wed,thu,fri,sat,sun``; so a value never
holds an excluded day.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.kernel.validators.result import ValidationResult
from engine.kernel.validators.temporal import DATETIME, TemporalError, TemporalValue, parse_value

PARTS = ("date", "weekday", "time", "period")
Alternative = frozenset[str]


class SufficesError(ValueError):
    """A ``suffices`` list that is not a non-empty list of alternatives made of known parts."""


def value_parts(value: TemporalValue) -> frozenset[str]:
    """The parts a parsed grammar value holds (the table of the module docstring)."""
    if value.kind in ("date", "date_range"):
        return frozenset({"date"})
    if value.kind == "datetime":
        return frozenset({"date", "time"})
    if value.kind == "schedule":
        return frozenset({"weekday", "time"}) if "@" in value.canonical else frozenset({"weekday"})
    if value.kind in ("time", "time_range", "part"):
        return frozenset({"time"})
    return frozenset({"period"})


def parse_suffices(raw: object) -> tuple[Alternative, ...]:
    """``["date", "weekday+time"]`` → alternatives; raises SufficesError on anything else."""
    if not isinstance(raw, list | tuple) or not raw:
        raise SufficesError("suffices must be a non-empty list of alternatives such as 'date' or 'weekday+time'")
    alternatives: list[Alternative] = []
    for item in raw:
        if not isinstance(item, str) or not item.strip():
            raise SufficesError(f"suffices item {item!r} is not a string of parts joined by '+'")
        parts = [p.strip() for p in item.split("+")]
        unknown = [p for p in parts if p not in PARTS]
        if unknown:
            raise SufficesError(f"suffices item {item!r} names {', '.join(unknown)}; parts are {', '.join(PARTS)}")
        alternatives.append(frozenset(parts))
    return tuple(alternatives)


def satisfies(parts: Iterable[str], alternatives: Sequence[Alternative]) -> bool:
    held = frozenset(parts)
    return any(alternative <= held for alternative in alternatives)


def validate_availability(value: str, span_text: str, suffices: object) -> ValidationResult:
    """Accept a grammar value holding every part of one alternative; normalise to the canonical string.

    A value that holds too little ("evenings" when a day is required) is rejected with
    ``datetime.granularity_partial`` like any datetime value of the wrong granularity: the record keeps it as
    partial evidence. A malformed ``suffices`` fails closed (``datetime.availability_invalid``)."""
    try:
        alternatives = parse_suffices(suffices)
    except SufficesError:
        return ValidationResult.reject("datetime.availability_invalid", DATETIME)
    try:
        parsed = parse_value(value)
    except TemporalError:
        return ValidationResult.reject("datetime.unparseable", DATETIME)
    if not satisfies(value_parts(parsed), alternatives):
        return ValidationResult.reject("datetime.granularity_partial", DATETIME)
    return ValidationResult(ok=True, code="datetime.availability_ok", validator=DATETIME,
                            normalized=parsed.canonical)
