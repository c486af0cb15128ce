"""Idempotent, per-conversation-ordered turn submission on top of ``TurnRuntime``.

* Idempotency: the client's ``Idempotency-Key`` goes to ``TurnRuntime.handle``, which commits it with the
  visitor's view of the ``TurnOutcome`` in the same transaction as the state and the audit record. A retry
  finds the entry and gets the first response back; no second transition can exist, even after a crash
  between commit and reply. The same key with another message is a 409 ``idempotency.key_reused``.
* Ordering: turns of one conversation take an in-process lock; across processes the store's compare-and-set
  on the turn number refuses a stale commit (``store.conflict``) and the turn is run again on the fresh
  state, a bounded number of times.
* Answering and proposing run on the request threads, at most ``turn_workers`` (limits.json) at once, so one
  slow conversation does not hold up the others; every decision still runs on the process's engine thread
  (``engine_thread``): the decision layer is not thread-safe. A turn past its deadline (rules/runtime.json)
  fails closed inside the runtime.
"""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass
from typing import Any

import structlog

from engine.errors import StoreError
from engine.kernel.ports import IdempotencyKey
from engine.kernel.turn import TurnRuntime
from engine.kernel.turn_outcome import TurnOutcome
from engine.leads.notifier import LeadNotifier
from engine.service.engine_thread import ENGINE, EngineThread
from engine.service.errors import ConflictError, RequestError
from engine.service.locks import KeyedLocks
from engine.storage import read_ahead
from engine.storage.base import DurableStore
from engine.storage.errors import RETRYABLE

log = structlog.get_logger("engine.service.turns")

_KEY_CHARS = re.compile(r"^[A-Za-z0-9._:~-]+$")


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
        self, store: DurableStore, *, attempts: int, engine: EngineThread | None = None, workers: int = 1,
        notifier: LeadNotifier | None = None,
    ) -> None:
        self.store = store
        self.notifier = notifier  # completion webhooks: told after a closing turn commits
        self.attempts = attempts
        self.locks = KeyedLocks()
        self.engine = engine if engine is not None else ENGINE
        # At most ``workers`` turns answer and propose at once. They run on the request's own thread: handing
        # each turn to a second pool cost two thread switches per turn and bought no parallelism (the GIL).
        # These threads never touch Z3: decisions go to the engine thread.
        self.slots = threading.BoundedSemaphore(workers)

    def _run_turn(self, runtime: TurnRuntime, conversation_id: str, message: str, notes: tuple[str, ...],
                  key: IdempotencyKey | None) -> TurnOutcome:
        with self.slots:
            return runtime.handle(conversation_id, message, notes=notes, idempotency=key,
                                  decide_on=self.engine.run)

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

    def submit(self, runtime: TurnRuntime, conversation_id: str, message: str, key: str | None,
               *, notes: tuple[str, ...] = ()) -> Submitted:
        """Run one visitor turn through ``runtime`` (whose store is this submitter's store); ``notes`` go into
        the turn's audit record."""
        fp = fingerprint(message)
        with self.locks.hold(conversation_id) as waited:
            if waited:  # another turn of this conversation ran meanwhile: what was read before is stale
                read_ahead.drop_current()
            for attempt in range(1, self.attempts + 1):
                # Checked on every attempt: the conflicting commit may have been this very key.
                replay = self._replay(conversation_id, key, fp)
                if replay is not None:
                    return replay
                try:
                    outcome = self._run_turn(runtime, conversation_id, message, notes,
                                             IdempotencyKey(key, fp) if key is not None else None)
                except StoreError as exc:
                    if exc.code not in RETRYABLE:
                        raise
                    log.info("service.turn.retry", conversation_id=conversation_id, attempt=attempt, code=exc.code)
                    continue
                if self.notifier is not None:
                    self.notifier.on_commit(outcome.new_state, outcome.record)
                return Submitted(outcome.visitor_view(), replayed=False)
        raise ConflictError(
            f"conversation stayed busy for {self.attempts} attempts; retry with the same Idempotency-Key",
            code="conversation.busy",
        )
