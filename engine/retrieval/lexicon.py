"""Cross-lingual word matching through the multilingual embedding, calibrated per corpus.

Across languages an asked word cannot be looked up by stem ("clutch" never occurs in a Spanish passage that says
"embrague"), and the concept groups in the rules are deliberately small and domain-neutral. So every content word
of the corpus is embedded once when the index is built (cached with the corpus embeddings), and an asked word
that nothing else can check is embedded at question time and compared with the words of the *other* language's
passages only. Within one language an unstated word stays unstated: a same-language neighbour is a different
thing ("cat" is not "dog"), which is exactly what a near miss is.

A cosine between two single words says little by itself (e5 puts every pair of words in a narrow, high band), so
a word counts as stated only where its similarity is an outlier twice over: against what two unrelated words of
this corpus score (the corpus's own calibration: z-score over random word pairs), and against the asked word's
other candidates (its best match must stand out from the rest of the corpus's words, ``word_min_gap``).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.retrieval.analysis import AnalyzerSet, is_number, tokens
from engine.retrieval.cache import EmbeddingCache
from engine.retrieval.corpus import Corpus
from engine.retrieval.embedder import Embedder, Matrix
from engine.retrieval.errors import RetrievalError

_MIN_WORD_LEN = 3
_CALIBRATION_SAMPLE = 400  # words sampled (deterministically) for the negative-pair statistics
_MIN_SPREAD = 0.005
_CACHE_WORDS = 4096  # asked words whose embeddings are kept (visitors ask the same words again)
_TOP = 3  # at most this many corpus words per asked word (inflected forms: "dog", "dogs")


@dataclass(frozen=True)
class WordMatch:
    word: str  # the corpus word matched
    z: float  # calibrated z-score of the cosine
    gap: float  # how far the best cosine stands above the asked word's typical corpus word (in corpus sds)


class Lexicon:
    """The corpus's content words (per language), their embeddings, and the passages each word occurs in."""

    def __init__(
        self,
        words: Sequence[str],
        languages: Sequence[str],
        passages: Sequence[frozenset[str]],
        vectors: Matrix,
        embedder: Embedder,
    ) -> None:
        self.words = list(words)
        self.languages = np.array(list(languages))
        self.passages = list(passages)
        self.vectors = vectors
        self.embedder = embedder
        self._cache: dict[str, np.ndarray] = {}
        # A corpus word asked about is answered with its corpus row (embedded by the same query call when the
        # index was built): no model call on a visitor's turn, and the same vector whatever else that turn asks
        # (a word embedded inside a batch may differ in the last bits from batch to batch).
        self._known: dict[str, np.ndarray] = {}
        for index, word in enumerate(self.words):
            self._known.setdefault(word, vectors[index])
        n = len(self.words)
        step = max(1, n // _CALIBRATION_SAMPLE)
        sample = vectors[::step]
        if len(sample) >= 2:
            sims = sample @ sample.T
            mask = ~np.eye(len(sample), dtype=bool)
            values = sims[mask]
            self.mean, self.sd = float(values.mean()), max(float(values.std()), _MIN_SPREAD)
        else:
            self.mean, self.sd = 0.85, 0.05

    def vectors_for(self, surfaces: Sequence[str]) -> dict[str, np.ndarray]:
        """Embeddings of asked words: corpus words from the corpus matrix, others by one batched call for the ones
        not seen before (a bounded cache)."""
        found = {s: self._known[s] for s in surfaces if s in self._known}
        found.update((s, self._cache[s]) for s in surfaces if s not in found and s in self._cache)
        missing = [s for s in dict.fromkeys(surfaces) if s not in found]
        if missing:
            for surface, row in zip(missing, self.embedder.embed_queries(missing), strict=True):
                found[surface] = row
                if len(self._cache) < _CACHE_WORDS:
                    self._cache[surface] = row
        return found

    def match(
        self, vector: np.ndarray, language: str, min_z: float, min_gap: float
    ) -> list[tuple[WordMatch, frozenset[str]]]:
        """Corpus words of ``language`` the asked word's vector names: calibrated outliers standing out from the
        asked word's other candidates. Returns each match with the passage ids it occurs in."""
        rows = np.flatnonzero(self.languages == language)
        if rows.size < 2:
            return []
        sims = self.vectors[rows] @ vector
        typical = float(np.median(sims))
        out: list[tuple[WordMatch, frozenset[str]]] = []
        for j in np.argsort(-sims)[:_TOP]:
            cosine = float(sims[j])
            z = (cosine - self.mean) / self.sd
            gap = (cosine - typical) / self.sd
            if z >= min_z and gap >= min_gap:
                i = int(rows[j])
                out.append((WordMatch(self.words[i], round(z, 3), round(gap, 3)), self.passages[i]))
        return out


def build_lexicon(
    corpus: Corpus, analyzers: AnalyzerSet, embedder: Embedder, cache: EmbeddingCache | None = None
) -> Lexicon:
    found: dict[tuple[str, str], set[str]] = defaultdict(set)
    for passage in corpus.passages:
        stop = analyzers.for_language(passage.language).stopwords
        for word in tokens(passage.indexed_text()):
            if len(word) >= _MIN_WORD_LEN and word not in stop and not is_number(word):
                found[(word, passage.language)].add(passage.id)
    keys = sorted(found)
    words = [w for w, _ in keys]
    digest = hashlib.sha256("\n".join(f"{w}\t{lang}" for w, lang in keys).encode()).hexdigest()[:16]
    model_key = f"{embedder.model_id}#words-{digest}"
    vectors: Matrix | None = None
    if cache is not None:
        vectors = cache.load(corpus.content_hash, model_key, len(words), embedder.dim)
    if vectors is None:
        vectors = embedder.embed_queries(words)
        if vectors.shape != (len(words), embedder.dim):
            raise RetrievalError(
                f"embedder {embedder.model_id} returned shape {vectors.shape}", code="retrieval.embedder.shape"
            )
        if cache is not None and words:
            cache.store(corpus.content_hash, model_key, vectors)
    return Lexicon(words, [lang for _, lang in keys], [frozenset(found[k]) for k in keys], vectors, embedder)
