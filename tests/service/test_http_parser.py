"""The service parses HTTP with uvicorn's httptools protocol (C) instead of h11 (pure Python) and runs uvloop
instead of asyncio's own loop, for CPU per request: held to h11 on asyncio's answers on well-formed requests of
every kind the API answers (found, not found, wrong method, refused bodies, a turn), byte for byte apart from the
Date header and the case of header names, and to the JSON 400 on malformed ones
(tests/service/test_service_hardening.py)."""

from __future__ import annotations

import json
import socket

import pytest
from uvicorn.protocols.http.h11_impl import H11Protocol

from engine.service.server import JsonErrorHttpToolsProtocol, uvicorn_config
from tests.browser.live import LiveServer
from tests.service.helpers import Service


def _exchange(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    status, *fields = head.split(b"\r\n")
    # Header names are case-insensitive (h11 writes the Connection it adds as "Connection"); the date differs.
    named = [name.lower() + b":" + value for name, _, value in (f.partition(b":") for f in fields)]
    return b"\r\n".join([status, *(f for f in named if not f.startswith(b"date:"))]) + b"\r\n\r\n" + body


def _request(method: str, path: str, body: bytes | None = None, content_type: str = "application/json",
             headers: dict[str, str] | None = None) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    if body is not None:
        lines += [f"Content-Type: {content_type}", f"Content-Length: {len(body)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + (body or b"")


def test_the_service_runs_the_c_parser_and_loop() -> None:
    config = uvicorn_config(object())
    assert (config.http, config.loop) == (JsonErrorHttpToolsProtocol, "uvloop")


@pytest.mark.parametrize("factory", ["sqlite"], indirect=True)
def test_httptools_answers_what_h11_answers(service: Service) -> None:
    cid = service.start()
    visitor = service.visitor(cid)
    requests = [
        _request("GET", "/health"),
        _request("GET", "/nowhere"),
        _request("DELETE", "/v1/conversations"),
        _request("POST", f"/v1/conversations/{cid}/turns", b"{", headers=visitor),
        _request("POST", f"/v1/conversations/{cid}/turns", b'{"message": "hi"}', content_type="text/plain",
                 headers=visitor),
        _request("POST", f"/v1/conversations/{cid}/turns", json.dumps({"message": "x" * 40000}).encode(),
                 headers=visitor),
        _request("GET", f"/v1/conversations/{cid}", headers={"X-Visitor-Token": "wrong"}),
        _request("POST", f"/v1/conversations/{cid}/turns", b'{"message": "Hello, my budget is 300,000 euros"}',
                 headers={**visitor, "Idempotency-Key": "same-key"}),
    ]
    with LiveServer(service.app) as ours:
        first = [_exchange(ours.port, r) for r in requests]
    # The turn above committed with its idempotency key: h11 gets its replay, which must be the same bytes but
    # for the replay header.
    with LiveServer(service.app, http=H11Protocol, loop="asyncio") as reference:
        second = [_exchange(reference.port, r) for r in requests]
    assert first[:-1] == second[:-1]
    head, _, body = second[-1].partition(b"\r\n\r\n")
    assert head.count(b"idempotent-replayed: true") == 1
    assert first[-1] == head.replace(b"\r\nidempotent-replayed: true", b"") + b"\r\n\r\n" + body
