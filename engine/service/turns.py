"""Idempotent, per-conversation-ordered turn submission on top of ``TurnRuntime``.

* Idempotency: the client's ``Idempotency-Key`` and the response are written by ``commit_turn`` in the
  same transaction as the state and the audit record (``CommitHook`` below). A retry finds the entry and
  gets the first response back; no second transition can exist, even after a crash between commit and
  reply. The same key with another message is a 409 ``idempotency.key_reused``.
* Ordering: turns of one conversation take an in-process lock; across processes the store's compare-and-set
  on the turn number refuses a stale commit (``store.conflict``) and the turn is run again on the fresh
  state, a bounded number of times.
* Answering and proposing run on the request threads, at most ``turn_workers`` (limits.json) at once, so one
  slow conversation does not hold up the others; every decision still runs on the process's engine thread
  (``engine_thread``): the decision layer is not thread-safe. A turn past its deadline (rules/runtime.json)
  fails closed inside the runtime.
"""

from __future__ import annotations

import contextvars
import hashlib
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import structlog

from audit.vault import FieldCipher
from engine.conversation import ConversationState
from engine.errors import StoreError
from engine.leads.notifier import LeadNotifier
from engine.ports import Answerer, GroundedAnswer
from engine.service.engine_thread import ENGINE, EngineThread
from engine.service.errors import ConflictError, RequestError
from engine.service.locks import KeyedLocks
from engine.service.responses import turn_response
from engine.storage.base import DurableStore, IdempotencyEntry
from engine.storage.errors import RETRYABLE
from engine.turn_limits import deciding_on

log = structlog.get_logger("engine.service.turns")

_KEY_CHARS = re.compile(r"^[A-Za-z0-9._:~-]+$")


@dataclass
class _Pending:
    key: str | None
    fingerprint: str
    answer: GroundedAnswer | None = None  # what the runtime's answerer returned during this attempt
    response: dict[str, Any] | None = None


_pending: contextvars.ContextVar[_Pending | None] = contextvars.ContextVar("grace_pending_turn", default=None)


class CommitHook:
    """A ``ConversationStore`` for ``TurnRuntime``: commits through the durable store, adding the turn's
    response and idempotency entry to the same transaction when a service request is in flight."""

    def __init__(self, store: DurableStore, notifier: LeadNotifier | None = None) -> None:
        self.inner = store
        self.notifier = notifier  # completion webhooks: told after a closing turn commits

    def create(self, state: ConversationState) -> None:
        self.inner.create(state)

    def load(self, conversation_id: str) -> ConversationState:
        return self.inner.load(conversation_id)

    def cipher(self, conversation_id: str) -> FieldCipher | None:
        return self.inner.cipher(conversation_id)

    def load_with_cipher(self, conversation_id: str) -> tuple[ConversationState, FieldCipher | None]:
        return self.inner.load_with_cipher(conversation_id)

    def commit_turn(self, state: ConversationState, record: dict[str, Any], expected_turn: int) -> None:
        pending = _pending.get()
        if pending is None:  # a turn run outside the HTTP service (CLI, tests)
            self.inner.commit_turn(state, record, expected_turn)
            self._committed(state, record)
            return
        response = turn_response(state, record, pending.answer)
        entry = None
        if pending.key is not None:
            entry = IdempotencyEntry(state.conversation_id, pending.key, pending.fingerprint, state.turn, response)
        self.inner.commit_turn(state, record, expected_turn, idempotency=entry)
        pending.response = response
        self._committed(state, record)

    def _committed(self, state: ConversationState, record: dict[str, Any]) -> None:
        if self.notifier is not None:
            self.notifier.on_commit(state, record)

    def records(self, conversation_id: str) -> list[dict[str, Any]]:
        return self.inner.records(conversation_id)

    def list_conversations(self) -> list[str]:
        return self.inner.list_conversations()


class RecordingAnswerer:
    """Wraps a runtime's answerer so the turn response can carry the full grounded answer (text and quoted
    citations), which the audit record deliberately summarises."""

    def __init__(self, inner: Answerer) -> None:
        self.inner = inner

    @property
    def conversational(self) -> bool:
        """Whether the wrapped answerer reads earlier visitor messages (directory follow-ups)."""
        return bool(getattr(self.inner, "conversational", False))

    def answer(self, message: str, language: str, history: Sequence[str] = ()) -> GroundedAnswer:
        if self.conversational:
            result = self.inner.answer(message, language, history)  # type: ignore[call-arg]
        else:
            result = self.inner.answer(message, language)
        pending = _pending.get()
        if pending is not None:
            pending.answer = result
        return result


def fingerprint(message: str) -> str:
    return "sha256:" + hashlib.sha256(message.encode("utf-8", "surrogatepass")).hexdigest()


def check_key(key: str | None, max_chars: int) -> str | None:
    if key is None:
        return None
    if not key or len(key) > max_chars or not _KEY_CHARS.match(key):
        raise RequestError(
            f"Idempotency-Key must be 1-{max_chars} characters of A-Z a-z 0-9 . _ : ~ -",
            code="idempotency.key_invalid",
        )
    return key


@dataclass(frozen=True)
class Submitted:
    response: dict[str, Any]
    replayed: bool


class TurnSubmitter:
    def __init__(
        self, store: DurableStore, *, attempts: int, engine: EngineThread | None = None, workers: int = 1
    ) -> None:
        self.store = store
        self.attempts = attempts
        self.locks = KeyedLocks()
        self.engine = engine if engine is not None else ENGINE
        # At most ``workers`` turns answer and propose at once. They run on the request's own thread: handing
        # each turn to a second pool cost two thread switches per turn and bought no parallelism (the GIL).
        # These threads never touch Z3: decisions go to the engine thread.
        self.slots = threading.BoundedSemaphore(workers)

    def _run_turn(self, runtime: Any, conversation_id: str, message: str, notes: tuple[str, ...]) -> None:
        with self.slots, deciding_on(lambda work: self.engine.run(work)):
            # the pending entry travels in this thread's context
            runtime.handle(conversation_id, message, notes=notes)

    def _replay(self, conversation_id: str, key: str | None, fp: str) -> Submitted | None:
        if key is None:
            return None
        entry = self.store.idempotent(conversation_id, key)
        if entry is None:
            return None
        if entry.fingerprint != fp:
            raise ConflictError(
                "this Idempotency-Key was already used with a different message",
                code="idempotency.key_reused",
            )
        log.info("service.turn.replayed", conversation_id=conversation_id, turn=entry.turn)
        return Submitted(entry.response, replayed=True)

    def submit(self, runtime: Any, conversation_id: str, message: str, key: str | None,
               *, notes: tuple[str, ...] = ()) -> Submitted:
        """Run one visitor turn through ``runtime`` (a ``TurnRuntime`` whose store is a ``CommitHook``);
        ``notes`` go into the turn's audit record."""
        fp = fingerprint(message)
        with self.locks.hold(conversation_id):
            for attempt in range(1, self.attempts + 1):
                # Checked on every attempt: the conflicting commit may have been this very key.
                replay = self._replay(conversation_id, key, fp)
                if replay is not None:
                    return replay
                pending = _Pending(key=key, fingerprint=fp)
                token = _pending.set(pending)
                try:
                    # The pending entry travels with the context copy; the engine thread fills it in.
                    self._run_turn(runtime, conversation_id, message, notes)
                except StoreError as exc:
                    if exc.code not in RETRYABLE:
                        raise
                    log.info("service.turn.retry", conversation_id=conversation_id, attempt=attempt, code=exc.code)
                    continue
                finally:
                    _pending.reset(token)
                if pending.response is None:  # the runtime did not commit through the hook: a wiring bug
                    raise StoreError("turn finished without a commit", code="store.failed")
                return Submitted(pending.response, replayed=False)
        raise ConflictError(
            f"conversation stayed busy for {self.attempts} attempts; retry with the same Idempotency-Key",
            code="conversation.busy",
        )
