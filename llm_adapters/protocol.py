"""The one small protocol every LLM adapter implements: the paper's five LLM roles.

=================  ==========================================  ===========================================
role (purpose)     paper                                       returns
=================  ==========================================  ===========================================
``propose``        eq. 9: visitor evidence -> typed commands   ``engine.kernel.ports.Proposal`` (Proposer port)
``rate_utility``   eq. 13: R, B, D, P in {0, 0.5, 1} + why      ``RoleResult[UtilityRatings]``
``modulate``       eq. 5: m = M(q, u, H, r), same meaning      ``RoleResult[ModulatedQuestion]``
``synthesize``     eq. 6: r = G(u, D), cited passages only      ``RoleResult[GroundedAnswer]``
``compile``        Algorithm 1: intent -> candidate objectives  ``RoleResult[CompiledGoals]``
=================  ==========================================  ===========================================

Every call yields a ``CallRecord``: the metadata of the call plus the raw validated output. Its field names
follow ``audit.record.LLMCall``; ``prompt_version`` and ``output`` are the two additions replay needs.
A failed call raises an ``llm_adapters.errors.LLMError`` (the runtime fails the turn closed).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from engine.kernel.conversation import Message
from engine.kernel.goal_models import PublishedGoalSpec
from engine.kernel.ports import GroundedAnswer, Proposal, ProposerInput
from engine.kernel.turn_context import TurnContext
from llm_adapters.schemas import CompiledGoals, ModulatedQuestion, UtilityRatings

T = TypeVar("T")

ROLES = ("propose", "rate_utility", "modulate", "synthesize", "compile")


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)


class UtilityRequest(_Request):
    """Rate the visitor utility of asking each candidate objective now (s_{t+1,i} = 0)."""

    spec: PublishedGoalSpec
    language: str
    turn: int | None = Field(default=None, ge=1)  # None: the turn of the latest proposal (replay bookkeeping)
    # The turn's deadline (engine/kernel/turn_context): the call stops in time; never shown to the model.
    context: TurnContext | None = Field(default=None, exclude=True, repr=False)
    candidates: list[str] = Field(min_length=1)
    message: Message
    history: list[Message] = Field(default_factory=list)
    answer: GroundedAnswer | None = None  # company evidence: may inform burden/relevance, never completion
    ask_counts: dict[str, int] = Field(default_factory=dict)
    refused: list[str] = Field(default_factory=list)
    stopped: bool = False


class ModulationRequest(_Request):
    """Rephrase the canonical question of ``objective_id`` in context without changing what it asks."""

    spec: PublishedGoalSpec
    objective_id: str
    language: str
    turn: int | None = Field(default=None, ge=1)
    # The turn's deadline (engine/kernel/turn_context): the call stops in time; never shown to the model.
    context: TurnContext | None = Field(default=None, exclude=True, repr=False)
    message: Message | None = None
    history: list[Message] = Field(default_factory=list)
    answer: GroundedAnswer = Field(default_factory=GroundedAnswer)


class Passage(_Request):
    passage_id: str = Field(min_length=1)
    source: str = Field(min_length=1)
    text: str


class SynthesisRequest(_Request):
    """Turn-local grounded synthesis: the current visitor message and the retrieved passages only (eq. 7)."""

    message: str
    language: str
    passages: list[Passage] = Field(default_factory=list)
    turn: int | None = Field(default=None, ge=1)  # bookkeeping for replay; never shown to the model
    # The turn's deadline (engine/kernel/turn_context): the call stops in time; never shown to the model.
    context: TurnContext | None = Field(default=None, exclude=True, repr=False)


class KindOption(_Request):
    key: str
    criterion: str
    name: str
    description: str


class CompileRequest(_Request):
    """Algorithm 1, step 2: intent I, governance Γ (prohibited categories), output schema and examples."""

    intent: str
    language: str
    languages: list[str] = Field(min_length=1)
    kinds: list[KindOption] = Field(min_length=1)
    prohibited: list[str] = Field(default_factory=list)  # "category: label" lines of rules/governance.json
    max_objectives: int = Field(ge=1)


class CallRecord(BaseModel):
    """One model call as the audit record keeps it (``llm_calls[]``); ``output`` lets replay re-decide."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    purpose: str  # role name
    adapter: str
    model: str
    prompt_id: str
    prompt_version: str
    prompt_hash: str  # sha256 of the rendered messages
    response_hash: str | None = None  # sha256 of the canonical JSON of ``output``
    latency_ms: float = Field(ge=0)
    input_tokens: int | None = Field(default=None, ge=0)
    output_tokens: int | None = Field(default=None, ge=0)
    attempt: int = Field(default=1, ge=1)  # requests made, re-asks and transport retries included
    status: str = "ok"  # "ok", "replayed", or the dotted error code
    error_code: str | None = None
    params: dict[str, str | int | float | bool | None] = Field(default_factory=dict)
    output: dict[str, Any] | None = None  # the raw validated output (response-model JSON)

    def to_record(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


@dataclass(frozen=True)
class RoleResult(Generic[T]):
    output: T
    call: CallRecord


class LLMRoles(Protocol):
    """What the runtime and the compiler may ask of an LLM adapter. Also an ``engine.kernel.ports.Proposer``."""

    name: str
    version: str

    def propose(self, request: ProposerInput) -> Proposal: ...

    def rate_utility(self, request: UtilityRequest) -> RoleResult[UtilityRatings]: ...

    def modulate(self, request: ModulationRequest) -> RoleResult[ModulatedQuestion]: ...

    def synthesize(self, request: SynthesisRequest) -> RoleResult[GroundedAnswer]: ...

    def compile_goals(self, request: CompileRequest) -> RoleResult[CompiledGoals]: ...
