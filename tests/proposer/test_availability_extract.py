"""Availability objectives (spec/adr/0008) read by the offline proposer: weekdays, parts of day and exclusions in
EN/ES/FR, generated from the language data itself; relative days against the turn's reference time; vague words
never become dates."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.goals.validation import completion_issues
from engine.kernel.validators.availability import validate_availability
from engine.kernel.validators.temporal import WEEKDAYS, parse_value
from llm_adapters.offline.evidence import ExtractionContext
from llm_adapters.offline.temporal import extract_datetime
from tests.proposer.helpers import project_bundle
from tests.proposer.temporal_support import REF, analysis_of, objective, spec_with

SPEC = {lang: spec_with(objective("when", "availability", 1), language=lang) for lang in ("en", "es", "fr")}
# How each language writes "<days>, <part of day>" and "... but not <day>" (glue words of the language; the
# day and part words come from rules/temporal/<lang>.json).
FRAME = {"en": ("{days} {part}", " and ", " but not {excluded}"),
         "es": ("los {days} {part}", " y ", " pero no los {excluded}"),
         "fr": ("les {days} {part}", " et ", " mais pas le {excluded}")}


@cache
def _data(language: str) -> dict[str, Any]:
    return project_bundle().file(f"temporal/{language}")


def _day_word(language: str, day: str) -> str:
    data = _data(language)
    plural = data["weekdays_plural"].get(day) if language != "es" else None
    return str((plural or data["weekdays"][day])[0])


def _part_word(language: str, part: str) -> str:
    return str(_data(language)["parts_of_day"][part][0])


def extract(text: str, language: str, *, lenient: bool = False, reference: datetime = REF) -> list[str]:
    spec = SPEC[language]
    ctx = ExtractionContext(analysis=analysis_of(text, language), objective=spec.objectives[0], lenient=lenient,
                            correcting=False, spec=spec, reference_time=reference)
    return [e.value for e in extract_datetime(ctx) if not e.old]


languages = st.sampled_from(["en", "es", "fr"])
day_sets = st.lists(st.sampled_from(WEEKDAYS), min_size=1, max_size=3, unique=True)
parts = st.sampled_from(["morning", "afternoon", "night"])


def _phrase(language: str, days: list[str], part: str) -> str:
    template, joiner, _ = FRAME[language]
    return template.format(days=joiner.join(_day_word(language, d) for d in days), part=_part_word(language, part))


def _weekly(days: list[str] | set[str], part: str) -> str:
    return f"weekly:{','.join(d for d in WEEKDAYS if d in days)}@{part}"


@settings(max_examples=60, deadline=None)
@given(languages, day_sets, parts)
def test_weekdays_with_a_part_of_day_give_one_weekly_value(language: str, days: list[str], part: str) -> None:
    text = _phrase(language, days, part)
    assert extract(text, language) == [_weekly(days, part)], text


@settings(max_examples=60, deadline=None)
@given(languages, day_sets, st.sampled_from(WEEKDAYS), parts)
def test_an_excluded_day_is_never_in_the_value(language: str, days: list[str], excluded: str, part: str) -> None:
    text = _phrase(language, days, part) + FRAME[language][2].format(excluded=_day_word(language, excluded))
    values = extract(text, language)
    for value in values:
        parsed = parse_value(value)
        if parsed.kind == "schedule":
            assert excluded not in parsed.canonical.removeprefix("weekly:").split("@")[0].split(","), (text, value)
    remaining = [d for d in days if d != excluded]
    assert values == ([_weekly(remaining, part)] if remaining else []), text


@pytest.mark.parametrize(("language", "text"), [
    ("en", "not Mondays"), ("en", "any day except Mondays"), ("es", "cualquier día menos los lunes"),
    ("fr", "sauf le lundi"),
])
def test_a_bare_exclusion_answering_the_question_gives_the_days_that_remain(language: str, text: str) -> None:
    assert extract(text, language, lenient=True) == ["weekly:tue,wed,thu,fri,sat,sun"]
    assert extract(text, language, lenient=False) == []  # unprompted, ruling a day out says nothing about the rest


@given(st.datetimes(min_value=datetime(2025, 1, 1), max_value=datetime(2035, 12, 31)))
@settings(max_examples=30, deadline=None)
def test_relative_days_resolve_against_the_turn(moment: datetime) -> None:
    reference = moment.replace(tzinfo=UTC)
    today = reference.date()
    assert extract("today", "en", lenient=True, reference=reference) == [today.isoformat()]
    tomorrow = (today + timedelta(days=1)).isoformat()
    assert extract("tomorrow afternoon", "en", reference=reference) == [f"{tomorrow}Tafternoon"]


@pytest.mark.parametrize(("language", "text", "value"), [
    ("en", "Fridays are best, late morning", "weekly:fri@morning"),
    ("en", "any weekday after 4pm", "weekly:mon,tue,wed,thu,fri@16:00"),
    ("en", "evenings from 6", "18:00"),
    ("en", "next week", "period:2027-03-15/2027-03-21"),
    ("es", "el viernes, por la tarde", "2027-03-12Tafternoon"),
    ("fr", "le vendredi à partir de 16h", "weekly:fri@16:00"),
])
def test_one_value_per_sentence_and_it_completes_the_default(language: str, text: str, value: str) -> None:
    assert extract(text, language) == [value]
    default = project_bundle().file("criteria")["availability"]["default_suffices"]
    assert validate_availability(value, text, default).ok


@pytest.mark.parametrize("lenient", [True, False])
@pytest.mark.parametrize(("language", "text"), [
    ("en", "could we see the place first?"), ("en", "We would rather do it first"), ("en", "more in summer"),
    ("es", "primero queremos verlo"), ("fr", "d'abord en été peut-être"),
])
def test_vague_words_never_become_dates(language: str, text: str, lenient: bool) -> None:
    values = extract(text, language, lenient=lenient)
    assert not [v for v in values if parse_value(v).kind in ("date", "datetime", "date_range")], values
    if not lenient:
        assert values == []


def test_suffices_is_checked_when_the_spec_is_validated() -> None:
    bad = objective("when", "availability", 1)
    bad["criterion"]["params"]["suffices"] = ["day"]
    misplaced = objective("day", "date", 2)
    misplaced["criterion"]["params"]["suffices"] = ["date"]
    issues = completion_issues(spec_with(bad, misplaced))
    assert [code for code, _ in issues] == ["goalspec.criterion_incompletable"] * 2
    good = objective("when", "availability", 1)
    good["criterion"]["params"]["suffices"] = ["date", "weekday+time"]
    assert completion_issues(spec_with(good)) == []
