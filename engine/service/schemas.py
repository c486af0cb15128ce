"""Request and response bodies of the HTTP API (they are also the OpenAPI document's schemas)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from engine.kernel.visitor_response import VisitorTurn
from engine.leads.outbox import Delivery

GOAL_PATTERN = r"^[a-z][a-z0-9_-]{0,63}(/v[1-9][0-9]{0,8})?$"
LANGUAGE_PATTERN = r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$"
CONVERSATION_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CreateConversation(_In):
    goal: str = Field(pattern=GOAL_PATTERN, description="Goal spec id (latest published version) or ref 'id/vN'.")
    language: str | None = Field(default=None, pattern=LANGUAGE_PATTERN, description="Defaults to the spec's.")


class TurnRequest(_In):
    message: str = Field(description="The visitor's message (limits: rules/runtime.json, service limits.json).")
    consent: bool = Field(
        default=False,
        description="The visitor ticked the consent box. Required (true) on the first message when the goal's "
        "widget has consent_required; the first turn's audit record then notes the consent.",
    )


class ErrorBody(BaseModel):
    code: str = Field(description="Stable dotted error code.")
    message: str = Field(description="One line for humans.")


class ErrorResponse(BaseModel):
    error: ErrorBody


class ObjectiveOut(BaseModel):
    id: str
    name: str
    order: int
    kind: str
    description: str


class ConversationCreated(BaseModel):
    conversation_id: str
    visitor_token: str = Field(
        description="secret capability of this conversation, shown once: send it as X-Visitor-Token to read the"
        " conversation or post turns (only its hash is stored)"
    )
    goal_ref: str
    language: str
    turn: int
    state: str
    objectives: list[ObjectiveOut]


class HandoffOut(BaseModel):
    text: str = Field(description="What the visitor is told: a person takes over, how to reach them, when.")
    email: str | None = None
    phone: str | None = None
    open_now: bool | None = Field(default=None, description="Within the company's opening hours (null: none set).")
    hours: str | None = Field(default=None, description="The opening hours as configured, with their time zone.")


class TurnResponse(VisitorTurn):
    """The turn as the kernel decided it (``engine.kernel.visitor_response.VisitorTurn``, stored for idempotent replays)
    plus what the service adds on each delivery: the handoff box and the quick replies."""

    handoff: HandoffOut | None = Field(
        default=None, description="The visitor asked for a person: how the company's people take over (the "
        "request is in the turn's audit record and, when configured, sent to the company's webhook).")
    choices: list[str] = Field(
        default_factory=list,
        description="Quick replies for the question when its objective lists options (labels in the conversation's "
        "language); sending one is the visitor's own answer.",
    )


class MessageOut(BaseModel):
    role: str
    turn: int
    text: str


class VisitorConversation(BaseModel):
    conversation_id: str
    goal_ref: str
    language: str
    turn: int
    state: str
    stopped: bool
    messages: list[MessageOut]


class WidgetConfigOut(BaseModel):
    """How the widget presents a goal's company, from the published goal spec's widget section."""

    goal_ref: str
    language: str = Field(description="The language the texts below are in (the requested one when offered).")
    languages: list[str]
    company_name: str | None = Field(description="Shown as the panel title; null: the widget's own title.")
    primary_color: str = Field(description="#rrggbb of the header, launcher, send button and visitor bubbles.")
    text_color: str = Field(description="#rrggbb of text on the primary colour (WCAG AA checked at approval).")
    accent_color: str = Field(description="#rrggbb of links, quick replies and the focus ring on the white panel.")
    welcome: str | None = Field(description="The first line the widget shows; null: the widget's own greeting.")
    privacy_url: str | None
    consent_url: str | None
    consent_required: bool = Field(description="The visitor must tick consent before the first message.")


class ConversationSummaryOut(BaseModel):
    conversation_id: str
    goal_ref: str
    language: str
    turn: int
    state: str
    created_at: str
    updated_at: str
    fail_closed_turns: int = Field(
        default=0, description="Turns that failed closed (a crash, a missed deadline, a refused transition).")
    rejected_turns: int = Field(default=0, description="Turns where a proposed command was rejected.")


class OperatorMe(BaseModel):
    name: str
    role: str = Field(description="viewer | sales | auditor | admin")


class ConversationList(BaseModel):
    conversations: list[ConversationSummaryOut]
    limit: int
    offset: int


class OperatorConversation(BaseModel):
    conversation_id: str
    goal_ref: str
    goal_title: str | None
    objectives: list[ObjectiveOut]
    state: dict[str, Any] = Field(description="The full stored ConversationState.")


class AuditTrail(BaseModel):
    conversation_id: str
    records: list[dict[str, Any]]


class ChainStatus(BaseModel):
    conversation_id: str
    ok: bool
    records: int
    code: str | None = Field(description="Stable reason code when the chain does not verify.")
    failed_seq: int | None
    message: str | None
    head_seq: int | None
    anchored_seq: int | None = Field(description="Seq anchored by the keyed head checkpoint.")


class ErasureOut(BaseModel):
    conversation_id: str
    erased: bool
    actor: str = Field(description="Who erased it (logged as an operator action).")
    erased_at: str = Field(description="When the conversation's key was destroyed (ISO-8601 UTC).")


class DeliveryOut(BaseModel):
    """One completion webhook delivery (the body, which holds the visitor's values, is never shown here)."""

    delivery_id: str
    goal: str
    status: str = Field(description="pending | delivered | dead")
    attempts: int
    last_error: str | None
    created_at: str
    updated_at: str

    @staticmethod
    def of(delivery: Delivery) -> DeliveryOut:
        return DeliveryOut(delivery_id=delivery.delivery_id, goal=delivery.goal, status=delivery.status,
                           attempts=delivery.attempts, last_error=delivery.last_error,
                           created_at=delivery.created_at, updated_at=delivery.updated_at)


class DeliveryList(BaseModel):
    deliveries: list[DeliveryOut]


class GoalSpecOut(BaseModel):
    ref: str
    id: str
    version: int
    title: str
    content_hash: str
    approved_by: str
    approved_at: str
    default_language: str
    languages: list[str]
    objectives: list[ObjectiveOut]


class GoalSpecList(BaseModel):
    goal_specs: list[GoalSpecOut]


class RuleBundleOut(BaseModel):
    version: str
    content_hash: str
    published: bool
    approved_by: str | None
    approved_at: str | None
    files: list[str]


class RuleBundleList(BaseModel):
    rule_bundles: list[RuleBundleOut]


class Liveness(BaseModel):
    status: str


class ReadyOut(BaseModel):
    ready: bool
    checks: dict[str, bool]
    code: str | None = None
    message: str | None = None


class Health(BaseModel):
    status: str
    store: str
    goals: list[str]
