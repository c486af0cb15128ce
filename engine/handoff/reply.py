"""What the visitor is told when they ask for a person, and what the company's inbox receives."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

from engine.handoff.config import HandoffConfig
from engine.handoff.detect import HandoffRequest
from engine.kernel.conversation import ConversationState

HANDOFF_NOTE = "handoff.requested"  # the turn's audit-record note: "handoff.requested:<language of the phrase>"
EVENT = "conversation.handoff"


def note_of(request: HandoffRequest) -> str:
    return f"{HANDOFF_NOTE}:{request.language}"


def visitor_view(config: HandoffConfig | None, wording: dict[str, Any], company: str | None,
                 now: datetime) -> dict[str, Any]:
    """The handoff box of the widget: one paragraph of text plus the contact the company configured."""
    open_now = config.hours.open_at(now) if config is not None and config.hours is not None else None
    hours = config.hours.describe() if config is not None and config.hours is not None else None
    parts = [str(wording["reply"]).replace("{company}", company or str(wording["our_team"]))]
    if config is not None and config.email:
        parts.append(str(wording["email"]).replace("{email}", config.email))
    if config is not None and config.phone:
        parts.append(str(wording["phone"]).replace("{phone}", config.phone))
    if open_now is True:
        parts.append(str(wording["open"]))
    elif open_now is False:
        parts.append(str(wording["closed"]).replace("{hours}", hours or ""))
    if config is not None and config.webhook:
        parts.append(str(wording["passed_on"]))
    return {"text": " ".join(parts), "email": config.email if config else None,
            "phone": config.phone if config else None, "open_now": open_now, "hours": hours}


def inbox_event(state: ConversationState, turn: int, config: HandoffConfig,
                values: dict[str, str], now: datetime | None = None) -> dict[str, Any]:
    """The company's copy: the recorded values and where to read the whole conversation (the console)."""
    digest = hashlib.sha256(f"{state.conversation_id}:{turn}:handoff".encode()).hexdigest()[:32]
    return {
        "event": EVENT,
        "delivery_id": digest,
        "occurred_at": (now or datetime.now(UTC)).astimezone(UTC).isoformat(),
        "conversation_id": state.conversation_id,
        "goal_ref": state.goal_ref,
        "language": state.language,
        "turn": turn,
        "state": state.state_string(),
        "values": dict(values),
        "transcript_url": config.transcript_link(state.conversation_id),
    }
