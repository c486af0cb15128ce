"""Tests never reach the network: any socket connection to a non-loopback address fails at once.

Loopback stays open because the service, PostgreSQL and a local LLM server are real components the tests run on
this machine. Unix sockets are untouched. A blocked attempt raises ``NetworkBlocked`` naming the address, so a test
that silently depended on the internet fails where it tries.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Any

_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}


class NetworkBlocked(RuntimeError):
    """A test tried to open a connection beyond this machine."""


def is_loopback(host: object) -> bool:
    if not isinstance(host, str):
        return False
    name = host.strip("[]").lower()
    if name in _LOOPBACK_NAMES:
        return True
    try:
        ip = ipaddress.ip_address(name.split("%", 1)[0])
    except ValueError:
        return False
    return ip.is_loopback or ip.is_unspecified  # connecting to 0.0.0.0 / :: reaches this machine


def _guard(address: Any) -> None:
    if isinstance(address, tuple) and address and not is_loopback(address[0]):
        raise NetworkBlocked(f"tests are offline: connection to {address[0]}:{address[1]} refused")


_original_connect = socket.socket.connect
_original_connect_ex = socket.socket.connect_ex


def _connect(self: socket.socket, address: Any) -> None:
    if self.family in (socket.AF_INET, socket.AF_INET6):
        _guard(address)
    _original_connect(self, address)


def _connect_ex(self: socket.socket, address: Any) -> int:
    if self.family in (socket.AF_INET, socket.AF_INET6):
        _guard(address)
    return _original_connect_ex(self, address)


def install() -> None:
    """Block non-loopback connections for this process (idempotent)."""
    socket.socket.connect = _connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _connect_ex  # type: ignore[method-assign]
