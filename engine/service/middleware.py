"""ASGI middleware that refuses bad request bodies before any route sees them.

* bodies above ``max_body_bytes`` -> 413 ``input.too_large`` (checked on Content-Length and while reading);
* a body on a JSON route without ``application/json`` -> 415 ``input.unsupported_media_type``;
* a JSON body that is not UTF-8 -> 400 ``input.binary``.
The body is buffered (it is small by construction) and replayed to the app.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import structlog

log = structlog.get_logger("engine.service.middleware")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


async def send_error(send: Send, status: int, code: str, message: str) -> None:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


class BodyGuard:
    def __init__(self, app: ASGIApp, *, max_body_bytes: int, json_prefix: str = "/v1/") -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.json_prefix = json_prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") not in _BODY_METHODS:
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        length = headers.get("content-length")
        if length is not None and not length.isdigit():
            await send_error(send, 400, "input.malformed", "Content-Length is not a number")
            return
        if length is not None and int(length) > self.max_body_bytes:
            await self._refuse_size(send, scope)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body_bytes:
                await self._refuse_size(send, scope)
                return
            chunks.append(chunk)
            more = bool(message.get("more_body", False))
        body = b"".join(chunks)
        if scope.get("path", "").startswith(self.json_prefix) and body:
            media = headers.get("content-type", "").split(";")[0].strip().lower()
            if media != "application/json":
                await send_error(send, 415, "input.unsupported_media_type", "send the body as application/json")
                return
            try:
                body.decode("utf-8")
            except UnicodeDecodeError:
                log.info("service.request.refused", code="input.binary", path=scope.get("path"))
                await send_error(send, 400, "input.binary", "request body is not UTF-8 text")
                return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse_size(self, send: Send, scope: Scope) -> None:
        log.info("service.request.refused", code="input.too_large", path=scope.get("path"))
        await send_error(send, 413, "input.too_large", f"request body larger than {self.max_body_bytes} bytes")
