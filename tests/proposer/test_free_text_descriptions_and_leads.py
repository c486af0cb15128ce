"""Issue 28, free text on real visitors (general shapes, never benchmark sentences):

- a name marker inside a quoted example of the description ("'a name in script'") does not turn a description
  objective into a name question: an uncapitalised description is still its answer;
- a lone 'one' word is an article, not an amount: the description after 'a'/'una' stays one piece with it;
- a name after this objective's role lead ('songs by X') is this objective's even when the same clause holds
  another objective's value (the genre), in a statement or a search question;
- a lone interjection, or the rest of a pleasantry with no break after it ('thank you again'), never answers;
  closing formulas ('see you later') never answer.
Properties over generated messages with the language data of rules/free_text."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.goals.publication import spec_hash
from engine.kernel.conversation import Message, Role
from engine.kernel.goal_models import GoalSpec, PublishedGoalSpec
from engine.kernel.ports import ProposerInput
from llm_adapters.offline.free_text import _asks_for_name, free_text_words
from tests.proposer.helpers import proposer


def _objective(oid: str, kind: str, order: int, description: str, params: dict[str, Any],
               question: str | None = None, language: str = "en") -> dict[str, Any]:
    return {"id": oid, "name": oid.title(), "questions": {language: question or f"Which {oid}?"}, "weight": 1,
            "order": order, "criterion": {"kind": kind, "description": description, "params": params}}


def _publish(objectives: list[dict[str, Any]], vocabularies: dict[str, Any] | None = None,
             language: str = "en") -> PublishedGoalSpec:
    spec = GoalSpec.model_validate({"id": "shop", "title": "Shop", "default_language": language,
                                    "languages": [language], "objectives": objectives,
                                    "vocabularies": vocabularies or {}})
    return PublishedGoalSpec(spec=spec, version=1, content_hash=spec_hash(spec), approved_by="tests",
                             approved_at=datetime(2026, 1, 1, tzinfo=UTC))


def _completed(spec: PublishedGoalSpec, text: str, asked: str | None, language: str = "en") -> dict[str, str]:
    request = ProposerInput(spec=spec, bits=[0] * len(spec.spec.objectives), language=language, turn=2,
                            history=[], message=Message(role=Role.VISITOR, turn=2, text=text), last_asked=asked)
    return {c.objective: c.value for c in proposer().propose(request).commands if c.type == "complete"}


_EXAMPLES = st.sampled_from(["'a name in script'", "\"the brand of the car\"", "“a name and a date”",
                             "'un nombre en cursiva'", "« un nom »"])


@settings(max_examples=30, deadline=None)
@given(_EXAMPLES, st.sampled_from(["en", "es", "fr"]))
def test_a_name_marker_inside_a_quoted_example_asks_for_no_name(example: str, language: str) -> None:
    words = free_text_words(proposer().rules_for("design", language))
    objective = GoalSpec.model_validate({
        "id": "s", "title": "S", "default_language": language, "languages": [language],
        "objectives": [_objective("design", "free_text", 1, f"The visitor describes the motif ({example}).", {},
                                  question="?", language=language)]}).objectives[0]
    assert not _asks_for_name(objective, words)
    marker = {"en": "name", "es": "nombre", "fr": "nom"}[language]
    criterion = objective.criterion.model_copy(update={"description": f"The {marker} of the motif ({example})."})
    assert _asks_for_name(objective.model_copy(update={"criterion": criterion}), words)  # said outside: a name


@lru_cache(maxsize=1)
def _motifs() -> PublishedGoalSpec:
    places = {"arm": {"es": ["brazo"]}, "shoulder": {"es": ["hombro"]}, "ankle": {"es": ["tobillo"]}}
    return _publish([
        _objective("motivo", "free_text", 1, "El visitante describe el motivo ('una golondrina', 'un nombre').",
                   {"cues": {"es": ["diseño", "quiero"]}}, question="¿Qué diseño quieres?", language="es"),
        _objective("zona", "enumeration", 2, "La zona del cuerpo.", {"vocabulary": "zonas"},
                   question="¿En qué zona?", language="es"),
    ], {"zonas": {"id": "zonas", "version": "1.0.0", "description": "Zonas.", "kind": "enumeration",
                  "options": places}}, language="es")


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["una golondrina con flores", "un lobo realista", "una ola grande", "un barco antiguo"]),
       st.sampled_from(["brazo", "hombro", "tobillo"]))
def test_an_article_keeps_the_description_whole_beside_another_value(motif: str, place: str) -> None:
    found = _completed(_motifs(), f"quiero {motif} en el {place}", None, "es")
    assert found.get("zona") in {"arm", "shoulder", "ankle"}
    assert motif in found.get("motivo", "")


@lru_cache(maxsize=1)
def _songs() -> PublishedGoalSpec:
    genres = {"pop": {"en": ["pop"]}, "country": {"en": ["country"]}, "rock": {"en": ["rock"]}}
    return _publish([
        _objective("genre", "enumeration", 1, "The kind of music.", {"vocabulary": "genres",
                                                                    "cues": {"en": ["genre", "songs"]}}),
        _objective("artist", "free_text", 2, "The listener gives the name of an artist or band.",
                   {"cues": {"en": ["artist", "singer", "band"]}}),
        _objective("album", "free_text", 3, "The listener gives the name of an album.",
                   {"cues": {"en": ["album", "record"]}}),
    ], {"genres": {"id": "genres", "version": "1.0.0", "description": "Genres.", "kind": "enumeration",
                   "options": genres}})


_ARTISTS = st.sampled_from(["Marta Ruiz", "The Wombats", "Okkervil River", "Young Fathers", "Lizzo"])


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["Do you have any {g} songs by {a}?", "Can you find me {g} songs by {a}?",
                        "I want to hear some {g} songs by {a}.", "Play {g} songs by {a}."]),
       st.sampled_from(["pop", "country", "rock"]), _ARTISTS)
def test_a_name_after_our_role_lead_is_ours_beside_another_value(frame: str, genre: str, artist: str) -> None:
    found = _completed(_songs(), frame.format(g=genre, a=artist), None)
    assert found.get("genre") == genre
    assert artist in found.get("artist", "")
    assert "album" not in found  # 'by' leads an artist, never an album


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["Do you have any {g} songs by my favourite band?", "Play {g} songs by the way."]),
       st.sampled_from(["pop", "country", "rock"]))
def test_a_role_lead_without_a_name_takes_nothing(frame: str, genre: str) -> None:
    found = _completed(_songs(), frame.format(g=genre), None)
    assert "artist" not in found and "album" not in found


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["Thank you again.", "Thanks again!", "Thank you so much again.", "Oh.", "Hmm...",
                        "Oh, what is this?", "See you later!", "Thanks. See you later.", "Bye, see you."]),
       st.sampled_from(["artist", "album"]))
def test_pleasantries_and_interjections_never_answer(text: str, asked: str) -> None:
    assert _completed(_songs(), text, asked) == {}


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["Thanks, {}.", "Thank you! {}.", "Oh, {} please."]), _ARTISTS)
def test_an_answer_after_a_break_still_answers(frame: str, artist: str) -> None:
    assert artist in _completed(_songs(), frame.format(artist), "artist").get("artist", "")
