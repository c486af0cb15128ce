"""Work a question turn does once instead of several times, held to the plain definitions: the asked verbs fold
each word once (not once per verb ending), and the answerer finds a message's question sentences once when
abbreviation expansion leaves the text as it is."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.retrieval import GroundedAnswerer
from engine.retrieval import answerer as answerer_module
from engine.retrieval.analysis import tokens
from engine.retrieval.answerability import _CASED_WORD, AnswerabilityJudge
from engine.text import fold
from tests.retrieval.project_rules import project_rules


def _plain_verbs(judge: AnswerabilityJudge, asked: str) -> set[str]:
    """``_verbs`` as first written: ``fold(w)`` inside the per-suffix condition."""
    words = tokens(asked)
    found = {
        fold(w)
        for w in (m.lower() for m in _CASED_WORD.findall(asked))
        for s in judge._verb_suffixes
        if len(w) > len(s) + 2 and (w.endswith(s) or fold(w).endswith(s))
    }
    for i in range(len(words) - 2):
        if words[i] in judge._auxiliaries and words[i + 1] in judge._subjects:
            found.add(words[i + 2])
    for before, word in pairwise(_CASED_WORD.findall(asked)):
        if fold(before) in judge._verb_markers and word.islower():
            found.add(fold(word))
    return found


WORDS = ["arregláis", "arreglais", "abrís", "crisis", "do", "you", "repair", "can", "I", "bring", "Hacéis",
         "limpian", "¿", "?", "piscina", "Vera", "ÉS", "cleaning", "open", "abrimos", "ayudáis", "papeles"]
SUFFIXES = sorted({s for lang in project_rules().languages.values() for s in lang.verb_suffixes})
# Endings as written and with an accent the folded word loses ("comprárlo"), on stems short and long.
ENDINGS = SUFFIXES + [s.replace("a", "á", 1).replace("e", "é", 1) for s in SUFFIXES] + [s.upper() for s in SUFFIXES]
verbish = st.tuples(st.sampled_from(["", "a", "ab", "arregl", "Compr", "x"]), st.sampled_from(ENDINGS)).map("".join)
texts = st.lists(st.one_of(st.sampled_from(WORDS), verbish, st.text(max_size=6)), max_size=12).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(asked=texts)
def test_asked_verbs_equal_the_plain_definition(real_estate: GroundedAnswerer, asked: str) -> None:
    assert real_estate.judge._verbs(asked) == _plain_verbs(real_estate.judge, asked)


@pytest.mark.parametrize("message", ["Do you help foreign buyers with the paperwork?",
                                     "Hola, ¿qué documentos necesito para comprar una casa en España?",
                                     "dnd estais?", "I need three bedrooms and a parking space."])
def test_question_sentences_are_found_once_per_distinct_text(
    real_estate: GroundedAnswerer, monkeypatch: pytest.MonkeyPatch, message: str
) -> None:
    calls: list[str] = []
    original = answerer_module.question_sentences

    def counted(text: str, languages: Any) -> list[str]:
        calls.append(text)
        return original(text, languages)

    monkeypatch.setattr(answerer_module, "question_sentences", counted)
    answer, trace = real_estate.answer_with_trace(message, "en")
    assert len(calls) == len(set(calls))  # never the same text twice
    monkeypatch.setattr(answerer_module, "question_sentences", original)
    again, plain = real_estate.answer_with_trace(message, "en")
    assert (answer, trace.is_question, trace.evidence) == (again, plain.is_question, plain.evidence)
