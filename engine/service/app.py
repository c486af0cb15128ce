"""The GRACE HTTP API (FastAPI): visitor endpoints, operator endpoints, the widget and the console.

Visitor endpoints need no login; they are rate-limited per client address and body-limited. Creating a
conversation returns its secret visitor token; reading it and posting to it need that token in the
``X-Visitor-Token`` header (engine/service/visitor_access). Operator
endpoints need ``Authorization: Bearer <GRACE_OPERATOR_TOKEN>``. Every error is JSON
``{"error": {"code": <stable dotted code>, "message": <one line>}}``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.staticfiles import StaticFiles

from engine.handoff.config import HandoffConfig
from engine.leads.notifier import LeadNotifier
from engine.service import visitor_access
from engine.service.catalog import Catalog
from engine.service.config import ServiceConfig
from engine.service.context import ServiceContext
from engine.service.engine_thread import EngineThread
from engine.service.handlers import install_error_handlers
from engine.service.middleware import BodyGuard
from engine.service.ratelimit import RateLimiter
from engine.service.routes.meta import STATIC_DIR, meta_router
from engine.service.routes.operator import operator_router
from engine.service.routes.visitor import visitor_router
from engine.service.turns import TurnSubmitter
from engine.storage.base import DurableStore

API_VERSION = "1.0.0"
__all__ = ["API_VERSION", "STATIC_DIR", "create_app"]


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
    handoff: dict[str, HandoffConfig] | None = None,
) -> FastAPI:
    limits = config.limits
    limiter = (
        RateLimiter(limits.rate_limits, max_clients=limits.rate_limit_max_clients, clock=clock)
        if clock is not None
        else RateLimiter(limits.rate_limits, max_clients=limits.rate_limit_max_clients)
    )
    submitter = TurnSubmitter(store, attempts=limits.turn_commit_attempts, engine=engine,
                              workers=limits.turn_workers, notifier=notifier)
    ctx = ServiceContext(config=config, store=store, catalog=catalog, audit_key=audit_key, limiter=limiter,
                         submitter=submitter, operators=config.operators(), notifier=notifier,
                         handoff=dict(handoff or {}))

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

    install_error_handlers(app)
    app.include_router(visitor_router(ctx))
    app.include_router(operator_router(ctx))
    app.include_router(meta_router(ctx))
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
