"""Questions in several parts (issue 32 item 7): each part answered on its own, the uncovered part named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.retrieval import GroundedAnswerer, build_answerer
from engine.retrieval.parts import question_parts
from engine.retrieval.questions import sentence_asks
from engine.retrieval.retrieval_rules import RetrievalRules, TierFrames
from engine.text import normalize
from tests.retrieval.project_rules import project_rules

SHOP = """# Bike Barn

## Rental prices
A city bike costs 15 euros per day. An electric bike costs 30 euros per day. Helmets are included in every rental.

## Opening hours
We open every day from 9:00 to 19:00, and on Sundays from 10:00 to 14:00.

## Repairs
We repair punctures while you wait. A full service takes two working days.
"""


def _parts(rules: RetrievalRules, message: str) -> list[str]:
    return question_parts(message, rules.languages, rules.answering.multi_part)


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("How much is a city bike, and do you sell baby seats?",
         ["How much is a city bike", "do you sell baby seats?"]),
        ("When do you open on Sundays? Do you have lockers?", ["When do you open on Sundays?", "Do you have lockers?"]),
        ("¿Cuánto cuesta la bici eléctrica y tenéis sillas para niños?",
         ["¿Cuánto cuesta la bici eléctrica", "tenéis sillas para niños?"]),
        # yes/no questions: the opening "¿" marks the first clause as asking ("usáis", "dais" are too short for
        # the addressed-verb ending rule)
        ("¿Usáis productos ecológicos y trabajáis con comunidades de vecinos?",
         ["¿Usáis productos ecológicos", "trabajáis con comunidades de vecinos?"]),
        ("¿Dais clases online y hay descuento para familias?", ["¿Dais clases online", "hay descuento para familias?"]),
    ],
)
def test_two_questions_in_one_message_are_two_parts(rules: RetrievalRules, message: str, expected: list[str]) -> None:
    assert _parts(rules, message) == expected


@pytest.mark.parametrize(
    "message",
    [
        "Do you rent a bike and a helmet?",  # one question about two things: the joiner opens no asking clause
        "¿Alquiláis bicis y cascos?",  # the same in Spanish: the opening mark does not cut a list of things
        "How much is a city bike?",
        "I have two kids and do you have a family ticket?",  # the first piece states, the second asks: one question
        "We are a group of friends visiting next week. " * 12 + "How much is a bike, and do you sell maps?",  # long
        "Is it open? Is it cheap? Is it near? Is it safe?",  # more parts than answering.multi_part.max_parts
    ],
)
def test_one_question_is_not_cut(rules: RetrievalRules, message: str) -> None:
    assert _parts(rules, message) == []


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["How much is a bike", "do you sell maps", "and", "a helmet", "?", ", ", " ",
                                 "¿tenéis cascos", "y", "When do you open", "I have two kids"]), max_size=8))
def test_parts_are_asking_pieces_of_the_message_in_order(pieces: list[str]) -> None:
    rules = project_rules()
    message = " ".join(pieces)
    parts = _parts(rules, message)
    assert parts == [] or 2 <= len(parts) <= rules.answering.multi_part.max_parts
    text = normalize(message)
    position = 0
    for part in parts:
        for word in part.split():
            found = text.find(word, position)
            assert found >= position, (part, message)
            position = found + len(word)
    for part in parts:
        assert "?" in part or "¿" in part or sentence_asks(part.replace("?", " ").strip(), rules.languages)


def test_the_uncovered_parts_are_named_by_their_place() -> None:
    frames = TierFrames(related="r {label}", see_also="s", none="n", contact="c {label}",
                        unanswered_one="Nothing about your {which} question.",
                        unanswered_many="Nothing about your {which} questions.",
                        ordinals=("first", "second", "third"), list_and="and")
    assert frames.unanswered([1]) == "Nothing about your second question."
    assert frames.unanswered([0, 2]) == "Nothing about your first and third questions."
    assert frames.unanswered([]) == ""
    assert frames.unanswered([7]) == ""  # no ordinal for that place: say nothing rather than something wrong
    bare = TierFrames(related="r {label}", see_also="s", none="n", contact="c {label}")
    assert bare.unanswered([1]) == ""


def test_every_offered_language_names_uncovered_parts(rules: RetrievalRules) -> None:
    for language, frames in rules.answering.frames.items():
        assert len(frames.ordinals) >= rules.answering.multi_part.max_parts, language
        assert "{which}" in frames.unanswered_one and "{which}" in frames.unanswered_many
        assert rules.answering.multi_part.joiners.get(language), language


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory, embedding_cache: Path) -> GroundedAnswerer:
    folder = tmp_path_factory.mktemp("shop")
    (folder / "shop.md").write_text(SHOP, encoding="utf-8")
    manifest = {"version": "1.0.0", "description": "test corpus", "company": "Bike Barn (fictional)",
                "default_language": "en", "records": {}}
    (folder / "corpus.json").write_text(json.dumps(manifest), encoding="utf-8")
    return build_answerer(folder, rules=project_rules(), cache_dir=embedding_cache)


def test_a_covered_part_is_answered_and_the_other_named(shop: GroundedAnswerer, rules: RetrievalRules) -> None:
    answer, trace = shop.answer_with_trace("How much is an electric bike per day, and do you sell kayak paddles?", "en")
    assert answer.kind in ("answer", "related")
    assert any("30 euros" in c.quote for c in answer.citations)
    assert answer.unanswered == rules.answering.frames_for("en").unanswered([1])
    assert answer.text.endswith(answer.unanswered)
    assert trace.unanswered == [1] and trace.parts[1] == "none"


def test_one_question_gets_no_note(shop: GroundedAnswerer) -> None:
    answer, trace = shop.answer_with_trace("How much is an electric bike per day?", "en")
    assert answer.unanswered == "" and trace.parts == []


def test_a_part_whose_words_the_shown_section_states_is_not_called_uncovered(shop: GroundedAnswerer) -> None:
    # "helmets" is stated in the rental section shown for the first part: no claim that the documents are silent
    answer, _ = shop.answer_with_trace("How much is an electric bike per day, and are helmets extra?", "en")
    assert answer.unanswered == ""
