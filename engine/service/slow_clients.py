"""Slow and greedy clients: header and body read timeouts, and a bound on open connections per client address.

uvicorn's keep-alive timeout only covers the idle time between requests: a client that opens a connection and sends
its headers one byte a minute (or never finishes a body it announced) held a connection, a socket and parser state
forever (330 such connections stayed open). The limits are data: ``slow_clients.json``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import jsonschema

from engine.service.errors import LimitsError

SETTINGS = Path(__file__).with_name("slow_clients.json")


@dataclass(frozen=True)
class SlowClientLimits:
    header_timeout_s: float
    body_timeout_s: float
    max_connections_per_address: int

    @classmethod
    def load(cls, path: Path = SETTINGS) -> SlowClientLimits:
        data = json.loads(path.read_text(encoding="utf-8"))
        schema = json.loads(path.with_name("slow_clients.schema.json").read_text(encoding="utf-8"))
        try:
            jsonschema.validate(data, schema)
        except jsonschema.ValidationError as exc:
            raise LimitsError(f"{path.name}: {exc.message}", code="service.slow_clients_invalid") from None
        return cls(float(data["header_timeout_s"]), float(data["body_timeout_s"]),
                   int(data["max_connections_per_address"]))


_TIMEOUT_BODY = json.dumps({"error": {"code": "http.timeout",
                                      "message": "the request was not received in time"}}).encode()
TIMEOUT_REPLY = b"".join([
    b"HTTP/1.1 408 Request Timeout\r\n",
    b"content-type: application/json\r\n",
    b"connection: close\r\n",
    b"content-length: " + str(len(_TIMEOUT_BODY)).encode("ascii") + b"\r\n",
    b"\r\n",
    _TIMEOUT_BODY,
])
