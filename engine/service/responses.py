"""The visitor-facing turn response, built from what a turn commits: the new state, its sealed record and
the grounded answer the runtime used.

It is built inside ``commit_turn`` and stored with the turn in the same transaction, so an idempotent
retry returns exactly the first response, even if the process died before replying.
"""

from __future__ import annotations

import re
from typing import Any

from engine.arc import closing_reason
from engine.conversation import ConversationState, Role
from engine.ports import GroundedAnswer

_ASK = re.compile(r"^ASK\((.+)\)$")


def assistant_text(state: ConversationState, turn: int) -> str:
    for message in reversed(state.messages):
        if message.role is Role.ASSISTANT and message.turn == turn:
            return message.text
    return ""


def action_of(record: dict[str, Any], question: str | None) -> str:
    """The chosen action as 'ASK(<objective>)' or 'NONE', whichever way the record spells it."""
    raw = record.get("action", record.get("chosen_action"))
    if question is None or not isinstance(raw, str) or not raw or raw.upper() == "NONE":
        return "NONE"
    return raw if _ASK.match(raw) else f"ASK({raw})"


def fail_code(record: dict[str, Any]) -> str | None:
    value = record.get("fail_closed")
    if isinstance(value, dict):
        code = value.get("code")
        return str(code) if code else None
    return str(value) if value else None


def turn_response(state: ConversationState, record: dict[str, Any], answer: GroundedAnswer | None) -> dict[str, Any]:
    question = record.get("question")
    question = question if isinstance(question, str) and question else None
    grounded = answer or GroundedAnswer()
    seq = record.get("seq")
    return {
        "conversation_id": state.conversation_id,
        "turn": state.turn,
        "state": state.state_string(),
        "bits": list(state.bits),
        "action": action_of(record, question),
        "question": question,
        "answer": {
            "text": grounded.text,
            "supported": grounded.supported,
            "citations": [
                {"label": c.shown(), "quote": c.quote, "source": c.source, "passage_id": c.passage_id}
                for c in grounded.citations
            ],
        },
        "response_text": assistant_text(state, state.turn),
        "fail_closed": fail_code(record),
        "stopped": state.stopped,
        "completed": closing_reason(record) is not None,
        "record_seq": seq if isinstance(seq, int) else None,
    }
