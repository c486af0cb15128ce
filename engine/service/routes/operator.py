"""Operator endpoints: ``Authorization: Bearer <token>``; each names the role it needs (viewer, auditor, admin)
and every call is logged as an operator action."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated

import structlog
from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi import Path as PathParam

from engine.errors import GraceError
from engine.service.context import ERRORS, MAX_OFFSET, ConversationId, ServiceContext
from engine.service.errors import NotFoundError
from engine.service.operators import Operator, Role
from engine.service.schemas import (
    AuditTrail,
    ChainStatus,
    ConversationList,
    ConversationSummaryOut,
    DeliveryList,
    DeliveryOut,
    ErasureOut,
    GoalSpecList,
    GoalSpecOut,
    OperatorConversation,
    OperatorMe,
    RuleBundleList,
    RuleBundleOut,
)

log = structlog.get_logger("engine.service")


def operator_router(ctx: ServiceContext) -> APIRouter:
    router = APIRouter()
    store, catalog, limits, audit_key, notifier = ctx.store, ctx.catalog, ctx.limits, ctx.audit_key, ctx.notifier

    viewer = [Depends(ctx.require(Role.VIEWER))]
    sales = [Depends(ctx.require(Role.SALES))]
    auditor = [Depends(ctx.require(Role.AUDITOR))]
    admin = [Depends(ctx.require(Role.ADMIN))]

    @router.get(
        "/v1/operator/me",
        response_model=OperatorMe,
        responses=ERRORS,
        dependencies=viewer,
        tags=["operator"],
        summary="The operator behind the token and their role (what the console may offer them)",
    )
    def operator_me(request: Request) -> OperatorMe:
        who: Operator = request.state.operator
        return OperatorMe(name=who.name, role=who.role.label)

    @router.get(
        "/v1/operator/conversations",
        response_model=ConversationList,
        responses=ERRORS,
        dependencies=viewer,
        tags=["operator"],
        summary="Conversations, most recently active first",
    )
    def list_conversations(
        limit: Annotated[int, Query(ge=1, le=1000)] = limits.console_page_size,
        offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
    ) -> ConversationList:
        rows = store.summaries(limit=limit, offset=offset)
        return ConversationList(
            conversations=[ConversationSummaryOut(**vars(row)) for row in rows], limit=limit, offset=offset
        )

    @router.get(
        "/v1/operator/conversations/{conversation_id}",
        response_model=OperatorConversation,
        responses=ERRORS,
        dependencies=auditor,
        tags=["operator"],
        summary="A conversation's full stored state",
    )
    def operator_conversation(conversation_id: ConversationId) -> OperatorConversation:
        try:
            state, goal = ctx.goal_of(conversation_id)
            title, objectives = goal.published.spec.title, goal.objectives()
        except GraceError as exc:
            if exc.code != "conversation.version_unavailable":
                raise
            state, title, objectives = store.load(conversation_id), None, []
        return OperatorConversation(
            conversation_id=state.conversation_id,
            goal_ref=state.goal_ref,
            goal_title=title,
            objectives=objectives,
            state=state.model_dump(mode="json"),
        )

    @router.get(
        "/v1/operator/conversations/{conversation_id}/audit",
        response_model=AuditTrail,
        responses=ERRORS,
        dependencies=auditor,
        tags=["operator"],
        summary="The sealed audit records, in order",
    )
    def audit_trail(conversation_id: ConversationId) -> AuditTrail:
        return AuditTrail(conversation_id=conversation_id, records=ctx.records(conversation_id))

    @router.get(
        "/v1/operator/conversations/{conversation_id}/audit/verify",
        response_model=ChainStatus,
        responses=ERRORS,
        dependencies=auditor,
        tags=["operator"],
        summary="Verify the hash chain and the keyed head checkpoint",
    )
    def verify_chain(conversation_id: ConversationId) -> ChainStatus:
        from audit.stored import verify_stored

        ctx.records(conversation_id)  # 404 for an unknown conversation
        # Chain, state continuity, stored state vs checkpoint vs checkpoint log; no checkpoint is a failure.
        report = verify_stored(store, conversation_id, audit_key)
        return ChainStatus(
            conversation_id=conversation_id,
            ok=report.ok,
            records=report.records,
            code=report.code,
            failed_seq=report.failed_seq,
            message=report.message,
            head_seq=report.head_seq,
            anchored_seq=report.anchored_seq,
        )

    @router.get(
        "/v1/operator/conversations/{conversation_id}/audit/packet",
        response_class=Response,
        responses={**ERRORS, 200: {"content": {"application/zip": {}}, "description": "The audit packet (zip)"}},
        dependencies=auditor,
        tags=["operator"],
        summary="Audit packet: a readable report plus the records, checkpoint, checkpoint log and state that "
                "`grace audit verify` re-checks offline, with this server's verification result",
    )
    def audit_packet(conversation_id: ConversationId, request: Request) -> Response:
        from audit.packet import build_packet

        ctx.records(conversation_id)  # 404 for an unknown conversation
        _, goal = ctx.goal_of(conversation_id)
        spec = goal.published.spec
        data = build_packet(store, conversation_id, audit_key, title=f"{spec.title} ({goal.published.ref})",
                            objectives=[{"id": o.id, "name": o.name} for o in spec.ordered()])
        who: Operator = request.state.operator
        log.warning("operator.audit.packet", conversation_id=conversation_id, operator=who.name)
        return Response(content=data, media_type="application/zip", headers={
            "Content-Disposition": f'attachment; filename="audit-{conversation_id}.zip"'})

    @router.post(
        "/v1/operator/conversations/{conversation_id}/erase",
        response_model=ErasureOut,
        responses=ERRORS,
        dependencies=admin,
        tags=["operator"],
        summary="Erase a conversation's personal data (destroy its key); the audit chain still verifies",
    )
    def erase_conversation(conversation_id: ConversationId, request: Request) -> ErasureOut:
        who: Operator = request.state.operator
        ctx.records(conversation_id)  # 404 for an unknown conversation
        done = store.erase(conversation_id, actor=f"operator-api:{who.name}@{ctx.client_of(request)}")
        if notifier is not None:  # erasure reaches the webhook outbox: queued and delivered payloads
            notifier.erased(conversation_id)
        log.info("operator.conversation.erased", conversation_id=conversation_id, actor=done.actor)
        return ErasureOut(conversation_id=conversation_id, erased=True, actor=done.actor, erased_at=done.at)

    @router.get(
        "/v1/operator/goal-specs",
        response_model=GoalSpecList,
        responses=ERRORS,
        dependencies=viewer,
        tags=["operator"],
        summary="Published goal specs served here",
    )
    def goal_specs() -> GoalSpecList:
        out = []
        for goal in sorted(catalog.goals, key=lambda g: g.published.ref):
            published = goal.published
            out.append(
                GoalSpecOut(
                    ref=published.ref,
                    id=published.spec.id,
                    version=published.version,
                    title=published.spec.title,
                    content_hash=published.content_hash,
                    approved_by=published.approved_by,
                    approved_at=published.approved_at.isoformat(),
                    default_language=published.spec.default_language,
                    languages=list(published.spec.languages),
                    objectives=goal.objectives(),
                )
            )
        return GoalSpecList(goal_specs=out)

    @router.get(
        "/v1/operator/deliveries/dead",
        response_model=DeliveryList,
        responses=ERRORS,
        dependencies=auditor,
        tags=["operator"],
        summary="Completion webhooks that exhausted their retries (empty when no webhook is configured)",
    )
    def dead_letters() -> DeliveryList:
        letters = notifier.dispatcher.outbox.dead_letters() if notifier is not None else []
        return DeliveryList(deliveries=[DeliveryOut.of(letter) for letter in letters])

    @router.post(
        "/v1/operator/deliveries/{delivery_id}/requeue",
        response_model=DeliveryOut,
        responses=ERRORS,
        dependencies=admin,
        tags=["operator"],
        summary="Send a dead letter again with a fresh retry budget (an operator action, logged)",
    )
    def requeue(delivery_id: Annotated[str, PathParam(pattern=r"^[0-9a-f]{32}$")], request: Request) -> DeliveryOut:
        who: Operator = request.state.operator
        if notifier is None:
            raise NotFoundError("no webhook is configured on this service", code="leads.webhooks_off")
        delivery = notifier.dispatcher.outbox.requeue(delivery_id, datetime.now(UTC))
        log.warning("operator.leads.requeued", delivery_id=delivery_id, goal=delivery.goal, operator=who.name,
                    client=ctx.client_of(request))
        return DeliveryOut.of(delivery)

    @router.get(
        "/v1/operator/leads/export",
        response_class=Response,
        responses={**ERRORS, 200: {"content": {"text/csv": {}, "application/json": {}},
                                   "description": "the leads file (an attachment)"}},
        dependencies=sales,
        tags=["operator"],
        summary="Collected values per conversation as CSV or JSON, by goal and period (an operator action, logged)",
    )
    def export_leads(
        request: Request,
        goal: Annotated[str | None, Query(max_length=120)] = None,
        since: Annotated[str | None, Query(max_length=40, description="YYYY-MM-DD or ISO 8601")] = None,
        until: Annotated[str | None, Query(max_length=40, description="YYYY-MM-DD or ISO 8601, exclusive")] = None,
        completed_only: bool = False,
        format: Annotated[str, Query(pattern="^(csv|json)$")] = "csv",
    ) -> Response:
        from engine.leads.errors import LeadExportError
        from engine.leads.export import LeadFilter, collect_leads, parse_day, to_csv, to_json

        who: Operator = request.state.operator
        selection = LeadFilter(goal=goal, since=parse_day(since, "since"), until=parse_day(until, "until"),
                               completed_only=completed_only)
        if selection.since and selection.until and selection.since >= selection.until:
            raise LeadExportError("since must be before until", code="leads.date_range_empty")
        leads = collect_leads(store, selection)
        # Who took which selection out, and how many conversations; never the values.
        log.warning("operator.leads.exported", operator=who.name, role=who.role.label, goal=goal, since=since,
                    until=until, completed_only=completed_only, conversations=len(leads), format=format,
                    client=ctx.client_of(request))
        body, media = (to_json(leads), "application/json") if format == "json" else (to_csv(leads), "text/csv")
        name = "leads-" + re.sub(r"[^A-Za-z0-9._-]", "-", goal or "all") + f".{format}"
        return Response(body, media_type=f"{media}; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{name}"',
                                 "Cache-Control": "no-store"})

    @router.get(
        "/v1/operator/analytics",
        response_class=Response,
        responses={**ERRORS, 200: {"content": {"application/json": {}, "text/csv": {}},
                                   "description": "per goal: started, completed, stopped, abandoned, open, "
                                                  "handoffs, corrections, questions and unanswered questions, and "
                                                  "per objective asked, completed, refused, rejected, corrections, "
                                                  "dropped (engine/analytics)"}},
        dependencies=auditor,
        tags=["operator"],
        summary="How conversations go, per goal and period (counts only: no personal value is opened)",
    )
    def analytics(
        goal: Annotated[str | None, Query(max_length=120)] = None,
        since: Annotated[str | None, Query(max_length=40, description="YYYY-MM-DD or ISO 8601")] = None,
        until: Annotated[str | None, Query(max_length=40, description="YYYY-MM-DD or ISO 8601, exclusive")] = None,
        idle_hours: Annotated[float, Query(gt=0, le=24 * 365)] = 24.0,
        format: Annotated[str, Query(pattern="^(csv|json)$")] = "json",
    ) -> Response:
        from engine.analytics.collect import collect
        from engine.analytics.report import selection, to_csv, to_json

        order = {g.published.spec.id: [o.id for o in g.published.spec.ordered()] for g in catalog.goals}
        reports = collect(store, selection(goal, since, until, idle_hours), order)
        if format == "csv":
            return Response(to_csv(reports), media_type="text/csv; charset=utf-8",
                            headers={"Content-Disposition": 'attachment; filename="analytics.csv"'})
        return Response(to_json(reports), media_type="application/json")

    @router.get(
        "/v1/operator/rule-bundles",
        response_model=RuleBundleList,
        responses=ERRORS,
        dependencies=viewer,
        tags=["operator"],
        summary="The rule bundle conversations are pinned to",
    )
    def rule_bundles() -> RuleBundleList:
        bundle = catalog.bundle
        if bundle is None:
            return RuleBundleList(rule_bundles=[])
        published = bundle.published or {}
        return RuleBundleList(
            rule_bundles=[
                RuleBundleOut(
                    version=bundle.version,
                    content_hash=bundle.content_hash,
                    published=bundle.published is not None,
                    approved_by=published.get("approved_by"),
                    approved_at=published.get("approved_at"),
                    files=sorted(bundle.file_hashes),
                )
            ]
        )

    return router
