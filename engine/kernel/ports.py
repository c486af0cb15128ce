"""Ports the turn runtime depends on. Adapters and stores implement these small protocols."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, model_validator

from audit.vault import FieldCipher
from engine.kernel.commands import Command
from engine.kernel.conversation import ConversationState, Message
from engine.kernel.goal_models import PublishedGoalSpec
from engine.kernel.turn_context import TurnContext


class Citation(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    source: str  # document id / path / record reference
    passage_id: str
    quote: str
    label: str = ""  # what a visitor recognises: "<page or document title> › <section heading>", never an id

    def shown(self) -> str:
        """What a person is shown: the label; for an answerer that sets none, the document's name (no folders,
        extension, anchor or record index), never the passage id."""
        if self.label:
            return self.label
        name = self.source.split("#", 1)[0].rsplit("/", 1)[-1].split(".", 1)[0]
        return name.replace("_", " ").replace("-", " ").strip() or self.source


CarriedKind = Literal["places", "proximity", "hours", "concepts", "service", "names"]
# The graded reply (issue 29): the documents answer; a related section is shown verbatim with an honest frame; or
# nothing relevant was found.
AnswerKind = Literal["answer", "related", "none"]


class GroundedAnswer(BaseModel):
    """Company evidence (paper eq. 6). Never visitor evidence: it cannot reach the proposer as visitor text."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str = ""
    citations: list[Citation] = Field(default_factory=list)
    supported: bool = False  # False: nothing to answer, or no usable support (explicit unavailable message)
    is_question: bool = False  # did the visitor message contain a company question at all
    # names of constraint kinds carried over from earlier turns (a closed set: never visitor text)
    carried: list[CarriedKind] = Field(default_factory=list)
    kind: AnswerKind = "none"  # defaults to "answer" for a supported answer of an answerer that sets no kind
    frame: str = ""  # related: the honest frame shown before the verbatim sentences (rule data, not company text)
    links: list[Citation] = Field(default_factory=list)  # related: other sections that may help (labels only)
    # a multi-part question: the sentence (rule text) naming the parts the documents do not cover, also in ``text``
    unanswered: str = ""

    @model_validator(mode="before")
    @classmethod
    def _kind_from_support(cls, data: Any) -> Any:
        if isinstance(data, dict) and "kind" not in data and data.get("supported"):
            return {**data, "kind": "answer"}
        return data

    @model_validator(mode="after")
    def _kind_fits_support(self) -> GroundedAnswer:
        if self.supported != (self.kind == "answer"):
            raise ValueError(f"answer kind {self.kind!r} does not fit supported={self.supported}")
        return self


class ProposerInput(BaseModel):
    """What a proposer sees: the pinned spec, the current state, history and the current visitor message.

    The grounded answer is deliberately absent: company evidence must not feed evidence proposals.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    spec: PublishedGoalSpec
    bits: list[int]
    language: str
    turn: int
    message: Message  # the current visitor message (normalised text)
    history: list[Message]  # earlier messages, both roles, in order
    last_asked: str | None = None  # objective targeted by the previous assistant question
    refused: list[str] = Field(default_factory=list)
    stopped: bool = False
    reference_time: datetime | None = None  # the turn's received-at: anchors relative dates (spec/adr/0003)
    # objective -> its latest accepted value: lets a proposer tell a revision ("not 2, 3") from a restatement
    recorded: dict[str, str] = Field(default_factory=dict)
    # The turn's deadline and ledger (engine/kernel/turn_context); not part of what the proposer reads as input.
    context: TurnContext = Field(default_factory=TurnContext, exclude=True, repr=False)


class Proposal(BaseModel):
    """Raw proposer output: typed commands, plus raw items that failed to parse (kept for the audit)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    commands: list[Command] = Field(default_factory=list)
    malformed: list[dict[str, Any]] = Field(default_factory=list)
    adapter: str = "unknown"
    adapter_version: str = "0"
    calls: list[dict[str, Any]] = Field(default_factory=list)  # LLM call metadata (prompt id, model, latency)
    notes: list[str] = Field(default_factory=list)  # e.g. "proposer.fallback_offline: llm.timeout"


class Proposer(Protocol):
    name: str
    version: str

    def propose(self, request: ProposerInput) -> Proposal: ...


class Answerer(Protocol):
    """Retrieval + grounded synthesis over the company corpus, turn-local (eq. 7): reads ``message``; an answerer
    whose questions can follow up on earlier ones (a directory's "any open Saturday?") may also read ``history``,
    the visitor's earlier messages in order, which every answerer accepts and most ignore."""

    def answer(self, message: str, language: str, history: Sequence[str] = (),
               context: TurnContext | None = None) -> GroundedAnswer:
        """``context``: the turn's deadline and ledger (model calls made while answering join its record)."""
        ...


class TurnRater(Protocol):
    """An external rubric source for U_V (eq. 13), e.g. an LLM. ``calls`` collects call metadata for the audit."""

    def for_turn(
        self, spec: PublishedGoalSpec, state: ConversationState, answer: GroundedAnswer, calls: list[dict[str, Any]],
        context: TurnContext | None = None,
    ) -> Callable[[list[str]], dict[str, Any]]: ...


@dataclass(frozen=True)
class IdempotencyKey:
    """A client-supplied idempotency key and the fingerprint of the request it came with."""

    key: str
    fingerprint: str  # hash of the request body: same key + other body is a client error


@dataclass(frozen=True)
class IdempotencyEntry:
    """A client-supplied idempotency key bound to the turn it produced and the response it returned."""

    conversation_id: str
    key: str
    fingerprint: str  # hash of the request body: same key + other body is a client error
    turn: int
    response: dict[str, Any]


class TurnSession(Protocol):
    """One turn's hold on its conversation, opened by ``ConversationStore.open_turn``: the state and the field
    cipher the turn read (None: a plaintext conversation), and the turn's one commit. The store owns what the
    load and the commit share (the unwrapped key, the stored form); closing the session forgets it."""

    @property
    def state(self) -> ConversationState: ...

    @property
    def cipher(self) -> FieldCipher | None: ...

    def commit(self, state: ConversationState, record: dict[str, Any], expected_turn: int, *,
               idempotency: IdempotencyEntry | None = None, stored: dict[str, Any] | None = None) -> None:
        """``ConversationStore.commit_turn`` for this turn; ``stored``: the new state's stored form as the
        checkpoint hashed it (``engine.kernel.stored_state.stored_form(state, cipher)``), written as it is."""
        ...


class ConversationStore(Protocol):
    """The store port the kernel uses; durable stores extend it (``engine.storage.base.DurableStore``)."""

    def create(self, state: ConversationState) -> None: ...

    def load(self, conversation_id: str) -> ConversationState: ...

    def open_turn(self, conversation_id: str) -> AbstractContextManager[TurnSession]:
        """Read the conversation for a turn (``store.not_found``; ``store.erased`` once erased)."""
        ...

    def commit_turn(self, state: ConversationState, record: dict[str, Any], expected_turn: int, *,
                    idempotency: IdempotencyEntry | None = None) -> None:
        """Persist the new state, the sealed audit record and the idempotency entry (if any) atomically.

        Raises ``StoreError`` (code ``store.conflict``) if the stored turn is no longer ``expected_turn`` or
        the idempotency key is already taken.
        """
        ...

    def records(self, conversation_id: str) -> list[dict[str, Any]]:
        """The conversation's sealed audit records in chain order."""
        ...

    def list_conversations(self) -> list[str]: ...


__all__ = [
    "AnswerKind",
    "Answerer",
    "Citation",
    "ConversationState",
    "ConversationStore",
    "GroundedAnswer",
    "IdempotencyEntry",
    "IdempotencyKey",
    "Proposal",
    "Proposer",
    "ProposerInput",
    "TurnSession",
]
