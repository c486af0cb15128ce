"""Which sentences of a section hold the answer: the ones a ``related`` reply shows (verbatim, one or two).

Two signals, weighted by rule data (``answering.sentence_weights``): the cosine of the question and each sentence in
the multilingual embedding, z-scored among the section's own sentences (so it works across languages and does not
depend on how long or generic the section is), and the IDF-weighted share of the asked words the sentence states
(stems of every rule language, numbers and names, which carry across languages). Measured on XQuAD, where the
answer's sentence is marked, same language and across EN↔ES (benchmarks/rag_xquad.py).

A section's sentence embeddings are computed once per corpus (disk-cached with the passage embeddings), never
during a turn.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.retrieval.analysis import AnalyzerSet, QueryWord, TermStats, split_sentences
from engine.retrieval.cache import EmbeddingCache
from engine.retrieval.corpus import Corpus
from engine.retrieval.embedder import Embedder, Matrix
from engine.retrieval.errors import RetrievalError
from engine.retrieval.grounding import query_coverage
from engine.retrieval.retrieval_rules import SentenceWeights

Vector = npt.NDArray[np.float32]


@dataclass(frozen=True)
class RankedSentence:
    index: int  # position in the section
    text: str
    score: float


def zscores(values: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Values against their own mean and spread; all equal (or one value): zeros."""
    if values.size < 2:
        return np.zeros_like(values)
    spread = float(values.std())
    return (values - values.mean()) / spread if spread > 1e-9 else np.zeros_like(values)


def rank_sentences(
    sentences: Sequence[str],
    sentence_vectors: npt.NDArray[np.float32],
    query_vector: Vector,
    words: Sequence[QueryWord],
    analyzer_terms: Sequence[frozenset[str]],
    stats: TermStats,
    weights: SentenceWeights,
    kinds: Sequence[bool] = (),
) -> list[RankedSentence]:
    """The section's sentences, best first (ties: earlier first). ``analyzer_terms``: each sentence's terms;
    ``kinds``: which sentences state the kind of thing asked (a price for "how much"), when one is asked."""
    if not sentences:
        return []
    cosines = sentence_vectors.astype(np.float64) @ query_vector.astype(np.float64)
    lexical = np.array([query_coverage(words, terms, stats) for terms in analyzer_terms], dtype=np.float64)
    scores = weights.dense_z * zscores(cosines) + weights.lexical * lexical
    if kinds:
        scores = scores + weights.kind * np.array(kinds, dtype=np.float64)
    ranked = [RankedSentence(i, s, float(scores[i])) for i, s in enumerate(sentences)]
    return sorted(ranked, key=lambda r: (-r.score, r.index))


def shown_sentences(ranked: Sequence[RankedSentence], limit: int, second_share: float) -> list[RankedSentence]:
    """The best sentence, and the next ones (up to ``limit``) that score at least ``second_share`` of the best's
    height above the section's median (a clear winner is shown alone); in the section's order. A section of at
    most ``limit`` sentences is shown whole: of two sentences the second is always under their median, so the rule
    would hide it however likely it is to hold the answer ("We work within 15 miles …" / "Outside this area …")."""
    if not ranked:
        return []
    if len(ranked) <= limit:
        return sorted(ranked, key=lambda r: r.index)
    median = float(np.median([r.score for r in ranked]))
    top = ranked[0].score - median
    keep = [ranked[0]]
    for candidate in ranked[1:limit]:
        if top <= 0 or candidate.score - median >= second_share * top:
            keep.append(candidate)
    return sorted(keep, key=lambda r: r.index)


class SentenceIndex:
    """Every passage's sentences, their terms and embeddings, built once per corpus."""

    def __init__(
        self,
        passage_ids: Sequence[str],
        texts: Sequence[str],
        languages: Sequence[str],
        analyzers: AnalyzerSet,
        vectors: npt.NDArray[np.float32],
    ) -> None:
        self.sentences: dict[str, list[str]] = {}
        self.terms: dict[str, list[frozenset[str]]] = {}
        self.vectors: dict[str, npt.NDArray[np.float32]] = {}
        row = 0
        for pid, text, language in zip(passage_ids, texts, languages, strict=True):
            found = split_sentences(text)
            analyzer = analyzers.for_language(language)
            self.sentences[pid] = found
            self.terms[pid] = [frozenset(analyzer.terms(s)) for s in found]
            self.vectors[pid] = vectors[row : row + len(found)]
            row += len(found)
        if row != len(vectors):
            raise ValueError(f"sentence vectors: {len(vectors)} rows for {row} sentences")
        # every sentence row at once, and where each passage's rows start (passages with sentences only)
        self._matrix = vectors
        self._ids = [pid for pid in passage_ids if len(self.sentences[pid])]
        self._starts = np.cumsum([0, *(len(self.sentences[pid]) for pid in self._ids)])[:-1]

    def best_cosines(self, query_vector: Vector) -> dict[str, float]:
        """Each passage's best sentence cosine with the query (passages without sentences left out)."""
        if not self._ids:
            return {}
        cosines = self._matrix.astype(np.float64) @ query_vector.astype(np.float64)
        best = np.maximum.reduceat(cosines, self._starts)
        return dict(zip(self._ids, (float(b) for b in best), strict=True))

    @staticmethod
    def all_sentences(texts: Sequence[str]) -> list[str]:
        """The texts to embed, in the order ``SentenceIndex`` reads them."""
        return [s for text in texts for s in split_sentences(text)]


def build_sentence_index(
    corpus: Corpus, analyzers: AnalyzerSet, embedder: Embedder, cache: EmbeddingCache | None = None
) -> SentenceIndex:
    """Every passage's sentences embedded (``passage:`` side) once, cached beside the passage embeddings."""
    passages = corpus.passages
    texts = SentenceIndex.all_sentences([p.text for p in passages])
    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
    model_key = f"{embedder.model_id}#sentences-{digest}"
    vectors: Matrix | None = None
    if cache is not None:
        vectors = cache.load(corpus.content_hash, model_key, len(texts), embedder.dim)
    if vectors is None:
        vectors = embedder.embed_passages(texts) if texts else np.zeros((0, embedder.dim), dtype=np.float32)
        if vectors.shape != (len(texts), embedder.dim):
            raise RetrievalError(
                f"embedder {embedder.model_id} returned shape {vectors.shape}", code="retrieval.embedder.shape"
            )
        if cache is not None and texts:
            cache.store(corpus.content_hash, model_key, vectors)
    return SentenceIndex(
        [p.id for p in passages], [p.text for p in passages], [p.language for p in passages], analyzers, vectors
    )
