"""One long-lived thread per process on which every turn's decision runs.

The decision layer is not thread-safe: Z3's default context and the durable-rules engine are process-global,
and the invariant checker caches Z3 objects per thread. Two turns deciding at once crashed the process in
the load benchmark, and so did a Z3 object freed by a worker thread exiting while another thread was in Z3.
Running every ``TurnRuntime.handle`` on one thread that never exits avoids both. Throughput comes from more
engine processes sharing one PostgreSQL database, not from threads.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


class EngineThread:
    def __init__(self, name: str = "grace-engine") -> None:
        # max_workers=1: calls run one at a time, always on the same thread (created on first use).
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)

    def run(self, fn: Callable[..., T], *args: object) -> T:
        """Run ``fn(*args)`` on the engine thread with the caller's context variables; re-raise its errors."""
        context = contextvars.copy_context()
        return self._pool.submit(context.run, fn, *args).result()


# The process-wide engine thread. Never shut down: its thread-local Z3 objects must not be freed while
# another thread could be inside Z3.
ENGINE = EngineThread()
