"""Listening sockets for ``grace serve``.

One worker listens on one socket. Several workers each listen on a socket of their own bound to the same port
with ``SO_REUSEPORT`` (Linux), so the kernel spreads new connections over the workers. Sharing one inherited
listening socket instead was measured to send every connection to one worker: asyncio accepts up to its whole
backlog per wake-up, so whichever worker wakes first takes every pending connection, and keep-alive
connections then stay there (load benchmark, 2 workers: 304 of 304 turns on one process). Where
``SO_REUSEPORT`` does not balance (not Linux) the shared socket remains the fallback.

Every listening socket is made with ``IPPROTO_TCP`` as its protocol: asyncio turns Nagle's algorithm off
(``TCP_NODELAY``) on accepted connections only when the socket says it is TCP, and a plain
``socket.socket(AF_INET, SOCK_STREAM)`` says protocol 0. With Nagle on, uvicorn's two writes per response
(head, then body) met the client's delayed ACK on a kept-alive connection: measured as 40 ms between the
worker finishing a response and the client reading it (median of a load benchmark step).

The supervisor reserves the port with a bound socket that never listens: it holds the port (``--port 0``
picks it once for all workers) and receives no connections, since only listening sockets join the group.
"""

from __future__ import annotations

import socket
import sys


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def reuse_port_balances() -> bool:
    """Whether per-worker sockets on one port get connections spread by the kernel (Linux >= 3.9)."""
    return sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


def _bound(host: str, port: int, *, reuse_port: bool) -> socket.socket:
    sock = socket.socket(_family(host), socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # inherited by accepted sockets on Linux
        if reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def listen(host: str, port: int, *, backlog: int = 128) -> socket.socket:
    """One listening socket (one worker, or the shared socket every worker inherits)."""
    sock = _bound(host, port, reuse_port=False)
    sock.listen(backlog)
    sock.set_inheritable(True)
    return sock


def reserve(host: str, port: int) -> socket.socket:
    """A bound, never-listening ``SO_REUSEPORT`` socket holding the port for the workers' own sockets."""
    return _bound(host, port, reuse_port=True)


def listen_shared_port(host: str, port: int, *, backlog: int = 128) -> socket.socket:
    """A worker's own listening socket on the reserved port; call it once the worker is ready to serve, so
    the kernel never queues a connection on a worker that is still warming up."""
    sock = _bound(host, port, reuse_port=True)
    sock.listen(backlog)
    return sock
