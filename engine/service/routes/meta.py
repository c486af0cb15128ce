"""Health and readiness, the landing page, the demo widget pages, the operator console and static files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse

from engine.service import pages
from engine.service.context import ServiceContext
from engine.service.readiness import readiness
from engine.service.schemas import Health, Liveness, ReadyOut

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"


def meta_router(ctx: ServiceContext) -> APIRouter:
    router = APIRouter()
    store, catalog = ctx.store, ctx.catalog

    @router.get("/healthz", response_model=Health, tags=["meta"], summary="Liveness")
    def health() -> Health:
        return Health(status="ok", store=store.backend, goals=catalog.refs())

    @router.get("/health", response_model=Liveness, tags=["meta"], summary="Liveness: the process answers")
    def liveness() -> Liveness:
        return Liveness(status="ok")

    @router.get(
        "/ready",
        response_model=ReadyOut,
        responses={503: {"model": ReadyOut, "description": "Not ready: draining, store unreachable, or warming"}},
        tags=["meta"],
        summary="Readiness: store reachable, rule bundle verified, models loaded, not shutting down",
    )
    def ready(request: Request) -> JSONResponse:
        state = request.app.state
        result = readiness(store=store, catalog=catalog, warmed=bool(state.warmed), draining=bool(state.draining))
        body = ReadyOut(ready=result.ready, checks=result.checks, code=result.code, message=result.message)
        return JSONResponse(body.model_dump(), status_code=200 if result.ready else 503)

    @router.get("/", include_in_schema=False)
    def index() -> HTMLResponse:
        return pages.html(pages.index_page(catalog))

    @router.get("/demo/{goal}", include_in_schema=False)
    def demo_page(goal: str, lang: Annotated[str | None, Query(pattern=r"^[a-z]{2,3}$")] = None) -> HTMLResponse:
        served = catalog.resolve(goal)
        return pages.html(pages.demo_page(served, lang or served.published.spec.default_language))

    @router.get("/console", include_in_schema=False)
    def console() -> FileResponse:
        return FileResponse(STATIC_DIR / "console.html", headers=pages.CONSOLE_HEADERS)

    @router.get("/favicon.ico", include_in_schema=False)
    def favicon() -> RedirectResponse:
        return RedirectResponse("/static/favicon.svg")

    return router
