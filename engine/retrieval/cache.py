"""On-disk cache of corpus embeddings, keyed by corpus content hash + embedding model id.

Default folder: ``$GRACE_CACHE_DIR/retrieval`` or ``<system temp>/grace-cache/retrieval`` (never in the repo).
A damaged or mismatching entry is ignored and rewritten: the cache can only save time, never change results.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import numpy as np
import structlog

from engine.cache_root import cache_root
from engine.retrieval.embedder import Matrix

log = structlog.get_logger("grace.retrieval")


def default_cache_dir() -> Path:
    return cache_root() / "retrieval"


class EmbeddingCache:
    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or default_cache_dir()

    @staticmethod
    def key(corpus_hash: str, model_id: str) -> str:
        return hashlib.sha256(f"{model_id}\n{corpus_hash}".encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.directory / f"{key}.npy"

    def load(self, corpus_hash: str, model_id: str, rows: int, dim: int) -> Matrix | None:
        path = self._path(self.key(corpus_hash, model_id))
        if not path.exists():
            return None
        try:
            matrix: Matrix = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            log.warning("retrieval.cache.unreadable", path=str(path), error=str(exc))
            return None
        if matrix.shape != (rows, dim) or matrix.dtype != np.float32 or not np.isfinite(matrix).all():
            log.warning("retrieval.cache.mismatch", path=str(path), shape=list(matrix.shape))
            return None
        log.debug("retrieval.cache.hit", path=str(path))
        return matrix

    def store(self, corpus_hash: str, model_id: str, matrix: Matrix) -> None:
        """Write atomically (temp file + rename): a concurrent reader never sees half a matrix."""
        path = self._path(self.key(corpus_hash, model_id))
        tmp: str | None = None
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.directory, suffix=".npy.tmp")
            with os.fdopen(fd, "wb") as handle:
                np.save(handle, matrix, allow_pickle=False)
            os.replace(tmp, path)
            tmp = None
        except OSError as exc:
            # A read-only or full disk only costs speed: keep going without the cache.
            log.warning("retrieval.cache.write_failed", path=str(path), error=str(exc))
            return
        finally:
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)
        log.debug("retrieval.cache.stored", path=str(path))
