"""Quantity evidence (spec/adr/0003 §2-3): counts with the criterion's unit nouns, number words, approximations,
ranges and party compositions, in English, Spanish and French; dates, times, telephone numbers, money and
ordinals are never counts."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from decimal import Decimal
from functools import lru_cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.goals.publication import spec_hash
from engine.kernel.commands import Command
from engine.kernel.conversation import Message, Role
from engine.kernel.goal_models import GoalSpec, PublishedGoalSpec
from engine.kernel.ports import ProposerInput
from engine.kernel.validators import validate_value
from llm_adapters.offline.analysis import analyze
from llm_adapters.offline.evidence import ExtractionContext
from llm_adapters.offline.quantity import extract_quantity
from llm_adapters.offline.temporal import temporal_mentions
from tests.proposer.helpers import project_bundle, proposer

REFERENCE = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
QUESTIONS = {"en": "How many?", "es": "¿Cuántos?", "fr": "Combien ?"}


def _objective(oid: str, kind: str, order: int, params: dict[str, Any], name: str, description: str
               ) -> dict[str, Any]:
    return {"id": oid, "name": name, "questions": QUESTIONS, "weight": 1, "order": order,
            "criterion": {"kind": kind, "description": description, "params": params}}


@lru_cache(maxsize=4)
def venue_spec(language: str = "en") -> PublishedGoalSpec:
    """A company that is not a demo: an event venue counting guests and nights, with a budget and notes."""
    objectives = [
        _objective("guests", "quantity", 1, {
            "unit": "guests", "min": 1, "max": 2000,
            "unit_terms": {"en": ["guests", "people"], "es": ["invitados", "personas"], "fr": ["invités", "personnes"]},
        }, "Number of guests", "How many guests will attend"),
        _objective("nights", "quantity", 2, {
            "unit": "nights", "min": 1, "max": 60,
            "unit_terms": {"en": ["nights"], "es": ["noches"], "fr": ["nuits"]},
        }, "Nights", "How many nights they stay"),
        _objective("budget", "money", 3, {"min_amount": 100}, "Budget", "Total budget for the event"),
        _objective("notes", "free_text", 4, {
            "cues": {"en": ["dietary", "accessibility", "special request"], "es": ["dieta", "accesibilidad"],
                     "fr": ["régime", "accessibilité"]},
        }, "Special requests", "Dietary needs, accessibility or other special requests"),
    ]
    spec = GoalSpec.model_validate({
        "id": "venue", "title": "Event venue", "default_language": language, "languages": ["en", "es", "fr"],
        "objectives": objectives, "locale": {"currency": "GBP", "phone_region": "GB", "time_zone": "Europe/London"},
    })
    return PublishedGoalSpec(spec=spec, version=1, content_hash=spec_hash(spec), approved_by="tests",
                             approved_at=datetime(2026, 1, 1, tzinfo=UTC))


def venue_request(text: str, language: str = "en", last_asked: str | None = None, bits: str = "0000"
                  ) -> ProposerInput:
    return ProposerInput(
        spec=venue_spec(language), bits=[int(b) for b in bits], language=language, turn=1,
        message=Message(role=Role.VISITOR, turn=1, text=text), history=[], last_asked=last_asked,
        reference_time=REFERENCE,
    )


def venue_commands(text: str, language: str = "en", last_asked: str | None = None) -> list[Command]:
    return list(proposer().propose(venue_request(text, language, last_asked)).commands)


def completed(text: str, language: str = "en", last_asked: str | None = None) -> dict[str, str]:
    return {c.objective: c.value for c in venue_commands(text, language, last_asked)  # type: ignore[union-attr]
            if c.type == "complete"}


def accepted(command: Command, language: str = "en") -> bool:
    spec = venue_spec(language).spec
    objective = next(o for o in spec.objectives if o.id == command.objective)  # type: ignore[union-attr]
    return validate_value(objective.criterion, command.value, command.span.quote,  # type: ignore[union-attr]
                          project_bundle(), spec).ok


@pytest.mark.parametrize(("text", "language", "value"), [
    ("We expect 170 guests.", "en", "170"),
    ("It's for 12 people.", "en", "12"),
    ("two hundred and fifty guests", "en", "250"),
    ("We'll be 50-ish guests", "en", "50"),
    ("Around 200 people, give or take", "en", "200"),
    ("between 150 and 200 guests", "en", "150-200"),
    ("150-200 people", "en", "150-200"),
    ("my partner and I would like a room", "en", "2"),
    ("We're a family of four.", "en", "4"),
    ("There will be 3 of us", "en", "3"),
    ("Seremos unos 30 invitados", "es", "30"),
    ("Seremos unos treinta invitados", "es", "30"),
    ("Vendrán doscientas personas", "es", "200"),
    ("entre 150 y 200 invitados", "es", "150-200"),
    ("Vamos mi mujer y yo y los dos niños", "es", "4"),
    ("Nous serons environ quatre-vingt-dix invités", "fr", "90"),
    ("entre 150 et 200 personnes", "fr", "150-200"),
    ("Ma femme et moi", "fr", "2"),
    ("It would be just me.", "en", "1"),
    ("A dozen guests, maybe two dozen people", "en", "12"),
    ("100+ guests", "en", "100"),
    ("Une vingtaine de personnes", "fr", "20"),
    ("Seremos un centenar de invitados", "es", "100"),
    ("Solo yo", "es", "1"),
])
def test_counts_with_unit_nouns_words_ranges_and_compositions(text: str, language: str, value: str) -> None:
    commands = [c for c in venue_commands(text, language) if c.type == "complete" and c.objective == "guests"]
    assert [c.value for c in commands] == [value]  # type: ignore[union-attr]
    assert accepted(commands[0], language)


@pytest.mark.parametrize(("text", "language", "value"), [
    ("170", "en", "170"),
    ("Around 200", "en", "200"),
    ("Four, thanks!", "en", "4"),
    ("between 150 and 200", "en", "150-200"),
    ("Unos treinta", "es", "30"),
    ("Environ quarante", "fr", "40"),
])
def test_bare_answers_count_only_after_the_question(text: str, language: str, value: str) -> None:
    assert completed(text, language, last_asked="guests").get("guests") == value
    assert "guests" not in completed(text, language)


@pytest.mark.parametrize(("text", "last_asked"), [
    ("Call me on 07700 900123", "guests"),  # a telephone number
    ("On the 4th, please", "guests"),  # an ordinal
    ("At 17:30", "guests"),  # a time
    ("Saturday 11 September 2027", "guests"),  # a date
    ("£300", "guests"),  # money
    ("For 2 weeks", "guests"),  # a count of something else
    ("We need 3 nights", "guests"),  # another objective's unit
    ("My brother has 3 kids", "guests"),  # a third party
    ("How many guests fit in the hall? 200?", None),  # a question
    ("I have 2 dogs and a cat", None),  # no unit of this objective, not asked
])
def test_never_counts(text: str, last_asked: str | None) -> None:
    assert "guests" not in completed(text, last_asked=last_asked)


@pytest.mark.parametrize(("text", "objective", "value"), [
    ("Is there a room free for 6 guests?", "guests", "6"),  # a question stating the visitor's own need
    ("Only one guest.", "guests", "1"),  # a singular unit noun
    ("Arriving on the 3rd of May, for 5 nights.", "nights", "5"),  # a duration inside a date expression
    ("¿Hay algo para cuatro personas?", "guests", "4"),
])
def test_own_needs_in_questions_singular_units_and_durations(text: str, objective: str, value: str) -> None:
    language = "es" if "¿" in text else "en"
    assert completed(text, language).get(objective) == value


def test_dense_sentence_gives_each_objective_its_own_number() -> None:
    found = completed("We want to book 4 September 2027 for 170 guests, 3 nights, budget around 40k")
    assert found["guests"] == "170"
    assert found["nights"] == "3"
    assert found["budget"] == "~40000 GBP"


def test_count_keeps_the_visitor_span_exactly() -> None:
    text = "Hello! We'll be about 120 people, maybe a few more."
    command = next(c for c in venue_commands(text) if c.type == "complete")
    assert command.span.quote == text[command.span.start:command.span.end]  # type: ignore[union-attr]
    assert "120" in command.span.quote  # type: ignore[union-attr]


def test_correction_replaces_the_old_count() -> None:
    request = venue_request("Sorry, not 150 guests but 180 guests", bits="1000")
    commands = list(proposer().propose(request).commands)
    assert [(c.type, getattr(c, "value", None)) for c in commands if getattr(c, "objective", "") == "guests"] \
        == [("correct", "180")]


# --- properties ---------------------------------------------------------------------------------------------

_WORDS = st.sampled_from(["guests", "people", "nights", "around", "between", "and", "1", "12", "150", "-", "£",
                          "4", "September", "2027", "my", "partner", "I", "unos", "treinta", "personas", "17:30",
                          ",", ".", "?", "tel", "07700 900123", "two", "hundred", "k", "ish", "just", "me", "y",
                          "yo", "environ", "invités", "the", "4th"])


@settings(max_examples=150, deadline=None)
@given(st.lists(_WORDS, max_size=25), st.sampled_from([None, "guests", "nights", "notes", "budget"]),
       st.sampled_from(["en", "es", "fr"]))
def test_never_crashes_and_every_value_lies_in_its_span(words: list[str], last_asked: str | None,
                                                       language: str) -> None:
    text = " ".join(words)
    for command in venue_commands(text, language, last_asked):
        span = getattr(command, "span", None)
        if span is not None:
            assert 0 <= span.start <= span.end <= len(text)
            assert span.quote == text[span.start:span.end]
        if command.type == "complete" and command.objective in ("guests", "nights"):  # type: ignore[union-attr]
            value = command.value  # type: ignore[union-attr]
            ends = [Decimal(v) for v in value.split("-")]
            assert all(e >= 0 for e in ends) and ends == sorted(ends)


def _work(text: str) -> int:
    """Python and C calls made by the quantity extractor on ``text`` (dates computed beforehand)."""
    analysis = analyze(proposer().rules_for(text, "en"), text)
    spec = venue_spec("en").spec
    temporal_mentions(analysis, reference_time=REFERENCE, spec=spec)
    ctx = ExtractionContext(analysis=analysis, objective=spec.objectives[0], lenient=True, correcting=False,
                            spec=spec, reference_time=REFERENCE)
    calls = 0

    def count(frame: object, event: str, arg: object) -> None:
        nonlocal calls
        calls += event in ("call", "c_call")

    sys.setprofile(count)
    try:
        extract_quantity(ctx)
    finally:
        sys.setprofile(None)
    return calls


@pytest.mark.parametrize("unit", ["1 ", "12 guests, ", "around 3 people and 4 nights. ", "my partner and I "])
def test_work_grows_linearly_with_message_length(unit: str) -> None:
    small, large = _work(unit * 100), _work(unit * 400)
    assert large <= 6 * small  # 4x the text: linear work is ~4x, quadratic would be ~16x
