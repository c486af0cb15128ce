"""What the durable stores offer beyond ``engine.ports.ConversationStore``.

Both backends implement :class:`DurableStore`: the port itself, plus idempotency entries written in the
same transaction as a turn (so a retried request can never create a second transition), and cheap
conversation summaries for the operator console.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from engine.conversation import ConversationState
from engine.storage import errors


@dataclass(frozen=True)
class IdempotencyEntry:
    """A client-supplied idempotency key bound to the turn it produced and the response it returned."""

    conversation_id: str
    key: str
    fingerprint: str  # hash of the request body: same key + other body is a client error
    turn: int
    response: dict[str, Any]


@dataclass(frozen=True)
class ConversationSummary:
    conversation_id: str
    goal_ref: str
    language: str
    turn: int
    state: str  # the binary state string, e.g. "1010"
    created_at: str  # ISO-8601 UTC
    updated_at: str


@runtime_checkable
class DurableStore(Protocol):
    backend: str

    def create(self, state: ConversationState) -> None: ...

    def load(self, conversation_id: str) -> ConversationState: ...

    def commit_turn(
        self,
        state: ConversationState,
        record: dict[str, Any],
        expected_turn: int,
        *,
        idempotency: IdempotencyEntry | None = None,
    ) -> None: ...

    def records(self, conversation_id: str) -> list[dict[str, Any]]: ...

    def list_conversations(self) -> list[str]: ...

    def summaries(self, *, limit: int = 100, offset: int = 0) -> list[ConversationSummary]: ...

    def idempotent(self, conversation_id: str, key: str) -> IdempotencyEntry | None: ...

    def close(self) -> None: ...


def check_pins(old: ConversationState, new: ConversationState) -> None:
    """INVARIANT: a conversation stays pinned to one goal-spec version and one rule-bundle version."""
    for field in ("conversation_id", "goal_ref", "goal_hash", "bundle_hash"):
        if getattr(old, field) != getattr(new, field):
            raise errors.StoreError(
                f"commit would change the pinned {field} of conversation {old.conversation_id!r}",
                code=errors.PIN_MISMATCH,
            )


def check_commit_args(state: ConversationState, expected_turn: int, idempotency: IdempotencyEntry | None) -> None:
    if state.turn <= expected_turn:
        raise errors.StoreError(
            f"new state turn {state.turn} does not advance past {expected_turn}",
            code=errors.TURN_NOT_ADVANCED,
        )
    if idempotency is not None and idempotency.conversation_id != state.conversation_id:
        raise errors.StoreError("idempotency entry belongs to another conversation", code=errors.PIN_MISMATCH)
