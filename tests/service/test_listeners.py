"""Per-worker listening sockets on one reserved port (engine/service/listeners.py)."""

from __future__ import annotations

import concurrent.futures
import socket
import sys
import time

import pytest

from engine.service import listeners


def _accepted(sock: socket.socket) -> int:
    sock.setblocking(False)
    count = 0
    while True:
        try:
            conn, _ = sock.accept()
        except BlockingIOError:
            return count
        conn.close()
        count += 1


@pytest.mark.skipif(not listeners.reuse_port_balances(), reason="SO_REUSEPORT balances on Linux only")
def test_the_reserved_port_spreads_connections_over_workers_and_never_takes_one() -> None:
    reserved = listeners.reserve("127.0.0.1", 0)
    port = reserved.getsockname()[1]
    workers = [listeners.listen_shared_port("127.0.0.1", port) for _ in range(2)]
    clients = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(40)]
    try:
        for client in clients:
            client.sendall(b"x")  # the handshake is done once the kernel queued the connection
        counts = [0, 0]
        for _ in range(50):  # queued asynchronously: collect until all 40 are accounted for
            counts = [a + _accepted(w) for a, w in zip(counts, workers, strict=True)]
            if sum(counts) == len(clients):
                break
            time.sleep(0.01)
        assert sum(counts) == len(clients)
        assert min(counts) > 0, counts  # all 40 on one of two: p = 2**-39 if spread at random
        reserved.setblocking(False)
        with pytest.raises(OSError):
            reserved.accept()  # never listened: no connection can wait there
    finally:
        for sock in [*clients, *workers, reserved]:
            sock.close()


@pytest.mark.skipif(not listeners.reuse_port_balances(), reason="SO_REUSEPORT balances on Linux only")
def test_a_worker_that_stops_leaves_the_port_to_the_others() -> None:
    reserved = listeners.reserve("127.0.0.1", 0)
    port = reserved.getsockname()[1]
    first, second = (listeners.listen_shared_port("127.0.0.1", port) for _ in range(2))
    first.close()
    clients = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(8)]
    try:
        seen = 0
        for _ in range(50):
            seen += _accepted(second)
            if seen == len(clients):
                break
            time.sleep(0.01)
        assert seen == len(clients)
    finally:
        for sock in [*clients, second, reserved]:
            sock.close()


def test_a_port_in_use_is_refused() -> None:
    taken = listeners.listen("127.0.0.1", 0)
    try:
        with pytest.raises(OSError):
            listeners.listen("127.0.0.1", taken.getsockname()[1])
        if sys.platform.startswith("linux"):
            with pytest.raises(OSError):  # a plain listener holds the port: no reuse-port socket may join it
                listeners.reserve("127.0.0.1", taken.getsockname()[1])
    finally:
        taken.close()


def test_accepted_connections_have_nagle_off() -> None:
    # uvicorn writes a response's head and body separately; with Nagle on, the body waited for the client's
    # delayed ACK (40 ms) on kept-alive connections.
    import asyncio

    async def accepted_nodelay(sock: socket.socket) -> int:
        seen: list[int] = []

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            seen.append(writer.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        server = await asyncio.start_server(handle, sock=sock)
        _, writer = await asyncio.open_connection("127.0.0.1", sock.getsockname()[1])
        for _ in range(100):
            if seen:
                break
            await asyncio.sleep(0.01)
        writer.close()
        server.close()
        await server.wait_closed()
        return seen[0]

    def nodelay_of(sock: socket.socket) -> int:
        # its own thread: another test in this worker (Playwright's sync API) may leave an event loop running
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, accepted_nodelay(sock)).result(timeout=30)

    assert nodelay_of(listeners.listen("127.0.0.1", 0)) != 0
    if listeners.reuse_port_balances():
        reserved = listeners.reserve("127.0.0.1", 0)
        try:
            assert nodelay_of(listeners.listen_shared_port("127.0.0.1", reserved.getsockname()[1])) != 0
        finally:
            reserved.close()
