"""One read for what a visitor turn reads before it decides.

A turn over HTTP reads its conversation three times before deciding: the service checks the visitor's token on
the stored access fields, the submitter looks its Idempotency-Key up, and the runtime loads the state and the
cipher. On PostgreSQL each read is a round trip, and under load each round trip is also a wait for the GIL when
the reply comes back. Inside ``read_ahead(conversation_id, key)`` a store that offers ``turn_row`` answers the
first of those reads (the access check) with one statement that returns the conversation row, its wrapped key,
its erasure flag and the key's idempotency entry together, in one snapshot, and hands the other two reads the
rows they would have fetched.

Freshness: each prefetched part is used at most once, by the first read of its kind for that conversation inside
the block; every later read (a retry after a conflict) goes to the database. The rows were read before the
conversation's in-process lock: ``TurnSubmitter`` drops them when it had to wait for that lock (another turn of
the conversation ran meanwhile). Another process can still commit in between, exactly as it can between any read
and the commit; the commit's compare-and-set on the turn refuses the stale state (``store.conflict``) and the
turn runs again on fresh reads, whose idempotency lookup then finds a key that the other commit used.

Outside a block, or for a store without ``turn_row``, every read goes to the database as before.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from engine.storage.rows import KeyedRow


@dataclass(frozen=True)
class IdempotencyRow:
    """An idempotency entry as stored: the response still sealed under the conversation's key."""

    fingerprint: str
    turn: int
    response_json: str


@dataclass(frozen=True)
class TurnRow:
    """What ``turn_row`` read in one statement: the conversation (None: unknown) and the key's entry."""

    keyed: KeyedRow | None
    idempotency: IdempotencyRow | None


class ReadAhead:
    """The prefetch of one turn request; filled by the access read, each part taken once."""

    def __init__(self, conversation_id: str, key: str | None) -> None:
        self.conversation_id = conversation_id
        self.key = key
        self._row: TurnRow | None = None
        self._row_taken = self._idempotency_taken = False

    @property
    def filled(self) -> bool:
        return self._row is not None

    def fill(self, row: TurnRow) -> None:
        self._row = row

    def take_row(self) -> KeyedRow | None:
        """The prefetched conversation row, the first time it is asked for (None: not prefetched, already
        taken, or the conversation was unknown: the caller reads the database)."""
        if self._row is None or self._row_taken:
            return None
        self._row_taken = True
        return self._row.keyed

    def take_idempotency(self, key: str) -> tuple[bool, IdempotencyRow | None, KeyedRow | None]:
        """(prefetched?, the key's entry or None, the conversation row it was read with), the first time."""
        if self._row is None or self._idempotency_taken or key != self.key or self._row.keyed is None:
            return False, None, None
        self._idempotency_taken = True
        return True, self._row.idempotency, self._row.keyed

    def drop(self) -> None:
        """Forget the prefetch: later reads go to the database."""
        self._row = None


_CURRENT: ContextVar[ReadAhead | None] = ContextVar("grace_read_ahead", default=None)


@contextmanager
def read_ahead(conversation_id: str, key: str | None) -> Iterator[ReadAhead]:
    """Within the block, the first access read of ``conversation_id`` prefetches the turn's other reads."""
    ahead = ReadAhead(conversation_id, key)
    token = _CURRENT.set(ahead)
    try:
        yield ahead
    finally:
        _CURRENT.reset(token)
        ahead.drop()


def open_for(conversation_id: str) -> ReadAhead | None:
    """The open read-ahead of ``conversation_id``, if any."""
    ahead = _CURRENT.get()
    return ahead if ahead is not None and ahead.conversation_id == conversation_id else None


def drop_current() -> None:
    """Forget whatever the current block prefetched (the caller waited for the conversation's lock)."""
    ahead = _CURRENT.get()
    if ahead is not None:
        ahead.drop()
