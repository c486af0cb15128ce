"""Facts about one candidate command, computed in plain Python for the acceptance ruleset."""

from __future__ import annotations

from typing import Any

from engine.kernel.commands import Command, Complete, Correct
from engine.kernel.conversation import ConversationState, Role
from engine.kernel.decision.provenance import CLEAN
from engine.text import normalize


def provenance(state: ConversationState, command: Command) -> dict[str, bool]:
    """Span checks (paper eq. 9): the witness must be the exact stored text of a visitor-authored message.

    INVARIANT (I-4): a span outside one stored visitor message, in a future turn, or whose quote differs from the
    stored text after normalisation is never a witness."""
    span = command.span
    future = span.turn > state.turn
    message = None if future else state.visitor_message(span.turn)
    inside = (
        message is not None
        and message.role is Role.VISITOR
        and 0 <= span.start < span.end <= len(message.text)
    )
    matches = inside and message is not None and message.text[span.start : span.end] == normalize(span.quote)
    return {"span_in_visitor_message": inside, "span_turn_future": future, "span_matches": matches}


def candidate_fact(
    state: ConversationState,
    command: Command,
    objective_ids: list[str],
    validator_ok: bool,
    duplicate: bool,
    contact: dict[str, bool] | None = None,
) -> dict[str, Any]:
    objective = getattr(command, "objective", None)
    known = objective is None or objective in objective_ids
    bit = state.bits[objective_ids.index(objective)] if objective is not None and known else 0
    return {
        "type": command.type,
        "objective_known": known,
        **provenance(state, command),
        "duplicate": duplicate,
        "bit_before": bit,
        "validator_ok": validator_ok if isinstance(command, Complete | Correct) else True,
        "refused": objective in state.refused if objective else False,
        "stopped": state.stopped,
        **(contact or CLEAN),  # D-10 contact, D-12 wish provenance (all false otherwise)
    }
