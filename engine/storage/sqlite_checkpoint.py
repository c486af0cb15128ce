"""SQLite's WAL checkpoints on a thread of their own, not inside a visitor's turn.

By default SQLite checkpoints in the commit that pushes the WAL past 1,000 pages: that turn copies the WAL
into the database and syncs both files (three ``fdatasync`` calls with ``synchronous = NORMAL``). A turn
writes about a dozen pages, so about one commit in 85 paid 5-20 ms on an idle host (the rest: 0.05 ms), more
when other processes write to the disk: exactly the p99 of a run of a few hundred turns. Here the store counts
its write commits and every ``every_commits`` wakes a thread that runs a PASSIVE checkpoint on its own
connection (writers keep appending meanwhile; ``sqlite3`` releases the GIL while SQLite works). The turn
connections keep an automatic checkpoint at ``AUTOCHECKPOINT_BACKSTOP_PAGES`` so the WAL stays bounded if
this thread falls behind. What is committed, and when it is durable, does not change: a checkpoint only
copies committed pages.

``exclusive()`` lets another checkpoint of the same store (erasure's TRUNCATE) wait for a running one
instead of finding the checkpoint lock taken.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import structlog

log = structlog.get_logger("engine.storage.sqlite")

CHECKPOINT_EVERY_COMMITS = 32  # ~400 WAL pages: well before SQLite's own 1,000-page checkpoint
# The committing turn checkpoints only past this (~16 MB of WAL). A writer restarts the WAL from its start when
# a checkpoint has copied all of it before the writer began; commits back to back faster than a checkpoint
# takes may miss that moment, so the WAL can grow, and then this bounds it (the background checkpoints have
# copied most of it: the turn that hits the backstop copies the rest).
AUTOCHECKPOINT_BACKSTOP_PAGES = 4_000


class WalCheckpointer:
    """Wakes a checkpoint thread every ``every_commits`` write commits (started on first need, stopped by
    ``close``)."""

    def __init__(self, path: Path, *, every_commits: int = CHECKPOINT_EVERY_COMMITS,
                 busy_timeout_ms: int = 10_000) -> None:
        self._path = path
        self._every = every_commits
        self._busy_timeout_ms = busy_timeout_ms
        self._commits = 0
        self._wake = threading.Event()
        self._closing = False
        self._running = threading.Lock()  # held while a checkpoint of this store runs (see ``exclusive``)
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self.checkpoints = 0  # completed background checkpoints (tests and diagnostics)

    def committed(self) -> None:
        """One write transaction committed. Cheap: a counter, and an Event every ``every_commits``."""
        self._commits += 1  # a lost increment under a thread race only shifts the next checkpoint
        if self._commits < self._every or self._closing:
            return
        self._commits = 0
        if self._thread is None:
            self._start()
        self._wake.set()

    def _start(self) -> None:
        with self._start_lock:
            if self._thread is None and not self._closing:
                self._thread = threading.Thread(target=self._run, name="grace-sqlite-checkpoint", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        conn = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False,
                               timeout=self._busy_timeout_ms / 1000)
        try:
            while True:
                self._wake.wait()
                self._wake.clear()
                if self._closing:
                    return
                try:
                    with self._running:
                        conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                    self.checkpoints += 1
                except sqlite3.Error as exc:  # the committing turns' backstop checkpoint still bounds the WAL
                    log.warning("storage.sqlite.checkpoint_failed", error=type(exc).__name__)
        finally:
            conn.close()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """No background checkpoint runs inside this block."""
        with self._running:
            yield

    def close(self) -> None:
        """Stop the thread (a store reopened after ``close`` starts a new one when needed)."""
        with self._start_lock:
            self._closing = True
            self._wake.set()
            thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout=30)
        self._wake.clear()
        self._closing = False
