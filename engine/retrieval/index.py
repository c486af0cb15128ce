"""The retrieval interface (paper eq. 7) and its embedded default: hybrid BM25 + dense, in process, offline.

``search`` reads only the query string it is given (turn-local: the current visitor message); it never sees
history or state. Both backends return ``ScoredPassage`` hits with the lexical and dense components kept, since
the grounding gate needs them.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import bm25s
import numpy as np
import numpy.typing as npt
import structlog

from engine.retrieval.analysis import AnalyzerSet, TermStats, tokens
from engine.retrieval.cache import EmbeddingCache
from engine.retrieval.corpus import Corpus
from engine.retrieval.embedder import Embedder, Matrix
from engine.retrieval.errors import RetrievalError
from engine.retrieval.filters import FieldFilter, matches
from engine.retrieval.fusion import ranks, reciprocal_rank_fusion
from engine.retrieval.models import Passage, ScoredPassage
from engine.retrieval.retrieval_rules import RetrievalSettings

log = structlog.get_logger("grace.retrieval")

_MIN_STANDING_GROUP = 8  # passages of one language needed for a per-language standing


class Retriever(Protocol):
    """TopK over the company corpus for one query string; ``filters`` restrict record fields."""

    corpus: Corpus
    term_stats: TermStats
    passage_terms: dict[str, frozenset[str]]
    vocabulary: frozenset[str]  # folded surface words of the whole corpus
    vectors: CorpusVectors  # passage and title embeddings (answerability calibrates against them)

    def search(
        self, query: str, k: int, filters: Sequence[FieldFilter] = (), expansion: Sequence[str] = ()
    ) -> list[ScoredPassage]:
        """``expansion``: corpus words added to the lexical side only (cross-lingual word matches)."""
        ...


def analyse_corpus(corpus: Corpus, analyzers: AnalyzerSet) -> tuple[list[list[str]], TermStats, frozenset[str]]:
    """Index terms per passage (each under its own language's analyzer), their document frequencies and the
    corpus's folded surface vocabulary."""
    term_lists = [analyzers.for_language(p.language).terms(p.indexed_text()) for p in corpus.passages]
    vocabulary = frozenset(word for p in corpus.passages for word in tokens(p.indexed_text()))
    return term_lists, TermStats.build(term_lists), vocabulary


@dataclass(frozen=True)
class CorpusVectors:
    """Passage embeddings (``passage:`` side) and title embeddings (``query:`` side, question-to-question
    matching for FAQ headings); ``has_title`` marks rows whose title is real."""

    body: Matrix
    titles: Matrix
    has_title: npt.NDArray[np.bool_]


def _embed_cached(
    corpus: Corpus, embedder: Embedder, cache: EmbeddingCache | None, texts: list[str], side: str
) -> Matrix:
    model_key = f"{embedder.model_id}#{side}"
    if cache is not None:
        cached = cache.load(corpus.content_hash, model_key, len(texts), embedder.dim)
        if cached is not None:
            return cached
    started = time.perf_counter()
    matrix = embedder.embed_passages(texts) if side == "body" else embedder.embed_queries(texts)
    if matrix.shape != (len(texts), embedder.dim):
        raise RetrievalError(
            f"embedder {embedder.model_id} returned shape {matrix.shape}", code="retrieval.embedder.shape"
        )
    log.info(
        "retrieval.embed.corpus",
        model=embedder.model_id,
        side=side,
        texts=len(texts),
        ms=round((time.perf_counter() - started) * 1000, 1),
    )
    if cache is not None:
        cache.store(corpus.content_hash, model_key, matrix)
    return matrix


def standings(
    scores: npt.NDArray[np.float64], mask: npt.NDArray[np.bool_], languages: Sequence[str]
) -> npt.NDArray[np.float64]:
    """Per-language z-scores of one query's similarities over the passages in ``mask`` (0 where undefined)."""
    out = np.zeros(len(scores))
    if mask.sum() < 2:
        return out
    for language in set(languages):
        group = mask & np.array([lang == language for lang in languages], dtype=bool)
        # A handful of sections cannot show what "unrelated" looks like: small groups use the whole corpus.
        values = scores[group] if group.sum() >= _MIN_STANDING_GROUP else scores[mask]
        spread = float(values.std())
        if spread > 0:
            out[group] = (scores[group] - float(values.mean())) / spread
    return out


def embed_corpus(corpus: Corpus, embedder: Embedder, cache: EmbeddingCache | None) -> CorpusVectors:
    passages = corpus.passages
    body = _embed_cached(corpus, embedder, cache, [p.indexed_text() for p in passages], "body")
    titles = _embed_cached(corpus, embedder, cache, [p.title or p.text for p in passages], "title")
    has_title = np.array([bool(p.title.strip()) for p in passages], dtype=bool)
    return CorpusVectors(body=body, titles=titles, has_title=has_title)


class EmbeddedIndex:
    """Hybrid in-process index: bm25s over Snowball-stemmed terms, cosine to passage embeddings and cosine to
    title embeddings (FAQ headings are questions), fused by RRF."""

    def __init__(
        self,
        corpus: Corpus,
        analyzers: AnalyzerSet,
        embedder: Embedder,
        settings: RetrievalSettings,
        cache: EmbeddingCache | None = None,
    ) -> None:
        self.corpus = corpus
        self.analyzers = analyzers
        self.embedder = embedder
        self.settings = settings
        term_lists, self.term_stats, self.vocabulary = analyse_corpus(corpus, analyzers)
        self.passage_terms = {p.id: frozenset(t) for p, t in zip(corpus.passages, term_lists, strict=True)}
        self._bm25 = bm25s.BM25(k1=settings.bm25_k1, b=settings.bm25_b)
        # bm25s needs at least one token per document; a passage made only of stopwords gets a placeholder.
        self._bm25.index([t or ["\x00"] for t in term_lists], show_progress=False)
        self._vocab: set[str] = set(self._bm25.vocab_dict)
        self._languages = [p.language for p in corpus.passages]
        self._vectors = self.vectors = embed_corpus(corpus, embedder, cache)

    def _lexical(self, query: str) -> npt.NDArray[np.float64]:
        terms = [t for t in self.analyzers.query_terms(query) if t in self._vocab]
        if not terms:
            return np.zeros(len(self.corpus.passages))
        return np.asarray(self._bm25.get_scores(terms), dtype=np.float64)

    def _dense(self, query: str) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        q = self.embedder.embed_queries([query])[0]
        body = np.asarray(self._vectors.body @ q, dtype=np.float64)
        titles = np.where(self._vectors.has_title, self._vectors.titles @ q, 0.0).astype(np.float64)
        return body, titles

    def search(
        self, query: str, k: int, filters: Sequence[FieldFilter] = (), expansion: Sequence[str] = ()
    ) -> list[ScoredPassage]:
        started = time.perf_counter()
        passages: tuple[Passage, ...] = self.corpus.passages
        allowed = (
            np.array([matches(p, filters) for p in passages], dtype=bool)
            if filters
            else np.ones(len(passages), dtype=bool)
        )
        lexical = self._lexical(" ".join([query, *expansion]))
        dense, title = self._dense(query)
        fused = reciprocal_rank_fusion(
            [
                ranks(lexical, allowed & (lexical > 0)),
                ranks(dense, allowed),
                ranks(title, allowed & self._vectors.has_title),
            ],
            [self.settings.lexical_weight, self.settings.dense_weight, self.settings.title_weight],
            self.settings.rrf_k,
        )
        order = sorted((i for i in range(len(passages)) if allowed[i]), key=lambda i: (-fused[i], i))[:k]
        dense_standing = standings(dense, allowed, self._languages)
        title_standing = standings(title, allowed & self._vectors.has_title, self._languages)
        hits = [
            ScoredPassage(
                passage=passages[i],
                score=float(fused[i]),
                rank=position,
                lexical_score=float(lexical[i]),
                dense_score=float(dense[i]),
                title_score=float(title[i]),
                dense_standing=float(dense_standing[i]),
                title_standing=float(title_standing[i]),
            )
            for position, i in enumerate(order, start=1)
        ]
        log.debug(
            "retrieval.query.done",
            backend="embedded",
            k=k,
            hits=[h.passage.id for h in hits],
            ms=round((time.perf_counter() - started) * 1000, 2),
        )
        return hits
