"""The transition record: one per visitor turn, the unit of the audit trail (paper contribution 5).

``TransitionRecord`` is what the turn runtime builds; ``SealedTransitionRecord`` adds the chain fields
(``seq``, ``prev_hash``, ``hash``) that ``audit.chain.seal`` computes. Every model forbids unknown fields,
so a typo in the runtime fails loudly instead of silently dropping audit data. The committed JSON Schema
``audit/schema/transition_record.schema.json`` is generated from ``SealedTransitionRecord``.

Structural invariants checked here (a record breaking one is refused, so the turn is not committed):
an accepted candidate cites a witness; the chosen action is one of the scored actions; utilities list each
action once; state vectors keep their length; INVARIANT (I-6): no completion bit goes 1 -> 0;
a fail-closed turn leaves the completion bits unchanged.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

RECORD_VERSION: Literal[1] = 1

SHA256_PATTERN = r"^sha256:[0-9a-f]{64}$"
KEYED_DIGEST_PATTERN = r"^hmac-sha256:[0-9a-f]{64}$"
DOTTED_CODE_PATTERN = r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$"
NAME_PATTERN = r"^[a-z][a-z0-9_]*$"

Sha256 = Annotated[str, StringConstraints(pattern=SHA256_PATTERN)]
DottedCode = Annotated[str, StringConstraints(pattern=DOTTED_CODE_PATTERN)]
KeyedDigest = Annotated[str, StringConstraints(pattern=KEYED_DIGEST_PATTERN)]
Bit = Annotated[int, Field(ge=0, le=1)]
Level = Annotated[float, Field(ge=0.0, le=1.0)]
NonNegative = Annotated[float, Field(ge=0.0)]
ParamValue = str | int | float | bool | None


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Timestamps(_Model):
    """Wall-clock times of the turn, stored in UTC."""

    received_at: AwareDatetime = Field(description="When the visitor message reached the runtime.")
    completed_at: AwareDatetime = Field(description="When the turn's decision was complete (before persisting).")

    @field_validator("received_at", "completed_at")
    @classmethod
    def _to_utc(cls, value: datetime) -> datetime:
        return value.astimezone(UTC)


class ProposerInfo(_Model):
    """Which proposer produced the candidate commands."""

    name: str = Field(min_length=1, description="Adapter name, e.g. 'offline' or 'mistral-instructor'.")
    version: str = Field(min_length=1, description="Adapter version string.")


class LLMCall(_Model):
    """One model call made during the turn (mirrors llm_adapters.protocol.CallRecord; no prompt text)."""

    purpose: str | None = Field(default=None, description="Role of the call: 'proposer', 'synthesizer', ...")
    adapter: str | None = Field(default=None, description="Adapter that made the call.")
    model: str | None = Field(default=None, description="Model identifier as the provider names it.")
    prompt_id: str | None = Field(default=None, description="Id of the versioned prompt template used.")
    prompt_version: str | None = Field(default=None, description="Version of that prompt template.")
    prompt_hash: str | None = Field(default=None, description="Digest of the rendered prompt.")
    response_hash: str | None = Field(default=None, description="Digest of the raw response.")
    latency_ms: NonNegative | None = Field(default=None, description="Wall time of the call in milliseconds.")
    input_tokens: int | None = Field(default=None, ge=0, description="Prompt tokens reported by the provider.")
    output_tokens: int | None = Field(default=None, ge=0, description="Completion tokens reported.")
    attempt: int = Field(default=1, ge=1, description="1 for the first try, 2+ for retries.")
    status: DottedCode = Field(default="ok", description="'ok', 'replayed', or a dotted error code.")
    error_code: DottedCode | None = Field(default=None, description="Stable code of the failure, if any.")
    params: dict[str, ParamValue] = Field(
        default_factory=dict, description="Decoding parameters (temperature, max_tokens, seed, ...)."
    )
    output: dict[str, Any] | None = Field(
        default=None,
        description="The validated structured output (for offline replay); redacted like every record string.",
    )


class Witness(_Model):
    """The visitor-authored evidence a candidate cites: characters [start, end) of turn ``turn``'s message."""

    turn: int = Field(ge=1, description="Visitor turn whose stored (normalised) message holds the span.")
    start: int = Field(ge=0, description="First character offset (inclusive).")
    end: int = Field(ge=1, description="Last character offset (exclusive); greater than start.")

    @model_validator(mode="after")
    def _non_empty(self) -> Witness:
        if self.end <= self.start:
            raise ValueError("witness end must be greater than start")
        return self


class Candidate(_Model):
    """One proposed command and the decision layer's verdict on it."""

    command: dict[str, Any] = Field(
        description="The command as proposed (typed command dump, or the raw item if it failed to parse)."
    )
    accepted: bool = Field(description="True if the command changed (or confirmed) the state.")
    reason_code: DottedCode = Field(description="'accepted', or the stable code of the rule that rejected it.")
    validator: str | None = Field(default=None, description="Criterion validator consulted (kind and version).")
    validator_code: DottedCode | None = Field(default=None, description="The validator's own result code.")
    judgement: str | None = Field(
        default=None,
        description="Who decided: 'deterministic' (the validator) or 'proposer' (free-text criteria only).",
    )
    witness: Witness | None = Field(default=None, description="Cited visitor span; required when accepted.")
    value_digest: KeyedDigest | None = Field(
        default=None,
        description="Keyed digest of the extracted value (audit.redaction.Redactor.value_digest).",
    )

    @model_validator(mode="after")
    def _accepted_needs_witness(self) -> Candidate:
        if self.accepted and self.witness is None:
            raise ValueError("an accepted candidate must cite a visitor witness")
        return self


class Component(_Model):
    """One visitor-utility rubric component with the rationale that produced it."""

    value: Level = Field(description="Normalised level in [0, 1].")
    rationale: str = Field(min_length=1, description="Short reason for the level.")


class ActionUtility(_Model):
    """Utilities of one candidate action (paper eqs. 12-14)."""

    action: str = Field(min_length=1, description="Objective id of an ASK action, or the no-question action.")
    U_B: float = Field(description="Business utility.")
    U_V: float = Field(description="Visitor utility (weighted rubric).")
    R: Component | None = Field(default=None, description="Relevance (absent for the no-question action).")
    B: Component | None = Field(default=None, description="Interaction burden.")
    D: Component | None = Field(default=None, description="Repetition.")
    P: Component | None = Field(default=None, description="Privacy sensitivity.")
    feasible: bool = Field(description="U_V >= epsilon under the pinned policy.")


class RecordedValue(_Model):
    """One accepted value of an objective (mirrors engine.kernel.conversation.ValueRecord)."""

    turn: int = Field(ge=1, description="Turn the value was accepted.")
    kind: str = Field(min_length=1, description="'complete' or 'correct'.")
    value: str = Field(description="The value (redacted if it is contact data).")
    span_start: int = Field(ge=0, description="Witness start offset.")
    span_end: int = Field(ge=0, description="Witness end offset.")


class StateSnapshot(_Model):
    """The decision-relevant conversation state before or after the turn."""

    bits: list[Bit] = Field(min_length=1, description="Completion vector in approved objective order.")
    refused: list[str] = Field(default_factory=list, description="Objectives the visitor declined.")
    stopped: bool = Field(default=False, description="The visitor asked not to be asked anything more.")
    uncertain: dict[str, int] = Field(default_factory=dict, description="Objective -> turn of latest Uncertain.")
    ask_counts: dict[str, int] = Field(default_factory=dict, description="Objective -> times asked.")
    last_asked: str | None = Field(default=None, description="Objective targeted by the previous question.")
    values: dict[str, list[RecordedValue]] = Field(
        default_factory=dict, description="Objective -> accepted value history."
    )


class CitationRef(_Model):
    """A company passage the grounded answer cites."""

    source: str = Field(min_length=1, description="Document id / path / record reference.")
    passage_id: str = Field(min_length=1, description="Passage id within the source.")
    label: str = Field(
        default="", description="What a person recognises: document title and section heading (company text)."
    )


class AnswerSummary(_Model):
    """The grounded (company-evidence) answer of the turn, summarised."""

    supported: bool = Field(description="True if the answer is backed by at least one retrieved passage.")
    kind: Literal["answer", "related", "none"] = Field(
        default="none",
        description="The graded reply: 'answer' (the documents answer), 'related' (a related section shown verbatim "
        "with an honest frame), 'none' (nothing relevant found).",
    )
    is_question: bool = Field(default=False, description="The visitor message asked the company something.")
    citations: list[CitationRef] = Field(default_factory=list, description="Passages the answer cites.")
    carried: list[str] = Field(default_factory=list,
                               description="Constraint kinds carried over from earlier turns (directory follow-ups).")


class FailClosed(_Model):
    """Why the turn failed closed (the accepted state stayed unchanged)."""

    code: DottedCode = Field(description="Stable dotted error code.")
    message: str = Field(description="One-line explanation.")


class TransitionRecord(_Model):
    """One visitor turn, as built by the turn runtime (before sealing)."""

    record_version: Literal[1] = Field(default=RECORD_VERSION, description="Version of this schema.")
    conversation_id: str = Field(min_length=1, max_length=200, description="Conversation the turn belongs to.")
    turn: int = Field(ge=1, description="Visitor turn number (1-based).")
    timestamps: Timestamps = Field(description="Wall-clock times of the turn (UTC).")
    language: str | None = Field(default=None, description="Conversation language code.")
    goal_ref: str = Field(min_length=1, description="Pinned published goal spec, e.g. 'realestate@v3'.")
    goal_hash: Sha256 = Field(description="Content hash of the pinned goal spec.")
    bundle_version: str = Field(min_length=1, description="Version of the pinned rule bundle.")
    bundle_hash: Sha256 = Field(description="Content hash of the pinned rule bundle.")
    proposer: ProposerInfo = Field(description="Proposer that produced the candidates.")
    llm_calls: list[LLMCall] = Field(default_factory=list, description="Model calls made during the turn.")
    candidates: list[Candidate] = Field(default_factory=list, description="Every proposed command and verdict.")
    utilities: list[ActionUtility] = Field(default_factory=list, description="Scores of every action considered.")
    invariant_check: Literal["unsat", "sat", "unknown"] | None = Field(
        default=None,
        description="Z3 result on the negated invariants of this transition: 'unsat' means they hold; "
        "'sat' or 'unknown' made the turn fail closed.",
    )
    notes: list[str] = Field(
        default_factory=list,
        description="Deterministic notes of the decision, e.g. 'rubric.fallback_offline: <why>' when an external "
        "rubric could not be used, or 'proposer.fallback_offline: <code>' when the offline proposer stood in.",
    )
    chosen_action: str = Field(min_length=1, description="Action the policy selected.")
    question: str | None = Field(default=None, description="Question text shown (None for no question).")
    state_before: StateSnapshot = Field(description="State before the turn.")
    state_after: StateSnapshot = Field(description="State after the turn (equal bits if failed closed).")
    answer: AnswerSummary = Field(description="The grounded answer, summarised.")
    timings_ms: dict[Annotated[str, StringConstraints(pattern=NAME_PATTERN)], NonNegative] = Field(
        default_factory=dict, description="Stage name -> wall time in milliseconds."
    )
    fail_closed: FailClosed | None = Field(default=None, description="Why the turn failed closed, or null.")

    @model_validator(mode="after")
    def _structure(self) -> TransitionRecord:
        actions = [u.action for u in self.utilities]
        if len(set(actions)) != len(actions):
            raise ValueError("utilities must list each action once")
        if actions and self.chosen_action not in actions:
            raise ValueError("chosen_action must be one of the scored actions")
        before, after = self.state_before.bits, self.state_after.bits
        if len(before) != len(after):
            raise ValueError("state_before and state_after have different lengths")
        # INVARIANT (I-6): completion never returns from 1 to 0 (paper eqs. 10-11).
        if any(b > a for b, a in zip(before, after, strict=True)):
            raise ValueError("a completion bit went from 1 to 0")
        if self.fail_closed is not None and before != after:
            raise ValueError("a fail-closed turn must leave the completion bits unchanged")
        return self


class SealedTransitionRecord(TransitionRecord):
    """A record as stored and exported: the turn plus its position in the conversation's hash chain."""

    seq: int = Field(ge=0, description="0-based position in the conversation's chain.")
    prev_hash: Sha256 | None = Field(description="Hash of record seq-1; null for seq 0.")
    hash: Sha256 = Field(description="sha256 of the canonical JSON of this record without 'hash'.")

    @model_validator(mode="after")
    def _genesis(self) -> SealedTransitionRecord:
        if (self.seq == 0) != (self.prev_hash is None):
            raise ValueError("prev_hash must be null exactly for seq 0")
        return self


def record_json_schema() -> dict[str, Any]:
    """The JSON Schema of a sealed record (what the committed schema file must equal)."""
    schema = SealedTransitionRecord.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema
