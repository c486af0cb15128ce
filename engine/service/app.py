"""The GRACE HTTP API (FastAPI): visitor endpoints, operator endpoints, the widget and the console.

Visitor endpoints need no login; they are rate-limited per client address and body-limited. Creating a
conversation returns its secret visitor token; reading it and posting to it need that token in the
``X-Visitor-Token`` header (engine/service/visitor_access). Operator
endpoints need ``Authorization: Bearer <GRACE_OPERATOR_TOKEN>``. Every error is JSON
``{"error": {"code": <stable dotted code>, "message": <one line>}}``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import structlog
from fastapi import Depends, FastAPI, Header, Query, Request
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from engine.errors import GraceError, StoreError
from engine.leads.notifier import LeadNotifier
from engine.service import pages, visitor_access
from engine.service.catalog import Catalog, ServedGoal
from engine.service.config import ServiceConfig
from engine.service.engine_thread import EngineThread
from engine.service.errors import AuthError, ForbiddenError, NotFoundError, RateLimitError, RequestError, status_for
from engine.service.middleware import BodyGuard
from engine.service.operators import Operator, Role
from engine.service.quick_replies import quick_replies
from engine.service.ratelimit import RateLimiter
from engine.service.readiness import readiness
from engine.service.schemas import (
    CONVERSATION_ID_PATTERN,
    GOAL_PATTERN,
    AuditTrail,
    ChainStatus,
    ConversationCreated,
    ConversationList,
    ConversationSummaryOut,
    CreateConversation,
    DeliveryList,
    DeliveryOut,
    ErasureOut,
    ErrorResponse,
    GoalSpecList,
    GoalSpecOut,
    Health,
    Liveness,
    MessageOut,
    OperatorConversation,
    OperatorMe,
    ReadyOut,
    RuleBundleList,
    RuleBundleOut,
    TurnRequest,
    TurnResponse,
    VisitorConversation,
    WidgetConfigOut,
)
from engine.service.turns import TurnSubmitter, check_key
from engine.service.widget_config import consent_notes, widget_config_of
from engine.storage.base import DurableStore

log = structlog.get_logger("engine.service")

STATIC_DIR = Path(__file__).resolve().parent / "static"
API_VERSION = "1.0.0"

ConversationId = Annotated[str, PathParam(pattern=CONVERSATION_ID_PATTERN)]
VisitorToken = Annotated[
    str | None,
    Header(alias=visitor_access.HEADER, description="the visitor_token returned when the conversation was created"),
]
# Module level: route signatures are resolved from module globals (postponed annotations).
bearer = HTTPBearer(auto_error=False, description="GRACE_OPERATOR_TOKEN")
_ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorResponse} for status in (400, 401, 403, 404, 409, 410, 413, 415, 429, 500, 503)
}
MAX_OFFSET = 2**63 - 1  # SQL BIGINT: a larger OFFSET is a driver overflow, not an empty page


def _error(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status, headers=headers)


def _log_safely(event: str, **fields: Any) -> None:
    """Error handlers must answer even when the logging pipeline itself is what failed."""
    try:
        log.error(event, **fields)
    except Exception:
        print(f"{event} {fields}", file=sys.stderr)


def _check_text(value: str, field: str) -> None:
    # JSON escapes can smuggle lone surrogates into a str; they are not text and no store can keep them.
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise RequestError(f"{field} contains invalid Unicode (lone surrogate)", code="input.binary") from None


def _advertise_real_statuses(app: FastAPI) -> None:
    """FastAPI documents a 422 validation error on every route with parameters; this API answers invalid
    requests with a coded 400 (``invalid_request`` below), so the document says 400 and drops the 422."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = generate()
            for operations in document.get("paths", {}).values():
                for operation in operations.values():
                    responses = operation.get("responses", {})
                    if responses.pop("422", None) is not None and "400" not in responses:
                        responses["400"] = {"description": "Bad Request", "content": {"application/json": {
                            "schema": {"$ref": "#/components/schemas/ErrorResponse"}}}}
            schemas = document.get("components", {}).get("schemas", {})
            for name in ("HTTPValidationError", "ValidationError"):
                schemas.pop(name, None)
            app.openapi_schema = document
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def create_app(
    *,
    config: ServiceConfig,
    store: DurableStore,
    catalog: Catalog,
    audit_key: bytes,
    clock: Callable[[], float] | None = None,
    engine: EngineThread | None = None,
    notifier: LeadNotifier | None = None,
) -> FastAPI:
    limits = config.limits
    limiter = (
        RateLimiter(limits.rate_limits, max_clients=limits.rate_limit_max_clients, clock=clock)
        if clock is not None
        else RateLimiter(limits.rate_limits, max_clients=limits.rate_limit_max_clients)
    )
    submitter = TurnSubmitter(store, attempts=limits.turn_commit_attempts, engine=engine,
                              workers=limits.turn_workers, notifier=notifier)
    operators = config.operators()

    app = FastAPI(
        title="GRACE conversation service",
        version=API_VERSION,
        description=(
            "Goal-oriented, auditable conversations. Visitor endpoints are public but rate- and size-limited;"
            " "
            "operator endpoints need `Authorization: Bearer <token>`. Errors are "
            '`{"error": {"code", "message"}}` with stable dotted codes.'
        ),
        docs_url="/docs",
        redoc_url=None,
    )
    _advertise_real_statuses(app)
    app.state.store = store
    app.state.catalog = catalog
    app.state.submitter = submitter
    app.state.limits = limits
    app.state.draining = False  # set when shutdown starts (engine.service.server.GracefulServer)
    app.state.warmed = False  # set once every goal's models are loaded (engine.service.readiness.warm_up)

    # -- errors ------------------------------------------------------------------------------------

    @app.exception_handler(GraceError)
    async def grace_error(_: Request, exc: GraceError) -> JSONResponse:
        status = status_for(exc)
        headers = {"Retry-After": str(exc.retry_after_s)} if isinstance(exc, RateLimitError) else None
        if isinstance(exc, AuthError) and exc.code.startswith("auth."):
            headers = {"WWW-Authenticate": "Bearer"}
        if status >= 500:
            _log_safely("service.request.failed", code=exc.code, message=exc.message)
        message = exc.message
        if isinstance(exc, StoreError) and status >= 500:
            message = "the conversation store is unavailable; retry later"  # no database details to visitors
        return _error(status, exc.code, message, headers)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        kind = str(first.get("type", ""))
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "body"
        if kind == "json_invalid":
            return _error(400, "input.malformed", "request body is not valid JSON")
        if kind in ("missing",) and where == "body":
            return _error(400, "input.malformed", "a JSON body is required")
        return _error(400, "input.malformed", f"{where}: {first.get('msg', 'invalid')}")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "http.not_found", 405: "http.method_not_allowed"}.get(exc.status_code, "http.error")
        return _error(exc.status_code, code, str(exc.detail))

    @app.exception_handler(Exception)
    async def unexpected(_: Request, exc: Exception) -> JSONResponse:
        # The type only: an exception's text can quote the visitor's message (pydantic's input_value).
        _log_safely("service.request.crashed", error=type(exc).__name__)
        return _error(500, "internal.error", "internal error; the turn was not committed")

    # -- dependencies ------------------------------------------------------------------------------

    def client_of(request: Request) -> str:
        if config.trust_forwarded:
            forwarded = request.headers.get("x-forwarded-for", "")
            if forwarded:
                # The entry our trusted proxy appended; everything left of it is whatever the client sent.
                return forwarded.split(",")[-1].strip() or "unknown"
        return request.client.host if request.client else "unknown"

    def limited(family: str) -> Callable[[Request], None]:
        def dependency(request: Request) -> None:
            limiter.check(family, client_of(request))

        return dependency

    def require(needed: Role) -> Callable[..., Operator]:
        """The operator behind the bearer token, if their role allows ``needed``; every call is logged."""

        def dependency(
            request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
        ) -> Operator:
            limiter.check("operator", client_of(request))
            if "authorization" not in request.headers:
                raise AuthError("operator endpoints need Authorization: Bearer <token>", code="auth.missing_token")
            who = operators.identify(credentials.credentials) if credentials else None
            if who is None:
                log.info("service.auth.refused", client=client_of(request))
                raise AuthError("operator token is not valid", code="auth.invalid_token")
            if not who.may(needed):
                log.warning("operator.forbidden", operator=who.name, role=who.role.label, needed=needed.label,
                            method=request.method, path=request.url.path)
                raise ForbiddenError(f"operator {who.name} ({who.role.label}) may not do this; needs "
                                     f"{needed.label}", code="auth.forbidden")
            # warning level: operator actions are audit events and must show at the default log level
            log.warning("operator.request", operator=who.name, role=who.role.label, method=request.method,
                     path=request.url.path, client=client_of(request))
            request.state.operator = who  # handlers name the operator in what they log and record
            return who

        return dependency

    def visitor_goal_of(conversation_id: str, token: str | None) -> tuple[Any, ServedGoal]:
        presented = visitor_access.require_token(token)
        state, goal = goal_of(conversation_id)
        visitor_access.check_access(state, presented)
        return state, goal

    def goal_of(conversation_id: str) -> tuple[Any, ServedGoal]:
        try:
            state = store.load(conversation_id)
        except StoreError as exc:
            if exc.code == "store.not_found":
                raise NotFoundError(f"no conversation {conversation_id}", code="conversation.not_found") from exc
            raise
        return state, catalog.for_state(state)

    # -- visitor API -------------------------------------------------------------------------------

    @app.post(
        "/v1/conversations",
        status_code=201,
        response_model=ConversationCreated,
        responses=_ERRORS,
        dependencies=[Depends(limited("visitor_create"))],
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

    @app.post(
        "/v1/conversations/{conversation_id}/turns",
        response_model=TurnResponse,
        responses=_ERRORS,
        dependencies=[Depends(limited("visitor_turn"))],
        tags=["visitor"],
        summary="Post a visitor message; get the grounded answer, the follow-up question and the state",
    )
    def post_turn(
        conversation_id: ConversationId,
        body: TurnRequest,
        response: Response,
        idempotency_key: Annotated[str | None, Header(alias="Idempotency-Key")] = None,
        visitor_token: VisitorToken = None,
    ) -> dict[str, Any]:
        _check_text(body.message, "message")
        key = check_key(idempotency_key, limits.idempotency_key_max_chars)
        state, goal = visitor_goal_of(conversation_id, visitor_token)
        notes = consent_notes(goal.published.spec, state.turn, body.consent)
        submitted = submitter.submit(goal.runtime, conversation_id, body.message, key, notes=notes)
        if submitted.replayed:
            response.headers["Idempotent-Replayed"] = "true"
        # Derived from the stored response and the pinned spec, so a replay returns the same choices.
        choices = quick_replies(goal.published.spec, submitted.response, state.language, goal.runtime.bundle)
        return {**submitted.response, "choices": choices}

    @app.get(
        "/v1/conversations/{conversation_id}",
        response_model=VisitorConversation,
        responses=_ERRORS,
        dependencies=[Depends(limited("visitor_read"))],
        tags=["visitor"],
        summary="The visitor's view of a conversation (messages and state)",
    )
    def get_conversation(conversation_id: ConversationId, visitor_token: VisitorToken = None) -> VisitorConversation:
        state, _ = visitor_goal_of(conversation_id, visitor_token)
        return VisitorConversation(
            conversation_id=state.conversation_id,
            goal_ref=state.goal_ref,
            language=state.language,
            turn=state.turn,
            state=state.state_string(),
            stopped=state.stopped,
            messages=[MessageOut(role=m.role.value, turn=m.turn, text=m.text) for m in state.messages],
        )

    @app.get(
        "/v1/goals/{goal:path}/widget",
        response_model=WidgetConfigOut,
        responses=_ERRORS,
        dependencies=[Depends(limited("visitor_read"))],
        tags=["visitor"],
        summary="How the widget presents this goal's company: name, colours, welcome text, privacy and consent",
    )
    def widget_config(
        goal: Annotated[str, PathParam(pattern=GOAL_PATTERN)],
        lang: Annotated[str | None, Query(pattern=r"^[a-z]{2,3}$")] = None,
    ) -> WidgetConfigOut:
        return widget_config_of(catalog.resolve(goal).published, lang)

    # -- operator API ------------------------------------------------------------------------------

    viewer = [Depends(require(Role.VIEWER))]
    auditor = [Depends(require(Role.AUDITOR))]
    admin = [Depends(require(Role.ADMIN))]

    @app.get(
        "/v1/operator/me",
        response_model=OperatorMe,
        responses=_ERRORS,
        dependencies=viewer,
        tags=["operator"],
        summary="The operator behind the token and their role (what the console may offer them)",
    )
    def operator_me(request: Request) -> OperatorMe:
        who: Operator = request.state.operator
        return OperatorMe(name=who.name, role=who.role.label)

    @app.get(
        "/v1/operator/conversations",
        response_model=ConversationList,
        responses=_ERRORS,
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

    @app.get(
        "/v1/operator/conversations/{conversation_id}",
        response_model=OperatorConversation,
        responses=_ERRORS,
        dependencies=auditor,
        tags=["operator"],
        summary="A conversation's full stored state",
    )
    def operator_conversation(conversation_id: ConversationId) -> OperatorConversation:
        try:
            state, goal = goal_of(conversation_id)
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

    @app.get(
        "/v1/operator/conversations/{conversation_id}/audit",
        response_model=AuditTrail,
        responses=_ERRORS,
        dependencies=auditor,
        tags=["operator"],
        summary="The sealed audit records, in order",
    )
    def audit_trail(conversation_id: ConversationId) -> AuditTrail:
        return AuditTrail(conversation_id=conversation_id, records=_records(conversation_id))

    @app.get(
        "/v1/operator/conversations/{conversation_id}/audit/verify",
        response_model=ChainStatus,
        responses=_ERRORS,
        dependencies=auditor,
        tags=["operator"],
        summary="Verify the hash chain and the keyed head checkpoint",
    )
    def verify_chain(conversation_id: ConversationId) -> ChainStatus:
        from audit.stored import verify_stored

        _records(conversation_id)  # 404 for an unknown conversation
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

    @app.get(
        "/v1/operator/conversations/{conversation_id}/audit/packet",
        response_class=Response,
        responses={**_ERRORS, 200: {"content": {"application/zip": {}}, "description": "The audit packet (zip)"}},
        dependencies=auditor,
        tags=["operator"],
        summary="Audit packet: a readable report plus the records, checkpoint, checkpoint log and state that "
                "`grace audit verify` re-checks offline, with this server's verification result",
    )
    def audit_packet(conversation_id: ConversationId, request: Request) -> Response:
        from audit.packet import build_packet

        _records(conversation_id)  # 404 for an unknown conversation
        _, goal = goal_of(conversation_id)
        spec = goal.published.spec
        data = build_packet(store, conversation_id, audit_key, title=f"{spec.title} ({goal.published.ref})",
                            objectives=[{"id": o.id, "name": o.name} for o in spec.ordered()])
        who: Operator = request.state.operator
        log.warning("operator.audit.packet", conversation_id=conversation_id, operator=who.name)
        return Response(content=data, media_type="application/zip", headers={
            "Content-Disposition": f'attachment; filename="audit-{conversation_id}.zip"'})

    @app.post(
        "/v1/operator/conversations/{conversation_id}/erase",
        response_model=ErasureOut,
        responses=_ERRORS,
        dependencies=admin,
        tags=["operator"],
        summary="Erase a conversation's personal data (destroy its key); the audit chain still verifies",
    )
    def erase_conversation(conversation_id: ConversationId, request: Request) -> ErasureOut:
        who: Operator = request.state.operator
        _records(conversation_id)  # 404 for an unknown conversation
        done = store.erase(conversation_id, actor=f"operator-api:{who.name}@{client_of(request)}")
        log.info("operator.conversation.erased", conversation_id=conversation_id, actor=done.actor)
        return ErasureOut(conversation_id=conversation_id, erased=True, actor=done.actor, erased_at=done.at)

    def _records(conversation_id: str) -> list[dict[str, Any]]:
        try:
            return store.records(conversation_id)
        except StoreError as exc:
            if exc.code == "store.not_found":
                raise NotFoundError(f"no conversation {conversation_id}", code="conversation.not_found") from exc
            raise

    @app.get(
        "/v1/operator/goal-specs",
        response_model=GoalSpecList,
        responses=_ERRORS,
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

    @app.get(
        "/v1/operator/deliveries/dead",
        response_model=DeliveryList,
        responses=_ERRORS,
        dependencies=auditor,
        tags=["operator"],
        summary="Completion webhooks that exhausted their retries (empty when no webhook is configured)",
    )
    def dead_letters() -> DeliveryList:
        letters = notifier.dispatcher.outbox.dead_letters() if notifier is not None else []
        return DeliveryList(deliveries=[DeliveryOut.of(letter) for letter in letters])

    @app.post(
        "/v1/operator/deliveries/{delivery_id}/requeue",
        response_model=DeliveryOut,
        responses=_ERRORS,
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
                    client=client_of(request))
        return DeliveryOut.of(delivery)

    @app.get(
        "/v1/operator/rule-bundles",
        response_model=RuleBundleList,
        responses=_ERRORS,
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

    # -- meta and pages ----------------------------------------------------------------------------

    @app.get("/healthz", response_model=Health, tags=["meta"], summary="Liveness")
    def health() -> Health:
        return Health(status="ok", store=store.backend, goals=catalog.refs())

    @app.get("/health", response_model=Liveness, tags=["meta"], summary="Liveness: the process answers")
    def liveness() -> Liveness:
        return Liveness(status="ok")

    @app.get(
        "/ready",
        response_model=ReadyOut,
        responses={503: {"model": ReadyOut, "description": "Not ready: draining, store unreachable, or warming"}},
        tags=["meta"],
        summary="Readiness: store reachable, rule bundle verified, models loaded, not shutting down",
    )
    def ready() -> JSONResponse:
        result = readiness(store=store, catalog=catalog, warmed=bool(app.state.warmed),
                           draining=bool(app.state.draining))
        body = ReadyOut(ready=result.ready, checks=result.checks, code=result.code, message=result.message)
        return JSONResponse(body.model_dump(), status_code=200 if result.ready else 503)

    @app.get("/", include_in_schema=False)
    def index() -> HTMLResponse:
        return pages.html(pages.index_page(catalog))

    @app.get("/demo/{goal}", include_in_schema=False)
    def demo_page(goal: str, lang: Annotated[str | None, Query(pattern=r"^[a-z]{2,3}$")] = None) -> HTMLResponse:
        served = catalog.resolve(goal)
        return pages.html(pages.demo_page(served, lang or served.published.spec.default_language))

    @app.get("/console", include_in_schema=False)
    def console() -> FileResponse:
        return FileResponse(STATIC_DIR / "console.html", headers=pages.CONSOLE_HEADERS)

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> RedirectResponse:
        return RedirectResponse("/static/favicon.svg")

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    # Outermost last: CORS must also decorate the body guard's refusals, or browsers hide them.
    app.add_middleware(BodyGuard, max_body_bytes=limits.max_body_bytes)
    if config.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(config.cors_origins),
            allow_methods=["GET", "POST"],
            allow_headers=["Content-Type", "Idempotency-Key", "Authorization", visitor_access.HEADER],
            expose_headers=["Idempotent-Replayed", "Retry-After"],
            max_age=600,
        )
    return app
