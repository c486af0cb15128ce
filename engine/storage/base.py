"""What the durable stores offer beyond ``engine.ports.ConversationStore``.

Both backends implement :class:`DurableStore`: the port itself, plus idempotency entries written in the
same transaction as a turn (so a retried request can never create a second transition), and cheap
conversation summaries for the operator console.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from audit.vault import FieldCipher
from engine.conversation import ConversationState
from engine.ports import IdempotencyEntry as IdempotencyEntry  # defined with the port; re-exported
from engine.storage import errors

ERASE_ACTION = "conversation.erase"  # operator action: the conversation's data key was destroyed


@dataclass(frozen=True)
class ConversationSummary:
    conversation_id: str
    goal_ref: str
    language: str
    turn: int
    state: str  # the binary state string, e.g. "1010"
    created_at: str  # ISO-8601 UTC
    updated_at: str
    # From the audit records: turns that failed closed (record.fail_closed set: a crash, a missed deadline, a
    # Z3 veto...) and turns with at least one rejected candidate command.
    fail_closed_turns: int = 0
    rejected_turns: int = 0


@dataclass(frozen=True)
class Erasure:
    """An erased conversation: who erased it and when (from the append-only operator action log)."""

    conversation_id: str
    actor: str
    at: str  # ISO-8601 UTC


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

    def cipher(self, conversation_id: str) -> FieldCipher | None: ...

    def load_with_cipher(self, conversation_id: str) -> tuple[ConversationState, FieldCipher | None]: ...

    def stored_state(self, conversation_id: str) -> dict[str, Any]: ...

    def checkpoints(self, conversation_id: str) -> list[dict[str, Any]]: ...

    def erase(self, conversation_id: str, *, actor: str) -> Erasure: ...

    def erasure(self, conversation_id: str) -> Erasure | None: ...

    def ping(self) -> None: ...

    def close(self) -> None: ...


def check_pins(old: Mapping[str, Any], new: ConversationState) -> None:
    """INVARIANT: a conversation stays pinned to one goal-spec version and one rule-bundle version."""
    for field in ("conversation_id", "goal_ref", "goal_hash", "bundle_hash"):
        if old.get(field) != getattr(new, field):
            raise errors.StoreError(
                f"commit would change the pinned {field} of conversation {new.conversation_id!r}",
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


def check_counter(
    conversation_id: str, checkpoint: Mapping[str, Any], newest: int, record: Mapping[str, Any], seq: int
) -> None:
    """INVARIANT: checkpoint counters go 1, 2, 3, ... per conversation (anything else is a rollback), and the
    new checkpoint anchors the record committed with it (``seq`` is the 1-based row number)."""
    counter = checkpoint.get("counter")
    if counter != newest + 1:
        raise errors.StoreError(
            f"checkpoint counter {counter!r} of conversation {conversation_id!r} does not follow the logged"
            f" counter {newest} (stored checkpoint rolled back?)",
            code=errors.CHECKPOINT_ROLLBACK,
        )
    if checkpoint.get("seq") != seq - 1 or checkpoint.get("head_hash") != record.get("hash"):
        raise errors.StoreError(
            f"checkpoint of conversation {conversation_id!r} does not anchor the record committed with it",
            code=errors.CHECKPOINT_ROLLBACK,
        )
