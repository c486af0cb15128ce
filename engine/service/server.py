"""The uvicorn settings every GRACE server runs with (``grace serve`` and the test servers).

* ``proxy_headers=False``: uvicorn would otherwise replace the client address with the leftmost
  ``X-Forwarded-For`` entry for loopback peers, so any local client could re-key the rate limiter. The app
  reads that header itself, and only when ``GRACE_TRUST_FORWARDED=1`` says a trusted proxy sets it.
* ``log_config=None``: uvicorn installs no handlers of its own; its error and access loggers propagate to
  the root logger, which ``audit.logging.configure_logging`` points at the redacting formatter.
* HTTP requests too malformed to reach the app (bad request line, bad header) still get the JSON error
  body every other error has, not uvicorn's plain-text one.
* ``http``: uvicorn's httptools protocol (llhttp, C): parsing a request and writing its response on the event
  loop's thread cost about 0.5 ms more CPU per turn with the pure-Python h11 parser
  (benchmarks/service_cpu.py).
* ``loop``: uvloop (libuv, C) rather than asyncio's pure-Python loop: about 0.2 ms less CPU per turn in the
  event loop's wake-ups from the request threads and its socket work (benchmarks/service_cpu_ab.py).
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from engine.service.slow_clients import TIMEOUT_REPLY, SlowClientLimits

MALFORMED = {"error": {"code": "http.malformed", "message": "the HTTP request could not be parsed"}}
_MALFORMED_BODY = json.dumps(MALFORMED).encode()
_MALFORMED_REPLY = b"".join([
    b"HTTP/1.1 400 Bad Request\r\n",
    b"content-type: application/json\r\n",
    b"connection: close\r\n",
    b"content-length: " + str(len(_MALFORMED_BODY)).encode("ascii") + b"\r\n",
    b"\r\n",
    _MALFORMED_BODY,
])


class JsonErrorHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a JSON 400, and the slow-client guards of ``slow_clients.json``: headers
    must be complete ``header_timeout_s`` after the connection opens (or the previous response ends), a body
    ``body_timeout_s`` after its headers; one address holds at most ``max_connections_per_address`` connections.
    A subclass with other ``limits`` serves other settings (tests)."""

    limits: ClassVar[SlowClientLimits] = SlowClientLimits.load()
    _open_by_address: ClassVar[dict[str, int]] = {}  # open connections per client address (one event loop)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._read_timer: asyncio.TimerHandle | None = None
        self._address = self.client[0] if self.client else ""
        counts = JsonErrorHttpToolsProtocol._open_by_address
        counts[self._address] = counts.get(self._address, 0) + 1
        if counts[self._address] > self.limits.max_connections_per_address:
            self.transport.close()  # refused before anything is read
            return
        self._arm(self.limits.header_timeout_s)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        counts = JsonErrorHttpToolsProtocol._open_by_address
        left = counts.get(self._address, 1) - 1
        if left > 0:
            counts[self._address] = left
        else:
            counts.pop(self._address, None)
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._read_timer is None:  # a next request on a kept-alive connection: its headers are timed too
            self._arm(self.limits.header_timeout_s)

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()
        self._arm(self.limits.body_timeout_s)

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._read_timer = self.loop.call_later(seconds, self._too_slow)

    def _disarm(self) -> None:
        timer = getattr(self, "_read_timer", None)
        if timer is not None:
            timer.cancel()
            self._read_timer = None

    def _too_slow(self) -> None:
        self._read_timer = None
        if self.transport.is_closing():
            return
        if self.cycle is not None and not self.cycle.response_complete and not self.cycle.more_body:
            return  # the request is complete and being answered: not a slow client
        if self.cycle is None or not self.cycle.response_complete:
            self.transport.write(TIMEOUT_REPLY)
        self.transport.close()

    def send_400_response(self, msg: str) -> None:  # uvicorn's message is not shown: it can quote the request
        self.transport.write(_MALFORMED_REPLY)
        self.transport.close()


def uvicorn_config(app: Any, **overrides: Any) -> uvicorn.Config:
    settings: dict[str, Any] = {
        "log_level": "warning",
        "access_log": False,
        "proxy_headers": False,
        "log_config": None,
        "http": JsonErrorHttpToolsProtocol,
        "loop": "uvloop",
    }
    settings.update(overrides)
    return uvicorn.Config(app, **settings)


class GracefulServer(uvicorn.Server):
    """uvicorn's server, telling the app when shutdown starts: ``/ready`` answers 503 from then on, so a load
    balancer stops routing here while the in-flight turns finish (uvicorn waits for them up to
    ``timeout_graceful_shutdown``, then the process exits)."""

    def __init__(self, config: uvicorn.Config, on_started: Callable[[], None] | None = None) -> None:
        super().__init__(config)
        self.on_started = on_started
        self.stop_pending = False  # a stop signal that came before uvicorn's own handlers were in place

    def request_stop(self, signum: int, frame: object) -> None:
        """The process's stop-signal handler until uvicorn installs its own: remembered, acted on at start-up."""
        self.stop_pending = True

    async def startup(self, sockets: Sequence[socket.socket] | None = None) -> None:
        await super().startup(sockets=list(sockets) if sockets is not None else None)
        # uvicorn's signal handlers are in place from here: a stop signal sent by whoever read "ready" below
        # shuts the server down gracefully (printed earlier, a signal in the gap was lost and the process was
        # killed after the supervisor's timeout).
        if self.stop_pending:
            self._drain()
            self.should_exit = True
        elif self.on_started is not None:
            self.on_started()

    def handle_exit(self, sig: int, frame: Any) -> None:
        self._drain()
        super().handle_exit(sig, frame)

    def _drain(self) -> None:
        state = getattr(self.config.app, "state", None)
        if state is not None:
            state.draining = True
