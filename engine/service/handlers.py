"""Every error the API answers is JSON ``{"error": {"code": <stable dotted code>, "message": <one line>}}``."""

from __future__ import annotations

import sys
from typing import Any

import structlog
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from engine.errors import GraceError, StoreError
from engine.service.errors import AuthError, RateLimitError, status_for

log = structlog.get_logger("engine.service")


def _error(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status, headers=headers)


def _log_safely(event: str, **fields: Any) -> None:
    """Error handlers must answer even when the logging pipeline itself is what failed."""
    try:
        log.error(event, **fields)
    except Exception:
        print(f"{event} {fields}", file=sys.stderr)


def install_error_handlers(app: FastAPI) -> None:
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
