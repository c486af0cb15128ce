"""The test suite runs offline: connections beyond loopback fail at once, loopback keeps working."""

from __future__ import annotations

import socket
import threading

import pytest

from tests.support.no_network import NetworkBlocked, is_loopback


@pytest.mark.parametrize("host", ["93.184.216.34", "2606:2800:220:1::1", "example.org", "10.0.0.1"])
def test_a_connection_beyond_loopback_is_refused(host: str) -> None:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock, pytest.raises(NetworkBlocked, match="offline"):
        sock.connect((host, 443))


def test_create_connection_is_refused_too() -> None:
    with pytest.raises(NetworkBlocked):
        socket.create_connection(("203.0.113.7", 80), timeout=1)


def test_loopback_still_connects() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        accepted = threading.Thread(target=lambda: server.accept()[0].close())
        accepted.start()
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass
        accepted.join(5)


@pytest.mark.parametrize(("host", "loopback"), [("127.0.0.1", True), ("127.8.9.1", True), ("::1", True),
                                                ("[::1]", True), ("localhost", True), ("0.0.0.0", True),
                                                ("8.8.8.8", False), ("localhost.evil.example", False), (None, False)])
def test_loopback_recognition(host: object, loopback: bool) -> None:
    assert is_loopback(host) is loopback
