"""The service side of completion webhooks: queue the event when a closing turn commits, deliver in the background.

Queuing happens after the turn's commit and never fails the turn (the visitor's reply does not wait on a
receiver). A completion lost to a crash between commit and queue is recovered by ``sweep``, which re-queues
the closing turns of recently active conversations, whatever closed them (every objective answered, or the
visitor asking to stop with objectives still open); delivery ids are stable, so nothing is sent twice. An erased
conversation is never queued or sent, and the background pass also purges delivered payloads past their
retention."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any

import structlog

from engine.kernel.arc import closing_reason
from engine.kernel.conversation import ConversationState
from engine.kernel.revision import revision_notes
from engine.kernel.values import declined_options
from engine.leads.export import Lead, latest_values, value_revisions
from engine.leads.webhook import WebhookDispatcher, completion_event, revision_event
from engine.storage.base import DurableStore

log = structlog.get_logger("grace.leads")
def event_of(state: ConversationState, record: dict[str, Any], reason: str | None) -> dict[str, Any]:
    """The completion event of a closing turn, or (``reason`` None) the revision event of a later correction."""
    values = latest_values(state)
    stamps = record.get("timestamps") or {}
    occurred = stamps.get("completed_at") or datetime.now(UTC).isoformat()
    lead = Lead(state.conversation_id, state.goal_ref, state.language, "", str(occurred), state.state_string(),
                all(state.bits), state.stopped, values, value_revisions(state), declined_options(state))
    turn, when = int(record.get("turn", state.turn)), datetime.fromisoformat(str(occurred))
    if reason is None:
        return revision_event(lead, turn, revision_notes(record), when)
    return completion_event(lead, turn, reason, when)


def _event_reason(state: ConversationState, record: dict[str, Any]) -> tuple[bool, str | None]:
    """Whether the committed turn delivers an event: its closing, or a revision of an already closed lead."""
    reason = closing_reason(record)
    if reason is not None:
        return True, reason
    closed = all(state.bits) or state.stopped
    return closed and bool(revision_notes(record)), None


class LeadNotifier:
    def __init__(self, dispatcher: WebhookDispatcher) -> None:
        self.dispatcher = dispatcher
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def on_commit(self, state: ConversationState, record: dict[str, Any]) -> None:
        deliver, reason = _event_reason(state, record)
        if not deliver:
            return
        try:
            if self.dispatcher.enqueue(event_of(state, record, reason), datetime.now(UTC)):
                log.info("leads.webhook.queued", conversation_id=state.conversation_id, goal=state.goal_ref)
        except Exception as exc:  # the visitor's turn is committed; delivery problems are logged, never raised
            log.error("leads.webhook.queue_failed", conversation_id=state.conversation_id, error=type(exc).__name__)

    def watch(self, store: DurableStore) -> None:
        """Ask ``store``'s erasure log before each send (erasures made by other processes included)."""
        self.dispatcher.is_erased = lambda conversation_id: store.erasure(conversation_id) is not None

    def erased(self, conversation_id: str) -> None:
        """The conversation was erased here: its deliveries become tombstones now."""
        try:
            dropped = self.dispatcher.forget_conversation(conversation_id)
        except Exception as exc:  # the erasure itself is done; the pass's erasure check still holds the lead
            log.error("leads.webhook.erase_failed", conversation_id=conversation_id, error=type(exc).__name__)
            return
        log.info("leads.webhook.erased", conversation_id=conversation_id, deliveries=dropped)

    def sweep(self, store: DurableStore, *, limit: int = 1000) -> int:
        """Queue the closing turns of the ``limit`` most recently listed conversations that have one, whatever
        the closing reason; erased conversations are skipped."""
        queued = 0
        for summary in store.summaries(limit=limit):
            if store.erasure(summary.conversation_id) is not None:
                continue
            records = store.records(summary.conversation_id)
            if not any(closing_reason(record) is not None for record in records):
                continue
            state = store.load(summary.conversation_id)
            closed = False
            for record in records:
                reason = closing_reason(record)
                closed = closed or reason is not None
                if reason is not None or (closed and revision_notes(record)):  # revisions after the closing too
                    queued += self.dispatcher.enqueue(event_of(state, record, reason), datetime.now(UTC))
        return queued

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="grace-webhooks", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.dispatcher.settings.poll_seconds):
            try:
                self.dispatcher.run_due(datetime.now(UTC))
                self.dispatcher.purge_delivered()
            except Exception as exc:  # keep delivering after a bad pass
                log.error("leads.webhook.pass_failed", error=type(exc).__name__)

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.dispatcher.outbox.close()
