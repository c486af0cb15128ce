"""Answerability by support on a small company of my own (a bakery): the asked thing must be stated in the
section that answers; near misses abstain with a message naming the closest section; ordinary capitalised words
do not veto; cross-lingual questions are checked through concept groups and the embedding."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.retrieval import GroundedAnswerer, build_answerer
from engine.retrieval.grounding import unknown_names
from engine.retrieval.names import is_acronym, ordinary_names
from engine.retrieval.retrieval_rules import RetrievalRules
from tests.retrieval.project_rules import project_rules

BAKERY_EN = """---
language: en
---
# Crumb & Co bakery

## Opening hours

We are open Tuesday to Saturday from 7:30 to 15:00. We are closed on Sundays and Mondays.

## Where is the bakery?

Crumb & Co is at 18 Mill Road, Ashford, opposite the train station.

## Birthday cakes

A birthday cake for 12 people costs 38 GBP. Order it at least three days in advance.

## Sourdough bread

Our sourdough loaf costs 4.50 GBP and is baked every morning with organic flour.

## Gluten-free products

We bake gluten-free muffins on Fridays. Our kitchen also handles wheat flour.

## Catering

We deliver breakfast platters to offices in Ashford for orders of 10 people or more.

## Payment

We accept cash and cards. We do not accept cheques.
"""
BAKERY_ES = """---
language: es
---
# Panadería (información en español)

## Encargos para empresas

Preparamos desayunos para oficinas en Ashford a partir de 10 personas.
"""


@pytest.fixture(scope="module")
def bakery(tmp_path_factory: pytest.TempPathFactory, embedding_cache: Path) -> GroundedAnswerer:
    root = tmp_path_factory.mktemp("bakery")
    (root / "corpus.json").write_text(
        '{"version": "1.0.0", "description": "test bakery", "company": "Crumb & Co (fictional)",'
        ' "default_language": "en", "records": {}}',
        encoding="utf-8",
    )
    (root / "bakery.md").write_text(BAKERY_EN, encoding="utf-8")
    (root / "empresas.es.md").write_text(BAKERY_ES, encoding="utf-8")
    return build_answerer(root, rules=project_rules(), cache_dir=embedding_cache)


@pytest.mark.parametrize(
    ("question", "language", "section", "fact"),
    [
        ("what time do you shut on saturdays", "en", "bakery.md#opening-hours", "15:00"),
        ("How much is a sourdough loaf?", "en", "bakery.md#sourdough-bread", "4.50 GBP"),
        ("Do you take card payments?", "en", "bakery.md#payment", "cards"),
        ("¿A qué hora abrís?", "es", "bakery.md#opening-hours", "7:30"),
        ("¿Aceptáis tarjeta?", "es", "bakery.md#payment", "cards"),
    ],
)
def test_answers_cite_the_section_that_states_the_asked_thing(
    bakery: GroundedAnswerer, question: str, language: str, section: str, fact: str
) -> None:
    answer, trace = bakery.answer_with_trace(question, language)
    # answered, or (the model under answering.answer_min_probability, 0.95) the section's sentences quoted as related
    assert answer.kind in ("answer", "related"), trace.support
    assert answer.citations[0].passage_id == section
    assert fact in answer.text
    assert {c.passage_id for c in answer.citations} == {section}  # no padding from other sections


_SIBLING = (
    "sibling near miss: with grounding.veto_asked_elsewhere off (bundle 1.6.0) the fitted model weighs the word "
    "stated elsewhere and answers from the gluten-free section; the veto measured worse over 14 companies "
    "(leave-one-company-out never-mentioned abstention 0.907 with it, 0.957 without)"
)


@pytest.mark.parametrize(
    ("question", "language"),
    [
        pytest.param(  # gluten-free muffins and sourdough bread, not this
            "Do you bake gluten-free bread?", "en", marks=pytest.mark.xfail(reason=_SIBLING, strict=True)
        ),
        ("Do you accept PayPal?", "en"),  # an unknown name
        # never mentioned; the noun after "does the" is the subject, not an asked action (a strict xfail until
        # bundle 1.13.0: taken for a verb, it counted as a paraphrase and the price section was shown as related)
        ("How much does the croissant cost?", "en"),
        ("¿Vendéis helados?", "es"),
    ],
)
def test_near_misses_and_unmentioned_topics_abstain(
    bakery: GroundedAnswerer, rules: RetrievalRules, question: str, language: str
) -> None:
    answer = bakery.answer(question, language)
    assert not answer.supported and answer.is_question and not answer.citations
    lang = rules.language(language)
    assert answer.text == lang.unavailable_message or answer.text.startswith(lang.near_miss_message.split("{")[0])


@pytest.mark.xfail(reason=_SIBLING, strict=True)
def test_a_near_miss_names_the_closest_section_and_the_missing_words(bakery: GroundedAnswerer) -> None:
    answer, trace = bakery.answer_with_trace("Do you bake gluten-free bread?", "en")
    assert trace.near_miss == "bakery.md#gluten-free-products"
    assert "Gluten-free products" in answer.text and "“bread”" in answer.text


@pytest.mark.parametrize(
    "question",
    [
        # cross-lingual, all asked words translated and stated in a section that barely stands out in 8 sections:
        # the concept group's Spanish words are searched on the keyword side too
        "¿Abrís los domingos?",
        # cross-lingual domain nouns outside the concept groups: the embedding matches them
        "cuanto cuesta una tarta de cumpleaños",
    ],
)
def test_cross_lingual_questions_once_known_limits_are_answered(bakery: GroundedAnswerer, question: str) -> None:
    # answered, or (the model under answering.answer_min_probability) the same section quoted as related
    answer = bakery.answer(question, "es")
    assert answer.kind in ("answer", "related") and answer.citations


def test_an_unknown_word_beside_a_stated_one_is_not_answered(bakery: GroundedAnswerer) -> None:
    # a specific unknown word beside a stated one, in a section semantically very close: was answered (issue-17
    # known limit) until answering.answer_min_probability 0.95; the close section may still be quoted as related
    answer = bakery.answer("How much is a wedding cake?", "en")
    assert not answer.supported and answer.kind != "answer"


def test_a_question_asking_a_price_needs_a_section_stating_one(bakery: GroundedAnswerer) -> None:
    answer, trace = bakery.answer_with_trace("How much does catering for the office cost?", "en")
    assert not answer.supported
    catering = next(s for s in trace.support if s.passage_id == "bakery.md#catering")
    assert catering.reason == "answerability.no_price"


def test_ordinary_capitalised_words_are_not_unknown_names(rules: RetrievalRules) -> None:
    ordinary = ordinary_names(tuple(sorted(rules.languages)))
    vocabulary = frozenset({"open", "ship"})
    stop = frozenset({"are", "you", "in", "do", "to"})
    question = "Are you open in July? Do you ship to Europe? Do you support SSO or work with Francia on Saturdays?"
    assert unknown_names(question, vocabulary, stop, ordinary) == []
    assert unknown_names("Do you ship to Narnia?", vocabulary, stop, ordinary) == ["Narnia"]
    assert is_acronym("IVA") and not is_acronym("Paypal")


def test_decisions_are_deterministic_and_turn_local(bakery: GroundedAnswerer) -> None:
    first = bakery.answer("How much is a birthday cake?", "en")
    bakery.answer("How much is a wedding cake?", "en")
    assert bakery.answer("How much is a birthday cake?", "en") == first


@pytest.mark.parametrize(
    ("question", "word", "is_verb"),
    [
        ("How much does the croissant cost?", "croissant", False),  # a determiner opens the subject's noun phrase
        ("Is there parking near the bakery?", "parking", False),
        ("Are those muffins gluten-free?", "muffins", False),
        ("Do you deliver to offices?", "deliver", True),  # a pronoun subject: the asked action follows
        ("Can I pay by card?", "pay", True),
    ],
)
def test_the_word_after_an_auxiliary_and_a_determiner_is_no_asked_action(
    bakery: GroundedAnswerer, question: str, word: str, is_verb: bool
) -> None:
    terms = {t.word.surface: t for t in bakery.judge.asked_terms(question, "en")}
    assert terms[word].verb is is_verb
