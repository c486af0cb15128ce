"""extract_datetime: the value that completes each datetime objective by its granularity, questions and
blocked clauses, bare answers to the question just asked, and several datetime objectives in one spec."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine.goals.publication import spec_hash
from engine.kernel.conversation import Message, Role
from engine.kernel.goal_models import GoalSpec, PublishedGoalSpec
from engine.kernel.ports import ProposerInput
from engine.kernel.validators import validate_value
from llm_adapters.offline.evidence import ExtractionContext
from llm_adapters.offline.temporal import extract_datetime
from tests.proposer.helpers import project_bundle, proposer
from tests.proposer.temporal_support import REF, analysis_of, objective, spec_with


def extract(text: str, spec: GoalSpec, objective_id: str, *, language: str = "en", lenient: bool = False,
            correcting: bool = False) -> list[str]:
    target = next(o for o in spec.objectives if o.id == objective_id)
    ctx = ExtractionContext(analysis=analysis_of(text, language), objective=target, lenient=lenient,
                            correcting=correcting, spec=spec, reference_time=REF)
    return [e.value for e in extract_datetime(ctx) if not e.old]


def single(granularity: str, language: str = "en") -> GoalSpec:
    return spec_with(objective("when", granularity, 1), language=language)


@pytest.mark.parametrize(("granularity", "text", "value"), [
    ("date", "We'd like to come on 4 September 2027", "2027-09-04"),
    ("date", "the 14th of June", "2027-06-14"),
    ("date", "between the 3rd and the 5th", "2027-04-03/2027-04-05"),
    ("date", "next Tuesday at 5pm", "2027-03-16T17:00"),
    ("time", "Any time after 17:30 works", "17:30"),
    ("time", "por la tarde", "afternoon"),
    ("time", "Tuesdays and Thursdays after work", "evening"),
    ("datetime", "next Tuesday afternoon", "2027-03-16Tafternoon"),
    ("datetime", "pasado mañana a las cinco y media", "2027-03-12T17:30"),
    ("schedule", "martes y jueves por la tarde", "weekly:tue,thu@afternoon"),
    ("schedule", "weekday evenings", "weekly:mon,tue,wed,thu,fri@evening"),
    ("timeframe", "We plan to move within three months", "within:P3M"),
    ("timeframe", "antes de verano", "before:2027-06-21"),
    ("timeframe", "the 14th of June", "2027-06-14"),
])
def test_value_completes_the_granularity(granularity: str, text: str, value: str) -> None:
    language = "es" if any(w in text for w in ("mañana", "tarde", "verano")) else "en"
    assert extract(text, single(granularity, language), "when", language=language) == [value]
    result = validate_value(single(granularity).objectives[0].criterion, value, text, project_bundle())
    assert result.ok, result


@pytest.mark.parametrize(("granularity", "text"), [
    ("datetime", "next Tuesday"),  # a date without a time never completes a datetime objective
    ("schedule", "next Tuesday afternoon"),
    ("time", "within three months"),
    ("date", "within three months"),
])
def test_other_granularities_do_not_complete(granularity: str, text: str) -> None:
    assert extract(text, single(granularity), "when") == []


def test_partial_value_is_offered_only_after_the_question() -> None:
    spec = single("datetime")
    assert extract("next Tuesday", spec, "when", lenient=True) == ["2027-03-16"]
    result = validate_value(spec.objectives[0].criterion, "2027-03-16", "next Tuesday", project_bundle())
    assert result.code == "datetime.granularity_partial"


def test_questions_to_the_company_are_not_evidence() -> None:
    assert extract("Are you open on Saturday?", single("date"), "when") == []
    assert extract("Do you work on weekends?", single("schedule"), "when") == []


def test_a_proposal_phrased_as_a_question_is_evidence() -> None:
    assert extract("Could we do Friday at 10?", single("datetime"), "when", lenient=True) == ["2027-03-12T10:00"]
    assert extract("Is 12/06/2027 still free?", single("date"), "when") == ["2027-06-12"]


def test_blocked_clauses_are_skipped() -> None:
    assert extract("My sister got married on 4 September 2027", single("date"), "when") == []


def test_bare_answers_need_the_question() -> None:
    assert extract("May", single("timeframe"), "when") == []
    assert extract("May", single("timeframe"), "when", lenient=True) == ["period:2027-05-01/2027-05-31"]
    assert extract("Morning", single("time"), "when", lenient=True) == ["morning"]
    assert extract("at 5", single("time"), "when", lenient=True) == ["17:00"]
    assert extract("5", single("time"), "when", lenient=True) == ["17:00"]
    assert extract("9.30", single("time"), "when", lenient=True) == ["09:30"]
    assert extract("5", single("time"), "when") == []
    assert extract("5", single("date"), "when", lenient=True) == []
    assert extract("mañana", single("date", "es"), "when", language="es", lenient=True) == ["2027-03-11"]


def test_history_is_not_a_wish() -> None:
    assert extract("I had a crown put in on 3/14/2024", single("date"), "when") == []


STAY = spec_with(
    objective("check_in", "date", 1, {"en": ["check-in", "arrive", "arrival"]}),
    objective("check_out", "date", 2, {"en": ["check-out", "leave", "departure"]}),
)


def test_a_range_feeds_start_and_end_objectives() -> None:
    text = "We'd stay from the 3rd to the 5th"
    assert extract(text, STAY, "check_in") == ["2027-04-03"]
    assert extract(text, STAY, "check_out") == ["2027-04-05"]


def test_a_lone_until_names_the_end_and_a_lone_from_the_start() -> None:
    rental = spec_with(objective("pickup_date", "date", 1), objective("dropoff_date", "date", 2),
                       objective("pickup_time", "time", 3))
    text = "I will pick up the car at half past 9 in the morning till the 14th."
    assert extract(text, rental, "dropoff_date") == ["2027-03-14"]
    assert extract(text, rental, "pickup_date") == []
    assert extract(text, rental, "pickup_time") == ["09:30"]
    text = "I need it from next Thursday afternoon 1:30 until March 13th"
    assert extract(text, rental, "pickup_date") == ["2027-03-11"]
    assert extract(text, rental, "dropoff_date") == ["2027-03-13"]


def test_cue_words_route_two_dates() -> None:
    text = "We arrive on June 3 and leave on June 5"
    assert extract(text, STAY, "check_in") == ["2027-06-03"]
    assert extract(text, STAY, "check_out") == ["2027-06-05"]


def test_an_unnamed_date_goes_to_the_first_objective_unless_the_other_was_asked() -> None:
    assert extract("The 3rd", STAY, "check_in") == ["2027-04-03"]
    assert extract("The 5th", STAY, "check_out") == []
    assert extract("The 5th", STAY, "check_out", lenient=True) == ["2027-04-05"]


def test_without_role_words_the_first_objective_takes_the_start() -> None:
    spec = spec_with(objective("date_a", "date", 1), objective("date_b", "date", 2))
    assert extract("between June 3 and June 5", spec, "date_a") == ["2027-06-03"]
    assert extract("between June 3 and June 5", spec, "date_b") == ["2027-06-05"]


def test_date_and_time_objectives_split_a_datetime() -> None:
    spec = spec_with(objective("day", "date", 1, {"es": ["día", "traer"]}),
                     objective("hour", "time", 2, {"es": ["hora"]}), language="es")
    text = "lo llevo el viernes 8 de enero a las 9:15"
    assert extract(text, spec, "day", language="es") == ["2028-01-08"]
    assert extract(text, spec, "hour", language="es") == ["09:15"]


def test_the_proposer_completes_datetime_objectives() -> None:
    spec = spec_with(objective("when", "datetime", 1))
    published = PublishedGoalSpec(spec=spec, version=1, content_hash=spec_hash(spec), approved_by="tests",
                                  approved_at=datetime(2027, 1, 1, tzinfo=UTC))
    text = "Hi! Could you book me in next Tuesday at 5pm?"
    request = ProposerInput(spec=published, bits=[0], language="en", turn=1,
                            message=Message(role=Role.VISITOR, turn=1, text=text), history=[], reference_time=REF)
    commands = proposer().propose(request).commands
    complete = [c for c in commands if c.type == "complete"]
    assert [(c.objective, c.value) for c in complete] == [("when", "2027-03-16T17:00")]  # type: ignore[union-attr]
    span = complete[0].span  # type: ignore[union-attr]
    assert text[span.start:span.end] == span.quote and "next Tuesday at 5pm" in span.quote
    assert validate_value(spec.objectives[0].criterion, "2027-03-16T17:00", span.quote, project_bundle(), spec).ok


@pytest.mark.parametrize(("language", "text", "value"), [
    ("en", "I can't do Monday, but Tuesday works", "2027-03-16"),
    ("en", "Not Friday. Saturday", "2027-03-13"),
    ("es", "Mañana no puedo, pasado mañana sí", "2027-03-12"),
    ("es", "No puedo el lunes; el martes mejor", "2027-03-16"),
    ("fr", "Lundi ne m'arrange pas, plutôt mardi", "2027-03-16"),
])
def test_ruled_out_dates_are_skipped(language: str, text: str, value: str) -> None:
    assert extract(text, single("date", language), "when", language=language) == [value]
