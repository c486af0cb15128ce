"""Cross-lingual word matching through the embedding (lexicon.py): an asked word is matched only against the
words of passages in *another* language, only where the match is a calibrated outlier, and a passage stated only
through such a match never gets an answer from the whole-passage semantics alone."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from engine.retrieval import GroundedAnswerer, build_answerer
from engine.retrieval.embedder import Matrix
from engine.retrieval.lexicon import Lexicon
from tests.retrieval.project_rules import project_rules

CORPUS_ES = """---
language: es
---
# Taller de bicis

## Cambio de embrague

Cambiar el embrague de una moto cuesta 180 EUR con mano de obra incluida.

## Cambio de aceite

Un cambio de aceite cuesta 45 EUR.

## Neumáticos

Montamos neumáticos nuevos en el día.
"""

CORPUS_EN = """---
language: en
---
# Pets

## Can I bring my dog?

Dogs are welcome on a lead in the shop.
"""


@pytest.fixture(scope="module")
def garage(tmp_path_factory: pytest.TempPathFactory, embedding_cache: Path) -> GroundedAnswerer:
    root = tmp_path_factory.mktemp("garage")
    (root / "corpus.json").write_text(
        '{"version": "1.0.0", "description": "test garage", "company": "Taller (fictional)",'
        ' "default_language": "es", "records": {}}',
        encoding="utf-8",
    )
    (root / "taller.md").write_text(CORPUS_ES, encoding="utf-8")
    (root / "pets.en.md").write_text(CORPUS_EN, encoding="utf-8")
    return build_answerer(root, rules=project_rules(), cache_dir=embedding_cache)


def test_words_are_matched_only_in_the_other_language(garage: GroundedAnswerer) -> None:
    language = {p.id: p.language for p in garage.retriever.corpus.passages}
    for question, asked_language in [("Can I bring my cat?", "en"), ("¿Puedo traer a mi gato?", "es")]:
        for term in garage.judge.asked_terms(question, asked_language):
            assert all(language[pid] != asked_language for pid in term.translated_in), term


def test_an_unchecked_language_pair_changes_nothing(garage: GroundedAnswerer) -> None:
    terms = garage.judge.asked_terms("¿Cuánto cuesta cambiar el embrague?")  # no question language: no lookup
    assert not any(t.checked or t.translated_in for t in terms)


class _Fixed:
    """An embedder with hand-made word vectors (unit-normalised), for the calibration arithmetic."""

    model_id = "fixed"
    dim = 3

    def __init__(self, table: dict[str, Sequence[float]]) -> None:
        self.table = {k: np.asarray(v, dtype=np.float32) / np.linalg.norm(v) for k, v in table.items()}

    def embed_queries(self, texts: Sequence[str]) -> Matrix:
        return np.vstack([self.table[t] for t in texts]).astype(np.float32)

    embed_passages = embed_queries


def test_a_match_must_stand_out_from_the_corpus_words() -> None:
    words = ["embrague", "aceite", "precio", "moto"]
    table = {
        "embrague": [1.0, 0.0, 0.0],
        "aceite": [0.0, 1.0, 0.0],
        "precio": [0.0, 0.9, 0.4],
        "moto": [0.1, 0.2, 1.0],
        "clutch": [0.99, 0.05, 0.0],
        "weather": [0.3, 0.3, 0.3],
    }
    embedder = _Fixed(table)
    vectors = embedder.embed_queries(words)
    lexicon = Lexicon(words, ["es"] * 4, [frozenset({w}) for w in words], vectors, embedder)
    clutch = lexicon.vectors_for(["clutch"])["clutch"]
    assert [m.word for m, _ in lexicon.match(clutch, "es", 1.0, 1.0)] == ["embrague"]
    weather = lexicon.vectors_for(["weather"])["weather"]
    assert lexicon.match(weather, "es", 1.0, 1.0) == []
    assert lexicon.match(clutch, "en", 1.0, 1.0) == []  # no words of that language


class _Counting(_Fixed):
    """Records every text it is asked to embed."""

    def __init__(self, table: dict[str, Sequence[float]]) -> None:
        super().__init__(table)
        self.asked: list[str] = []

    def embed_queries(self, texts: Sequence[str]) -> Matrix:
        self.asked.extend(texts)
        return super().embed_queries(texts)


def test_an_asked_corpus_word_uses_its_corpus_row_without_a_model_call() -> None:
    table = {"embrague": [1.0, 0.0, 0.0], "aceite": [0.0, 1.0, 0.0], "clutch": [0.99, 0.05, 0.0]}
    embedder = _Counting(table)
    words = ["embrague", "aceite"]
    vectors = embedder.embed_queries(words) * np.float32(0.5)  # rows that differ from a fresh call: told apart
    embedder.asked.clear()
    lexicon = Lexicon(words, ["es", "es"], [frozenset({"p1"}), frozenset({"p2"})], vectors, embedder)
    found = lexicon.vectors_for(["aceite", "clutch", "aceite"])
    assert embedder.asked == ["clutch"]  # only the word the corpus does not hold is embedded
    assert np.array_equal(found["aceite"], vectors[1])
    assert np.array_equal(found["clutch"], embedder.table["clutch"].astype(np.float32))
    assert np.array_equal(lexicon.vectors_for(["clutch"])["clutch"], found["clutch"])  # then from the cache
    assert embedder.asked == ["clutch"]
