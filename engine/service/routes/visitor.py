"""Visitor endpoints: no login; rate-limited per client address and body-limited. Creating a conversation
returns its secret visitor token; reading it and posting to it need that token (engine/service/visitor_access)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Header, Query, Response
from fastapi import Path as PathParam

from engine.service import visitor_access
from engine.service.context import ERRORS, ConversationId, ServiceContext, VisitorToken, check_text
from engine.service.handoff import HandoffDesk
from engine.service.quick_replies import quick_replies
from engine.service.replies import ModelReply
from engine.service.schemas import (
    GOAL_PATTERN,
    ConversationCreated,
    CreateConversation,
    MessageOut,
    TurnRequest,
    TurnResponse,
    VisitorConversation,
    WidgetConfigOut,
)
from engine.service.turns import check_key
from engine.service.widget_config import consent_notes, widget_config_of
from engine.storage.read_ahead import read_ahead


def visitor_router(ctx: ServiceContext) -> APIRouter:
    router = APIRouter()
    catalog, limits, submitter = ctx.catalog, ctx.limits, ctx.submitter
    turn_reply = ModelReply(TurnResponse)
    desk = HandoffDesk(ctx.handoff, ctx.notifier, ctx.store)

    @router.post(
        "/v1/conversations",
        status_code=201,
        response_model=ConversationCreated,
        responses=ERRORS,
        dependencies=[Depends(ctx.limited("visitor_create"))],
        tags=["visitor"],
        summary="Start a conversation for a published goal spec",
    )
    def create_conversation(body: CreateConversation) -> ConversationCreated:
        goal = catalog.resolve(body.goal)
        token, key = visitor_access.new_token()
        state = goal.runtime.start(language=body.language, visitor_key=key)
        return ConversationCreated(
            conversation_id=state.conversation_id,
            visitor_token=token,
            goal_ref=state.goal_ref,
            language=state.language,
            turn=state.turn,
            state=state.state_string(),
            objectives=goal.objectives(),
        )

    @router.post(
        "/v1/conversations/{conversation_id}/turns",
        response_model=TurnResponse,
        responses=ERRORS,
        dependencies=[Depends(ctx.limited("visitor_turn"))],
        tags=["visitor"],
        summary="Post a visitor message; get the grounded answer, the follow-up question and the state",
    )
    def post_turn(
        conversation_id: ConversationId,
        body: TurnRequest,
        idempotency_key: Annotated[str | None, Header(alias="Idempotency-Key")] = None,
        visitor_token: VisitorToken = None,
    ) -> Response:
        check_text(body.message, "message")
        key = check_key(idempotency_key, limits.idempotency_key_max_chars)
        # The access check's read also fetches what the turn reads next (engine/storage/read_ahead).
        with read_ahead(conversation_id, key):
            access, goal = ctx.visitor_access_of(conversation_id, visitor_token)
            notes = consent_notes(goal.published.spec, access.turn, body.consent)
            # A visitor may ask for a person at any time: noted in this turn's audit record.
            handoff = desk.request(goal, body.message, access.language)
            submitted = submitter.submit(goal.runtime, conversation_id, body.message, key,
                                         notes=(*notes, *desk.notes(handoff)))
        # Derived from the stored response and the pinned spec, so a replay returns the same choices.
        choices = quick_replies(goal.published.spec, submitted.response, access.language, goal.runtime.bundle)
        extra: dict[str, object] = {"choices": choices}
        if handoff is not None:
            extra["handoff"] = desk.view(goal, handoff, access.language)
            if not submitted.replayed:
                desk.deliver(goal, conversation_id, int(submitted.response["turn"]))
        # Validated and encoded here, on this request's thread (engine/service/replies).
        return turn_reply({**submitted.response, **extra},
                          headers=[("Idempotent-Replayed", "true")] if submitted.replayed else [])

    @router.get(
        "/v1/conversations/{conversation_id}",
        response_model=VisitorConversation,
        responses=ERRORS,
        dependencies=[Depends(ctx.limited("visitor_read"))],
        tags=["visitor"],
        summary="The visitor's view of a conversation (messages and state)",
    )
    def get_conversation(conversation_id: ConversationId, visitor_token: VisitorToken = None) -> VisitorConversation:
        state, _ = ctx.visitor_goal_of(conversation_id, visitor_token)
        return VisitorConversation(
            conversation_id=state.conversation_id,
            goal_ref=state.goal_ref,
            language=state.language,
            turn=state.turn,
            state=state.state_string(),
            stopped=state.stopped,
            messages=[MessageOut(role=m.role.value, turn=m.turn, text=m.text) for m in state.messages],
        )

    @router.get(
        "/v1/goals/{goal:path}/widget",
        response_model=WidgetConfigOut,
        responses=ERRORS,
        dependencies=[Depends(ctx.limited("visitor_read"))],
        tags=["visitor"],
        summary="How the widget presents this goal's company: name, colours, welcome text, privacy and consent",
    )
    def widget_config(
        goal: Annotated[str, PathParam(pattern=GOAL_PATTERN)],
        lang: Annotated[str | None, Query(pattern=r"^[a-z]{2,3}$")] = None,
    ) -> WidgetConfigOut:
        return widget_config_of(catalog.resolve(goal).published, lang)

    return router
