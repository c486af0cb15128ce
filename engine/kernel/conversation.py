"""Conversation history and state (paper eqs. 2-3): messages by role, the binary state and its flags."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator


class Role(StrEnum):
    VISITOR = "visitor"
    ASSISTANT = "assistant"  # RAG answer + GRACE question: company/bot text, never visitor evidence


class Message(BaseModel):
    """One stored message. Visitor text is stored already normalised, so spans index into ``text``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: Role
    turn: int = Field(ge=1)
    text: str
    asked_objective: str | None = None  # for assistant messages: the objective the question targeted


class ValueRecord(BaseModel):
    """One accepted value for an objective: the first completion or a later correction."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    turn: int
    kind: str  # "complete" | "correct"
    value: str
    span_start: int
    span_end: int


class ConversationState(BaseModel):
    """Everything decisions depend on, pinned to one goal-spec version and one rule-bundle version."""

    model_config = ConfigDict(extra="forbid")

    conversation_id: str
    goal_ref: str
    goal_hash: str
    bundle_hash: str
    language: str
    turn: int = 0  # number of visitor turns processed
    bits: list[int]
    refused: list[str] = Field(default_factory=list)
    uncertain: dict[str, int] = Field(default_factory=dict)  # objective -> turn of the latest Uncertain
    stopped: bool = False
    ask_counts: dict[str, int] = Field(default_factory=dict)
    last_asked: str | None = None
    values: dict[str, list[ValueRecord]] = Field(default_factory=dict)
    messages: list[Message] = Field(default_factory=list)
    audit_head: dict[str, Any] | None = None  # keyed checkpoint of the audit chain head (seq, head_hash, mac)
    # sha256 of the visitor's secret capability (HTTP service); None: no visitor may read or post over HTTP
    visitor_key: str | None = None

    @field_validator("bits")
    @classmethod
    def _binary(cls, bits: list[int]) -> list[int]:
        # INVARIANT (I-2): every coordinate of the state vector is 0 or 1
        if any(bit not in (0, 1) for bit in bits):
            raise ValueError("state bits must each be 0 or 1")
        return bits

    def state_string(self) -> str:
        return "".join(str(b) for b in self.bits)

    def ask_streak(self) -> int:
        """How many of the latest assistant messages in a row asked ``last_asked`` (0 when nothing was asked)."""
        if self.last_asked is None:
            return 0
        streak = 0
        for message in reversed(self.messages):
            if message.role is not Role.ASSISTANT:
                continue
            if message.asked_objective != self.last_asked:
                break
            streak += 1
        return streak

    def visitor_message(self, turn: int) -> Message | None:
        for message in self.messages:
            if message.role is Role.VISITOR and message.turn == turn:
                return message
        return None
