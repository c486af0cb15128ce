"""The reference in-memory store: atomic per call, optimistic concurrency on the turn number."""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from engine.errors import StoreError
from engine.kernel.conversation import ConversationState
from engine.kernel.ports import IdempotencyEntry
from engine.storage.base import ConversationAccess
from engine.storage.turn_session import StoreTurn, plain_session


class InMemoryStore:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._states: dict[str, ConversationState] = {}
        self._records: dict[str, list[dict[str, Any]]] = {}
        self._checkpoints: dict[str, list[dict[str, Any]]] = {}  # the append-only checkpoint log
        self._idempotent: dict[tuple[str, str], IdempotencyEntry] = {}

    def create(self, state: ConversationState) -> None:
        with self._lock:
            if state.conversation_id in self._states:
                raise StoreError(f"conversation {state.conversation_id} exists", code="store.exists")
            self._states[state.conversation_id] = copy.deepcopy(state)
            self._records[state.conversation_id] = []

    def load(self, conversation_id: str) -> ConversationState:
        with self._lock:
            try:
                return copy.deepcopy(self._states[conversation_id])
            except KeyError:
                raise StoreError(f"no conversation {conversation_id}", code="store.not_found") from None

    @contextmanager
    def open_turn(self, conversation_id: str) -> Iterator[StoreTurn]:
        """A turn's session: the state as ``load`` reads it (this store keeps plaintext: no cipher)."""
        session = plain_session(self.load(conversation_id), None, self.commit_turn)
        try:
            yield session
        finally:
            session.close()

    def access(self, conversation_id: str) -> ConversationAccess:
        with self._lock:
            state = self._states.get(conversation_id)
            if state is None:
                raise StoreError(f"no conversation {conversation_id}", code="store.not_found")
            return ConversationAccess.of(state)

    def commit_turn(self, state: ConversationState, record: dict[str, Any], expected_turn: int, *,
                    idempotency: IdempotencyEntry | None = None) -> None:
        with self._lock:
            current = self._states.get(state.conversation_id)
            if current is None:
                raise StoreError(f"no conversation {state.conversation_id}", code="store.not_found")
            if current.turn != expected_turn:
                raise StoreError("another turn was committed first", code="store.conflict")
            slot = None if idempotency is None else (state.conversation_id, idempotency.key)
            if slot is not None and slot in self._idempotent:
                raise StoreError("idempotency key already used on this conversation", code="store.conflict")
            log = self._checkpoints.setdefault(state.conversation_id, [])
            if state.audit_head is not None:
                if state.audit_head.get("counter") != len(log) + 1:
                    raise StoreError("checkpoint counter does not follow the log", code="store.checkpoint_rollback")
                log.append(copy.deepcopy(state.audit_head))
            self._states[state.conversation_id] = copy.deepcopy(state)
            self._records[state.conversation_id].append(copy.deepcopy(record))
            if slot is not None and idempotency is not None:
                self._idempotent[slot] = copy.deepcopy(idempotency)

    def idempotent(self, conversation_id: str, key: str) -> IdempotencyEntry | None:
        with self._lock:
            return copy.deepcopy(self._idempotent.get((conversation_id, key)))

    def records(self, conversation_id: str) -> list[dict[str, Any]]:
        with self._lock:
            return copy.deepcopy(self._records.get(conversation_id, []))

    def list_conversations(self) -> list[str]:
        with self._lock:
            return sorted(self._states)

    def stored_state(self, conversation_id: str) -> dict[str, Any]:
        return self.load(conversation_id).model_dump(mode="json")

    def checkpoints(self, conversation_id: str) -> list[dict[str, Any]]:
        with self._lock:
            return copy.deepcopy(self._checkpoints.get(conversation_id, []))
