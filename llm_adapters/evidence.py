"""From a model's evidence proposal to typed commands with witness spans located in the stored visitor text.

The model only copies words; the span is found here by exact search in the stored (normalised) visitor
message, so the witness is always the visitor's own text (paper eq. 9). Items that cannot be located or do
not parse become ``malformed`` entries with a reason, which the decision layer records and discards.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from engine.kernel.commands import COMMAND_ADAPTER, Command
from engine.kernel.conversation import Message, Role
from engine.kernel.ports import ProposerInput
from engine.text import normalize
from llm_adapters.schemas import EvidenceProposal, ProposedCommand


def visitor_messages(request: ProposerInput) -> dict[int, Message]:
    """Visitor messages by turn: the history's, plus the current one (which wins for its turn)."""
    messages = {m.turn: m for m in request.history if m.role is Role.VISITOR}
    messages[request.message.turn] = request.message
    return messages


def locate(quote: str, text: str) -> tuple[int, int] | None:
    """[start, end) of ``quote`` in ``text``: exact first, then case-insensitive if lengths are preserved."""
    needle = normalize(quote).strip()
    if not needle:
        return None
    start = text.find(needle)
    if start < 0 and len(text.lower()) == len(text) and len(needle.lower()) == len(needle):
        start = text.lower().find(needle.lower())
    return (start, start + len(needle)) if start >= 0 else None


def to_command(item: ProposedCommand, messages: dict[int, Message], current_turn: int) -> Command | dict[str, Any]:
    """A typed command, or a malformed entry ``{"item": ..., "reason": ...}``."""
    raw = item.model_dump(mode="json", exclude_none=True)
    turn = item.turn or current_turn
    message = messages.get(turn)
    if message is None:
        return {"item": raw, "reason": "proposal.unknown_turn"}
    found = locate(item.quote, message.text)
    if found is None:
        return {"item": raw, "reason": "proposal.quote_not_found"}
    start, end = found
    payload: dict[str, Any] = {
        "type": item.type,
        "span": {"turn": turn, "start": start, "end": end, "quote": message.text[start:end]},
    }
    if item.type != "stop" and item.objective is not None:
        payload["objective"] = item.objective
    if item.type in ("complete", "correct"):
        payload["value"] = (item.value or "").strip()
    try:
        return COMMAND_ADAPTER.validate_python(payload)
    except ValidationError as exc:
        return {"item": raw, "reason": "proposal.invalid_command", "detail": exc.errors()[0]["type"]}


def commands_from_proposal(
    proposal: EvidenceProposal, request: ProposerInput
) -> tuple[list[Command], list[dict[str, Any]]]:
    messages = visitor_messages(request)
    commands: list[Command] = []
    malformed: list[dict[str, Any]] = []
    for item in proposal.commands:
        result = to_command(item, messages, request.message.turn)
        if isinstance(result, dict):
            malformed.append(result)
        else:
            commands.append(result)
    return commands, malformed
