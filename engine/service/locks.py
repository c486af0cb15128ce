"""Per-conversation locks inside one process, released and forgotten when nobody holds or waits on them.

They only spare same-process turns from conflicting; ordering across processes is the store's job
(the turn compare-and-set in ``commit_turn``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class KeyedLocks:
    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, tuple[threading.Lock, int]] = {}

    @contextmanager
    def hold(self, key: str) -> Iterator[bool]:
        """Hold ``key``'s lock; the block gets whether it had to wait for another holder first."""
        with self._guard:
            lock, users = self._locks.get(key, (threading.Lock(), 0))
            self._locks[key] = (lock, users + 1)
        waited = not lock.acquire(blocking=False)
        if waited:
            lock.acquire()
        try:
            yield waited
        finally:
            lock.release()
            with self._guard:
                _, users = self._locks[key]
                if users == 1:
                    del self._locks[key]
                else:
                    self._locks[key] = (lock, users - 1)

    def __len__(self) -> int:
        with self._guard:
            return len(self._locks)
