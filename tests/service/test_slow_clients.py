"""Slow and greedy clients against a real uvicorn server on loopback (issue 30, defect 10).

Seen failing before the fix: a connection that never finished its headers, or a body it announced, stayed open
(the server never answered and never closed), and one address could hold any number of connections."""

from __future__ import annotations

import socket

from engine.service.server import JsonErrorHttpToolsProtocol
from engine.service.slow_clients import SlowClientLimits
from tests.browser.live import LiveServer
from tests.service.helpers import Service

LIMITS = SlowClientLimits(header_timeout_s=0.5, body_timeout_s=0.5, max_connections_per_address=4)


class _Tight(JsonErrorHttpToolsProtocol):
    limits = LIMITS


class _FewConnections(JsonErrorHttpToolsProtocol):
    limits = SlowClientLimits(header_timeout_s=10, body_timeout_s=10, max_connections_per_address=4)


def _read_all(sock: socket.socket) -> bytes:
    reply = b""
    while chunk := sock.recv(65536):
        reply += chunk
    return reply


def test_unfinished_headers_are_answered_408_and_closed(service: Service) -> None:
    with LiveServer(service.app, http=_Tight) as live, \
            socket.create_connection(("127.0.0.1", live.port), timeout=10) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")  # and then nothing
        reply = _read_all(sock)  # returns only because the server closes the connection
    assert reply.startswith(b"HTTP/1.1 408") and b"http.timeout" in reply


def test_an_unfinished_body_is_answered_408_and_closed(service: Service) -> None:
    with LiveServer(service.app, http=_Tight) as live, \
            socket.create_connection(("127.0.0.1", live.port), timeout=10) as sock:
        cid = service.start()
        sock.sendall(f"POST /v1/conversations/{cid}/turns HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"mess".encode())
        reply = _read_all(sock)
    assert reply.startswith(b"HTTP/1.1 408")


def test_a_silent_connection_is_closed(service: Service) -> None:
    with LiveServer(service.app, http=_Tight) as live, \
            socket.create_connection(("127.0.0.1", live.port), timeout=10) as sock:
        assert _read_all(sock).startswith(b"HTTP/1.1 408")


def test_a_normal_request_is_served(service: Service) -> None:
    with LiveServer(service.app, http=_Tight) as live, \
            socket.create_connection(("127.0.0.1", live.port), timeout=10) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        assert _read_all(sock).startswith(b"HTTP/1.1 200")


def test_one_address_holds_a_bounded_number_of_connections(service: Service) -> None:
    bound = _FewConnections.limits.max_connections_per_address
    with LiveServer(service.app, http=_FewConnections) as live:
        held = [socket.create_connection(("127.0.0.1", live.port), timeout=10) for _ in range(bound)]
        try:
            for sock in held:  # the server has accepted them (each answers a request)
                sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                assert sock.recv(65536).startswith(b"HTTP/1.1 200")
            with socket.create_connection(("127.0.0.1", live.port), timeout=10) as extra:
                try:
                    extra.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    reply = _read_all(extra)
                except ConnectionResetError:  # closed before the request arrived
                    reply = b""
                assert reply == b""  # closed without an answer
        finally:
            for sock in held:
                sock.close()


def test_the_settings_file_is_valid() -> None:
    limits = SlowClientLimits.load()
    assert limits.header_timeout_s > 0 and limits.body_timeout_s > 0 and limits.max_connections_per_address >= 1
