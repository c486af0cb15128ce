"""What the durable stores offer beyond ``engine.kernel.ports.ConversationStore``.

Both backends implement :class:`DurableStore`: the port itself, plus idempotency entries written in the
same transaction as a turn (so a retried request can never create a second transition), and cheap
conversation summaries for the operator console.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from audit.vault import FieldCipher
from engine.kernel.conversation import ConversationState
from engine.kernel.ports import ConversationStore
from engine.kernel.ports import IdempotencyEntry as IdempotencyEntry  # defined with the port; re-exported

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
class ConversationAccess:
    """What the service checks before a turn (the visitor's token hash) and what it routes on: read from the
    stored state without decrypting or parsing the rest of it."""

    conversation_id: str
    goal_ref: str
    language: str
    turn: int
    visitor_key: str | None

    @classmethod
    def of(cls, state: ConversationState) -> ConversationAccess:
        return cls(state.conversation_id, state.goal_ref, state.language, state.turn, state.visitor_key)


@dataclass(frozen=True)
class Erasure:
    """An erased conversation: who erased it and when (from the append-only operator action log)."""

    conversation_id: str
    actor: str
    at: str  # ISO-8601 UTC


@runtime_checkable
class DurableStore(ConversationStore, Protocol):
    """The kernel's store port (``create``, ``load``, ``open_turn``, ``commit_turn``, ``records``,
    ``list_conversations``) plus what the service, the operator console and the tools read."""

    backend: str

    def access(self, conversation_id: str) -> ConversationAccess:
        """The fields of ``load(conversation_id)`` that ``ConversationAccess`` names, without decrypting."""
        ...

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

