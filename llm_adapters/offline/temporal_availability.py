"""When a visitor can come (spec/adr/0008): one availability value per sentence from its temporal mentions.

A sentence often says the day and the time apart ("Fridays are best, late morning") and rules days out ("any
weekday but not Mondays", "sauf le lundi"). For an availability objective the day and the time of one sentence
become one value (``weekly:fri@morning``, ``2027-03-11Tafternoon``) and an excluded weekday is removed from the
days that remain, so a value never holds a day the visitor ruled out. The validator decides whether the value
holds enough (the criterion's ``suffices``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from engine.kernel.validators.availability import value_parts
from engine.kernel.validators.temporal import WEEKDAYS, TemporalError, TemporalValue, parse_value
from llm_adapters.offline.analysis import Analysis
from llm_adapters.offline.temporal_rules import TemporalGrammar, bounded


@dataclass(frozen=True)
class Mentioned:
    """What availability needs of a temporal mention: where it is, its sentence and its readings."""

    start: int
    end: int
    sentence: tuple[int, int]
    values: tuple[str, ...]


@dataclass(frozen=True)
class Availability:
    value: str
    anchor: Mentioned  # the mention the value is witnessed by (its sentence is the witness)


def _parsed(value: str) -> TemporalValue | None:
    try:
        return parse_value(value)
    except TemporalError:  # pragma: no cover - the parser only writes grammar values
        return None


def _first(mention: Mentioned, wanted: frozenset[str]) -> TemporalValue | None:
    """The mention's first reading whose parts are exactly ``wanted``."""
    for value in mention.values:
        parsed = _parsed(value)
        if parsed is not None and value_parts(parsed) == wanted:
            return parsed
    return None


_DAY, _WEEKDAY, _TIME = frozenset({"date"}), frozenset({"weekday"}), frozenset({"time"})


def _weekday_named(analysis: Analysis, mention: Mentioned, compiled: TemporalGrammar) -> str | None:
    """The weekday a single-day mention names by name ('Monday', 'le lundi'), not a date that falls on one."""
    text = analysis.masked[mention.start:mention.end]
    if not any(lang.lex["weekdays"].regex and bounded(lang.lex["weekdays"].regex).search(text)
               for lang in compiled.languages.values()):
        return None
    for value in mention.values:
        parsed = _parsed(value)
        if parsed is not None and parsed.kind in ("date", "datetime"):
            return WEEKDAYS[date.fromisoformat(parsed.canonical[:10]).weekday()]
    return None


def excluded_days(analysis: Analysis, mention: Mentioned, compiled: TemporalGrammar) -> frozenset[str]:
    """The whole weekdays a ruled-out mention names: 'not Mondays' → {mon}; 'not Monday mornings' names none
    (only part of the day is ruled out)."""
    weekly = _first(mention, _WEEKDAY)
    if weekly is not None:
        return frozenset(weekly.canonical.removeprefix("weekly:").split(","))
    named = _weekday_named(analysis, mention, compiled)
    return frozenset({named}) if named is not None else frozenset()


def _combine(day: TemporalValue, time: TemporalValue | None) -> str:
    if time is None:
        return day.canonical
    if day.kind == "schedule":
        return f"{day.canonical}@{time.canonical}"
    if day.kind == "date" and time.kind in ("time", "part"):
        return f"{day.canonical}T{time.canonical}"
    return day.canonical  # a range of dates with a time has no one value: the days are what the grammar keeps


def _weekly(days: Sequence[str], time: TemporalValue | None) -> str | None:
    kept = [d for d in WEEKDAYS if d in days]
    if not kept:
        return None
    return f"weekly:{','.join(kept)}" + (f"@{time.canonical}" if time is not None else "")


def sentence_availability(usable: Sequence[Mentioned], excluded: frozenset[str],
                          exclusion_anchor: Mentioned | None) -> list[Availability]:
    """The availability values of one sentence's usable mentions (in order) and the weekdays it rules out.

    A day mention without a time takes the first time-only mention of the sentence; a weekly schedule loses the
    excluded days; a sentence that names no day but rules some out gives the days that remain, with its time
    if it has one, witnessed by ``exclusion_anchor`` (None: the caller does not take a bare exclusion). Every
    other mention keeps its own first reading."""
    leading = [(m, _parsed(m.values[0]) if m.values else None) for m in usable]  # each mention's first reading
    days = [(m, v) for m, v in leading if v is not None and value_parts(v) & (_DAY | _WEEKDAY)]
    times = [(m, v) for m, v in leading if v is not None and value_parts(v) == _TIME]
    time_only = [m for m, _ in times]
    time = times[0][1] if times else None
    out: list[Availability] = []
    used: set[int] = set()
    for mention, day in days:
        used.add(id(mention))
        if day.kind == "schedule" and excluded:
            named, _, at = day.canonical.removeprefix("weekly:").partition("@")
            remaining = _weekly([d for d in named.split(",") if d not in excluded], None)
            if remaining is None:  # every day it names is ruled out
                continue
            day = parse_value(f"{remaining}@{at}" if at else remaining)
        value = day.canonical
        if time is not None and "time" not in value_parts(day):
            value = _combine(day, time)
            used.update(id(m) for m in time_only[:1])
        out.append(Availability(value, mention))
    if not days and excluded and exclusion_anchor is not None:
        rest = _weekly([d for d in WEEKDAYS if d not in excluded], time)
        if rest is not None:
            out.append(Availability(rest, exclusion_anchor))
            used.update(id(m) for m in time_only[:1])
    for mention in usable:  # times left alone, periods, datetimes: their own first reading
        if id(mention) not in used and mention.values:
            out.append(Availability(mention.values[0], mention))
    return out
