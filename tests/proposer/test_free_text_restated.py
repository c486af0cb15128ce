"""Issue 28, free text beside a restated value: a clause that answers the asked free-text objective may repeat
another objective's value already recorded ('... talk to our clients in English' when English is the recorded
language); the repetition is context, so the clause still answers. A clause holding a NEW value of another
objective stays that objective's, and a clause that says nothing besides the restated value never answers.
Properties over generated messages, never the benchmark's sentences."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.goals.publication import spec_hash
from engine.kernel.conversation import Message, Role
from engine.kernel.goal_models import GoalSpec, PublishedGoalSpec
from engine.kernel.ports import ProposerInput
from tests.proposer.helpers import proposer

_OPTIONS = {"english": {"en": ["English"], "es": ["inglés"]}, "german": {"en": ["German"], "es": ["alemán"]},
            "italian": {"en": ["Italian"], "es": ["italiano"]}}


@lru_cache(maxsize=1)
def _school() -> PublishedGoalSpec:
    spec = GoalSpec.model_validate({
        "id": "school", "title": "School", "default_language": "en", "languages": ["en", "es"],
        "vocabularies": {"langs": {"version": "1.0.0", "description": "Languages taught", "id": "langs",
                                   "kind": "enumeration", "options": _OPTIONS}},
        "objectives": [
            {"id": "language", "name": "Language", "questions": {"en": "Which language?", "es": "¿Qué idioma?"},
             "weight": 1, "order": 1, "criterion": {"kind": "enumeration", "description": "The language to learn",
                                                    "params": {"vocabulary": "langs"}}},
            {"id": "purpose", "name": "Purpose", "questions": {"en": "What do you need it for?",
                                                               "es": "¿Para qué lo necesita?"},
             "weight": 1, "order": 2, "criterion": {"kind": "free_text", "description": "Why they learn it",
                                                    "params": {"cues": {"en": ["exam"], "es": ["examen"]}}}},
        ],
    })
    return PublishedGoalSpec(spec=spec, version=1, content_hash=spec_hash(spec), approved_by="tests",
                             approved_at=datetime(2026, 1, 1, tzinfo=UTC))


def _purpose_asked(text: str, language: str, recorded: str | None) -> dict[str, str]:
    request = ProposerInput(
        spec=_school(), bits=[1 if recorded else 0, 0], language=language, turn=2, history=[],
        message=Message(role=Role.VISITOR, turn=2, text=text), last_asked="purpose",
        recorded={"language": recorded} if recorded else {},
    )
    return {c.objective: c.value for c in proposer().propose(request).commands
            if c.type == "complete"}


_CLAUSES_EN = st.sampled_from(["We want our staff to handle phone calls with clients in {}",
                               "My team must write reports for the head office in {}",
                               "I would like to follow university lectures in {}"])
_CLAUSES_ES = st.sampled_from(["Queremos que puedan atender llamadas con clientes en {}",
                               "Necesito escribir informes para la oficina central en {}"])


@settings(max_examples=30, deadline=None)
@given(_CLAUSES_EN, st.sampled_from(sorted(_OPTIONS)), st.sampled_from([".", "!", ""]))
def test_a_clause_restating_the_recorded_value_still_answers(clause: str, option: str, end: str) -> None:
    text = clause.format(_OPTIONS[option]["en"][0]) + end
    found = _purpose_asked(text, "en", recorded=option)
    assert found.get("purpose") == text.rstrip(".!")
    assert "language" not in found  # the same value again: nothing new for the enumeration


@settings(max_examples=20, deadline=None)
@given(_CLAUSES_ES, st.sampled_from(sorted(_OPTIONS)))
def test_a_clause_restating_the_recorded_value_still_answers_in_spanish(clause: str, option: str) -> None:
    text = clause.format(_OPTIONS[option]["es"][0]) + "."
    assert _purpose_asked(text, "es", recorded=option).get("purpose") == text.rstrip(".")


@settings(max_examples=30, deadline=None)
@given(_CLAUSES_EN, st.sampled_from(sorted(_OPTIONS)))
def test_a_clause_with_a_new_value_stays_that_objectives(clause: str, option: str) -> None:
    text = clause.format(_OPTIONS[option]["en"][0]) + "."
    found = _purpose_asked(text, "en", recorded=None)
    assert found.get("language") == option
    assert "purpose" not in found


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["In {}.", "{} please.", "Just {}!", "{}, of course.", "Only in {}"]),
       st.sampled_from(sorted(_OPTIONS)))
def test_the_restated_value_alone_never_answers(frame: str, option: str) -> None:
    found = _purpose_asked(frame.format(_OPTIONS[option]["en"][0]), "en", recorded=option)
    assert "purpose" not in found
