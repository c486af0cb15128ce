"""Free-text evidence (spec/adr/0003 §2-3): the visitor's own clause that answers the question just asked, or a
statement naming the objective's topic; refusals, uncertainty, small talk, third parties, questions and bare
acknowledgements never complete it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.goals.publication import spec_hash
from engine.kernel.conversation import Message, Role
from engine.kernel.goal_models import GoalSpec, Objective, PublishedGoalSpec
from engine.kernel.ports import ProposerInput
from llm_adapters.offline.free_text import free_text_words, topic_terms
from tests.proposer.helpers import proposer
from tests.proposer.test_quantity import accepted, completed, venue_commands


@pytest.mark.parametrize(("text", "language", "value"), [
    ("Hi! Yes, we need a vegetarian menu and wheelchair access, thanks!", "en",
     "we need a vegetarian menu and wheelchair access"),
    ("Well, a quiet corner for my grandmother's wheelchair please", "en",
     "a quiet corner for my grandmother's wheelchair"),
    ("Bueno, pues necesitamos un menú sin gluten. Gracias", "es", "necesitamos un menú sin gluten"),
    ("Hola, queremos una mesa cerca de la ventana", "es", "queremos una mesa cerca de la ventana"),
    ("Bonjour, nous avons besoin d'un accès pour fauteuil roulant, merci", "fr",
     "nous avons besoin d'un accès pour fauteuil roulant"),
])
def test_answer_to_the_question_is_the_visitors_own_clause(text: str, language: str, value: str) -> None:
    commands = [c for c in venue_commands(text, language, "notes") if c.type == "complete" and c.objective == "notes"]
    assert [c.value for c in commands] == [value]  # type: ignore[union-attr]
    assert value in commands[0].span.quote  # type: ignore[union-attr]
    assert accepted(commands[0], language)


def test_answer_prefers_the_clause_without_another_objectives_value() -> None:
    found = completed("It's for 120 guests. And we need a DJ booth near the stage.", last_asked="notes")
    assert found["guests"] == "120"
    assert found["notes"] == "we need a DJ booth near the stage"


@pytest.mark.parametrize(("text", "language"), [
    ("Not sure yet", "en"),
    ("I'd rather not say", "en"),
    ("no sé todavía", "es"),
    ("ok", "en"),
    ("Sí", "es"),
    ("Oui, merci", "fr"),
    ("What kind of requests do you accept?", "en"),
    ("My brother is vegetarian", "en"),
    ("Stop asking questions please", "en"),
])
def test_never_answers(text: str, language: str) -> None:
    assert "notes" not in completed(text, language, last_asked="notes")


def test_statement_naming_the_topic_completes_it_unasked() -> None:
    found = completed("We have some dietary requirements: no gluten at all.")
    assert found["notes"] == "We have some dietary requirements: no gluten at all"


def test_closings_never_answer() -> None:
    for text in ("No thanks. You have been very helpful.", "Not at this time.", "Thanks. That's all."):
        assert "notes" not in completed(text, last_asked="notes")


def test_unasked_statement_without_the_topic_does_not() -> None:
    assert "notes" not in completed("We need a DJ booth near the stage.")
    assert "notes" not in completed("The event is on 4 September.")


def _objective(name: str, description: str) -> Objective:
    return Objective.model_validate({"id": "x", "name": name, "questions": {"en": "?"}, "weight": 1, "order": 1,
                                     "criterion": {"kind": "free_text", "description": description}})


def test_topic_terms_derived_from_name_and_description_without_stopwords() -> None:
    words = free_text_words(proposer().rules_for("the car makes a noise", "en"))
    terms, own = topic_terms(_objective("Car problem", "What the visitor says is wrong with the car"), words)
    assert not own
    assert {"problem", "wrong"} <= terms
    assert not terms & {"the", "what", "with", "visitor"}


def test_derived_terms_need_two_different_words_unasked() -> None:
    spec = GoalSpec.model_validate({
        "id": "garage", "title": "Garage", "default_language": "en", "languages": ["en"],
        "objectives": [{"id": "issue", "name": "Car problem", "questions": {"en": "What's wrong with the car?"},
                        "weight": 1, "order": 1,
                        "criterion": {"kind": "free_text", "description": "The problem with the car's brakes"}}],
    })
    published = PublishedGoalSpec(spec=spec, version=1, content_hash=spec_hash(spec), approved_by="t",
                                  approved_at=datetime(2026, 1, 1, tzinfo=UTC))

    def values(text: str) -> list[str]:
        request = ProposerInput(spec=published, bits=[0], language="en", turn=1, history=[],
                                message=Message(role=Role.VISITOR, turn=1, text=text))
        return [c.value for c in proposer().propose(request).commands if c.type == "complete"]  # type: ignore[union-attr]

    said = "My brakes squeal and the problem gets worse when I stop."
    assert values(said) == [said.rstrip(".")]
    assert values("I love my car.") == []
    assert values("Is there a problem with a brake pad?") == []


_PIECES = st.sampled_from(["Hi", "thanks", "we need", "a ramp", "no sé", "dietary", "?", ".", ",", "ok", "yes",
                           "my brother has", "120 guests", "gracias", "merci", "nous avons", "  ", "!", "é", "ñ"])


@settings(max_examples=150, deadline=None)
@given(st.lists(_PIECES, max_size=20), st.sampled_from([None, "notes"]), st.sampled_from(["en", "es", "fr"]))
def test_values_are_verbatim_inside_their_spans(pieces: list[str], last_asked: str | None, language: str) -> None:
    text = " ".join(pieces)
    for command in venue_commands(text, language, last_asked):
        if command.type == "complete" and command.objective == "notes":  # type: ignore[union-attr]
            span = command.span  # type: ignore[union-attr]
            assert span.quote == text[span.start:span.end]
            assert command.value in span.quote  # type: ignore[union-attr]
            assert command.value.strip() == command.value  # type: ignore[union-attr]
