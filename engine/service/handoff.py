"""The service side of the human handoff: detect the request before the turn (its note goes into the turn's audit
record), tell the visitor how the company's people take over, and send the company's inbox the recorded values
and the transcript link through the goal's webhook. Delivery problems never fail the visitor's turn."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import structlog

from engine.handoff.config import HandoffConfig
from engine.handoff.detect import HandoffDetector, HandoffRequest
from engine.handoff.reply import inbox_event, note_of, visitor_view
from engine.kernel.goal_models import company_name
from engine.leads.export import latest_values
from engine.leads.notifier import LeadNotifier
from engine.service.catalog import ServedGoal
from engine.storage.base import DurableStore

log = structlog.get_logger("grace.handoff")


class HandoffDesk:
    def __init__(self, configs: dict[str, HandoffConfig], notifier: LeadNotifier | None,
                 store: DurableStore) -> None:
        self.configs = configs
        self.notifier = notifier
        self.store = store
        self._detectors: dict[str, HandoffDetector | None] = {}

    def _detector(self, goal: ServedGoal) -> HandoffDetector | None:
        bundle = goal.runtime.bundle
        if bundle.content_hash not in self._detectors:
            self._detectors[bundle.content_hash] = HandoffDetector.from_bundle(bundle)
        return self._detectors[bundle.content_hash]

    def request(self, goal: ServedGoal, message: str, language: str) -> HandoffRequest | None:
        detector = self._detector(goal)
        return detector.detect(message, language) if detector is not None else None

    @staticmethod
    def notes(request: HandoffRequest | None) -> tuple[str, ...]:
        return (note_of(request),) if request is not None else ()

    def view(self, goal: ServedGoal, request: HandoffRequest, language: str,
             now: datetime | None = None) -> dict[str, Any]:
        detector = self._detector(goal)
        assert detector is not None  # a request exists only where the bundle has handoff data
        # In the language the visitor asked in (they may have switched), else the conversation's.
        wording = detector.wording.get(request.language) or detector.wording.get(language) or {}
        return visitor_view(self.configs.get(goal.published.spec.id), wording, company_name(goal.published.spec),
                            now or datetime.now(UTC))

    def deliver(self, goal: ServedGoal, conversation_id: str, turn: int) -> bool:
        """Queue the conversation.handoff event for the goal's webhook (when configured); logged either way."""
        config = self.configs.get(goal.published.spec.id)
        log.warning("handoff.requested", conversation_id=conversation_id, goal=goal.published.ref, turn=turn,
                    webhook=bool(config and config.webhook and self.notifier))
        if config is None or not config.webhook or self.notifier is None:
            return False
        try:
            state = self.store.load(conversation_id)
            event = inbox_event(state, turn, config, latest_values(state))
            return self.notifier.dispatcher.enqueue(event, datetime.now(UTC))
        except Exception as exc:  # the visitor's turn is committed; the company's copy is retried by nobody here
            log.error("handoff.queue_failed", conversation_id=conversation_id, error=type(exc).__name__)
            return False
