"""The query embedding cache returns exactly what a fresh embedding would, stays bounded, never lets a caller
alter a cached row, caches only one-text calls, and can be turned off."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.retrieval.embedder import HashingEmbedder, QueryCache, query_cache_entries
from engine.retrieval.errors import RetrievalConfigError

EMBEDDER = HashingEmbedder(dim=64)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=30), min_size=1, max_size=20))
def test_cached_rows_equal_fresh_ones(queries: list[str]) -> None:
    cache = QueryCache(entries=5)
    for query in queries + queries:
        cached = cache.embed([query], EMBEDDER.embed_queries, EMBEDDER.dim)
        assert np.array_equal(cached, EMBEDDER.embed_queries([query]))
    assert len(cache._rows) <= 5


def test_rows_are_copies_and_batches_bypass_the_cache() -> None:
    cache = QueryCache(entries=10)
    first = cache.embed(["how much is it?"], EMBEDDER.embed_queries, EMBEDDER.dim)
    first[0, :] = 0.0  # a caller scribbling on its result
    again = cache.embed(["how much is it?"], EMBEDDER.embed_queries, EMBEDDER.dim)
    assert np.array_equal(again, EMBEDDER.embed_queries(["how much is it?"]))
    assert cache.hits == 1
    cache.embed(["a", "b"], EMBEDDER.embed_queries, EMBEDDER.dim)
    assert "a" not in cache._rows


def test_zero_entries_turns_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    cache = QueryCache(entries=0)
    cache.embed(["x"], EMBEDDER.embed_queries, EMBEDDER.dim)
    cache.embed(["x"], EMBEDDER.embed_queries, EMBEDDER.dim)
    assert cache.hits == 0 and not cache._rows
    monkeypatch.setenv("GRACE_QUERY_CACHE_ENTRIES", "0")
    assert query_cache_entries() == 0
    monkeypatch.setenv("GRACE_QUERY_CACHE_ENTRIES", "lots")
    with pytest.raises(RetrievalConfigError) as raised:
        query_cache_entries()
    assert raised.value.code == "retrieval.config.query_cache"
