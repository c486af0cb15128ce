from __future__ import annotations

from datetime import datetime

from engine.directory.answer import DirectoryAnswerer, render
from engine.directory.retriever import TraceRetriever
from engine.kernel.ports import Answerer, GroundedAnswer


def make(retriever: TraceRetriever, reference: datetime) -> DirectoryAnswerer:
    return DirectoryAnswerer(retriever, clock=lambda: reference)


def test_is_a_grace_answerer(retriever: TraceRetriever, reference: datetime) -> None:
    answerer: Answerer = make(retriever, reference)
    assert isinstance(answerer.answer("pantries in Millbrook", "en"), GroundedAnswer)


def test_results_are_cited(retriever: TraceRetriever, reference: datetime) -> None:
    answer = make(retriever, reference).answer("TEFAP pantries in Oak County", "en")
    assert answer.supported and answer.is_question
    sources = {c.source for c in answer.citations}
    assert sources == {"testdir#0", "testdir#7"}
    assert all(c.passage_id.startswith(c.source.replace("#", ":") + ":") for c in answer.citations)
    assert "[testdir#0]" in answer.text and "[testdir#7]" in answer.text
    assert any(c.quote == "tefap_site" for c in answer.citations)


def test_clarification_is_the_answer_text(retriever: TraceRetriever, reference: datetime) -> None:
    english = make(retriever, reference).answer("where can I get food for seniors?", "en")
    spanish = make(retriever, reference).answer("¿dónde consigo comida?", "es")
    assert not english.supported and english.is_question and english.text.endswith("?")
    assert english.text == retriever.rules.message("clarify_question", "en")
    assert spanish.text == retriever.rules.message("clarify_question", "es") and not spanish.citations


def test_no_match_is_explicit(retriever: TraceRetriever, reference: datetime) -> None:
    answer = make(retriever, reference).answer("food pantries for veterans in Lakeview", "en")
    assert not answer.supported and not answer.citations
    assert "Lakeview" in answer.text and retriever.rules.semantic.concepts["veterans"].label("en") in answer.text


def test_unknown_place_is_named(retriever: TraceRetriever, reference: datetime) -> None:
    answer = make(retriever, reference).answer("food bank in Walnut County", "en")
    assert not answer.supported and "Walnut County" in answer.text


def test_small_talk_is_not_a_question(retriever: TraceRetriever, reference: datetime) -> None:
    answer = make(retriever, reference).answer("thank you so much", "en")
    assert answer == GroundedAnswer(text="", citations=[], supported=False, is_question=False)


def test_render_lists_records_verbatim(retriever: TraceRetriever, reference: datetime) -> None:
    result = retriever.answer("pantries in Millbrook open on Sunday", reference)
    text = render(result, retriever.rules, "testdir")
    assert "Hill Street Kitchen" in text and "Sunday from 12-2pm" in text and "555-0106" in text


def test_constraint_labels_follow_the_language(retriever: TraceRetriever, reference: datetime) -> None:
    spanish = render(retriever.answer("¿algo abierto mañana por la mañana en Riverbend?", reference),
                     retriever.rules, "testdir")
    english = render(retriever.answer("open Tuesday between 4 and 6 pm in Riverbend", reference),
                     retriever.rules, "testdir")
    assert "por la mañana" in spanish and "jueves" in spanish
    assert "between 4pm-6pm" in english and "Tuesday" in english
