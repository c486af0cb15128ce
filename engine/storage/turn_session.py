"""One turn's hold on its conversation, opened by ``store.open_turn`` (the ``TurnSession`` port of
``engine.kernel.ports``) and passed explicitly: no per-turn state lives in a context variable.

The session keeps what the turn's load and its commit would otherwise compute twice:

* the conversation's cipher, unwrapped once by the load: the commit, under its write lock, reuses it when the
  wrapped key it reads there is still the one the load unwrapped (unwrapping is deterministic, so the data key
  is the same), and with it the cipher's memo of sealed strings, so the history is not encrypted again;
* the stored form of the new state that the runtime built for the checkpoint: the commit writes it instead of
  dumping the state again, when it belongs to that state object, sealed with that cipher, at that turn and
  checkpoint.

Closing the session drops the cipher: no unwrapped key outlives the turn, so an erasure between two turns leaves
nothing behind that could decrypt the conversation (and the commit re-reads the wrapped key under its lock: an
erased conversation has none and is refused before anything is opened).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from audit.vault import FieldCipher
from engine.errors import StoreError
from engine.kernel.conversation import ConversationState
from engine.kernel.ports import IdempotencyEntry


class Committer(Protocol):
    def __call__(self, state: ConversationState, record: dict[str, Any], expected_turn: int, *,
                 idempotency: IdempotencyEntry | None, session: StoreTurn) -> None: ...


@dataclass
class StoreTurn:
    """The ``TurnSession`` every store hands out: the state and cipher the turn read, and its one commit."""

    state: ConversationState
    cipher: FieldCipher | None
    wrapped: bytes | None  # the wrapped key ``cipher`` was unwrapped from (None: plaintext or no key read)
    _commit: Committer = field(repr=False)
    _stored: tuple[ConversationState, dict[str, Any]] | None = field(default=None, repr=False)
    _done: bool = field(default=False, repr=False)

    def commit(self, state: ConversationState, record: dict[str, Any], expected_turn: int, *,
               idempotency: IdempotencyEntry | None = None, stored: dict[str, Any] | None = None) -> None:
        """Persist the turn atomically (the store's ``commit_turn``); ``stored`` is ``stored_form(state,
        self.cipher)`` as the checkpoint hashed it. A session commits at most once and not after it closed."""
        if self._done:
            raise StoreError("this turn session is closed or already committed", code="store.session_closed")
        self._stored = (state, stored) if stored is not None else None
        try:
            self._commit(state, record, expected_turn, idempotency=idempotency, session=self)
        finally:
            self._done = True
            self._stored = None

    def cipher_for(self, wrapped: bytes | None) -> FieldCipher | None:
        """The cipher the load opened, if ``wrapped`` (read again under the commit's lock) is still its key."""
        if self._done or wrapped is None or wrapped != self.wrapped:
            return None
        return self.cipher

    def stored_for(self, state: ConversationState, cipher: FieldCipher | None) -> dict[str, Any] | None:
        """The stored form handed to ``commit`` if it is that of ``state`` sealed with ``cipher``. The turn number
        and the checkpoint are compared too: they are what a caller would change on a state after computing its
        form."""
        kept = self._stored
        if kept is None or kept[0] is not state or cipher is not self.cipher:
            return None
        data = kept[1]
        if data.get("turn") != state.turn or data.get("audit_head") != state.audit_head:
            return None
        return data

    def close(self) -> None:
        self._done = True
        self._stored = None
        self.cipher = None


def plain_session(state: ConversationState, cipher: FieldCipher | None,
                  commit: Callable[..., None]) -> StoreTurn:
    """A session over a store whose commit needs nothing from it (the in-memory store)."""

    def committer(state: ConversationState, record: dict[str, Any], expected_turn: int, *,
                  idempotency: IdempotencyEntry | None, session: StoreTurn) -> None:
        commit(state, record, expected_turn, idempotency=idempotency)

    return StoreTurn(state, cipher, None, committer)
