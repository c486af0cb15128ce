"""A name question ('What is the name of the salon?') is answered by a name, never by where the visitor is, by a
bare place, by someone else's name or by a category word (llm_adapters/offline/free_text.py)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine.goals.publication import spec_hash
from engine.kernel.conversation import Message, Role
from engine.kernel.goal_models import GoalSpec, PublishedGoalSpec
from engine.kernel.ports import ProposerInput
from tests.proposer.helpers import proposer


def _spec(name: str, question: str, cues: list[str]) -> PublishedGoalSpec:
    spec = GoalSpec.model_validate({
        "id": "names", "title": "Names", "default_language": "en", "languages": ["en"],
        "objectives": [{"id": "thing", "name": name, "questions": {"en": question}, "weight": 1, "order": 1,
                        "criterion": {"kind": "free_text", "description": name, "params": {"cues": {"en": cues}}}}],
    })
    return PublishedGoalSpec(spec=spec, version=1, content_hash=spec_hash(spec), approved_by="t",
                             approved_at=datetime(2026, 1, 1, tzinfo=UTC))


SALON = _spec("Name of the salon", "What is the name of the salon?", ["name", "salon", "salons"])
SONG = _spec("Title of the song", "Which song would you like?", ["title", "song", "songs"])


def _values(spec: PublishedGoalSpec, text: str, asked: bool = True) -> list[str]:
    request = ProposerInput(spec=spec, bits=[0], language="en", turn=2, history=[],
                            last_asked="thing" if asked else None,
                            message=Message(role=Role.VISITOR, turn=2, text=text))
    return [c.value for c in proposer().propose(request).commands if c.type == "complete"]  # type: ignore[union-attr]


@pytest.mark.parametrize("text", [
    "I would like a salon in Sacramento.",
    "Can you find me a salon near San Diego?",
    "Sacramento.",
    "In San Diego please.",
])
def test_where_the_visitor_is_names_no_salon(text: str) -> None:
    assert _values(SALON, text) == []


@pytest.mark.parametrize("text", [
    "I'd like to book at Curl Up and Dye in Sacramento.",
    "Curl Up and Dye.",
    "The one called Shear Magic, please.",
])
def test_a_name_still_answers(text: str) -> None:
    assert _values(SALON, text)


@pytest.mark.parametrize("text", [
    "I like songs by Nina Simone.",
    "Can you play a Jazz song?",
    "I love Blues music.",
])
def test_someone_elses_name_or_a_category_is_no_title(text: str) -> None:
    assert _values(SONG, text) == []


def test_a_title_still_answers() -> None:
    assert _values(SONG, "Please play Feeling Good by Nina Simone.")


def test_a_person_named_like_a_town_is_still_a_name() -> None:
    recipient = _spec("Name of the recipient", "Who should receive the money?", ["name", "recipient"])
    assert _values(recipient, "Please send the money to Maria.")
