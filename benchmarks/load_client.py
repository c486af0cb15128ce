"""A small asyncio HTTP/1.1 client for the load benchmark: keep-alive connections to one loopback server.

Why not httpx: at a few hundred requests per second its per-request Python cost competes with the servers for
the same cores; this client only writes a request and reads a ``Content-Length`` body. A request that finds
its reused connection closed by the server (keep-alive timeout) is sent once more on a new connection, which
is safe here because every turn carries an Idempotency-Key.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

KEEP_ALIVE_S = 4.0  # below uvicorn's default keep-alive timeout (5 s): never race the server closing it


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes
    port: int = 0  # the client's local port of the connection it came on (which worker: see load_trace)

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None

    def error_code(self) -> str:
        try:
            return str(self.json()["error"]["code"])
        except (ValueError, KeyError, TypeError):
            return f"http.{self.status}"


class _Conn:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.used = False
        self.idle_since = 0.0
        sockname = writer.get_extra_info("sockname")
        self.port = int(sockname[1]) if sockname else 0

    def close(self) -> None:
        self.writer.close()


REUSE = ("visitor", "lifo", "fifo")


class Pool:
    """Up to ``size`` keep-alive connections to ``host:port``; callers beyond that wait for a free one.

    ``reuse`` picks the idle connection a request goes out on: ``fifo`` the one idle longest (round robin over
    the pool), ``lifo`` the one used last. With several workers on one port the kernel assigns each
    *connection* to a worker when it is opened (SO_REUSEPORT), so which connections carry the requests decides
    which worker serves them: at a few requests in flight ``lifo`` keeps reusing the same handful of
    connections and sent 89% of the turns to one of two workers; ``fifo`` spreads the requests over every
    connection (with ``fill``, so that there are enough connections to spread over), but each worker then
    serves the share of the pool's connections the kernel gave it (36% and 64% of 64 in one run).
    ``visitor`` is what separate visitors' browsers do: each conversation (the ``key`` of a request) keeps a
    keep-alive connection of its own, reused while it is fresh (``KEEP_ALIVE_S``) and reopened after, so the
    kernel spreads conversations, not a few shared connections, over the workers.
    """

    def __init__(self, host: str, port: int, size: int, reuse: str = "lifo") -> None:
        if reuse not in REUSE:
            raise ValueError(f"reuse must be one of {REUSE}, got {reuse!r}")
        self.host = host
        self.port = port
        self._idle: deque[_Conn] = deque()
        self._slots = asyncio.Semaphore(size)
        self._size = size
        self._fifo = reuse == "fifo"
        self._per_key: dict[str, _Conn] | None = {} if reuse == "visitor" else None

    async def fill(self) -> None:
        """Open idle connections up to the pool's size (connections are otherwise opened on demand only, and a
        few in flight at a time would never open more than a few, all possibly on one worker)."""
        missing = self._size - len(self._idle)
        opened = await asyncio.gather(*(self._open() for _ in range(missing)))
        now = time.monotonic()
        for conn in opened:
            conn.used = True  # idle on the server's side too: a failed first request there gets one fresh retry
            conn.idle_since = now
            self._idle.append(conn)

    async def _open(self) -> _Conn:
        reader, writer = await asyncio.open_connection(self.host, self.port)
        return _Conn(reader, writer)

    async def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
        key: str | None = None,
    ) -> Reply:
        payload = b"" if body is None else json.dumps(body).encode()
        lines = [f"{method} {path} HTTP/1.1", f"host: {self.host}:{self.port}", f"content-length: {len(payload)}"]
        if body is not None:
            lines.append("content-type: application/json")
        lines.extend(f"{k}: {v}" for k, v in (headers or {}).items())
        raw = ("\r\n".join(lines) + "\r\n\r\n").encode() + payload
        async with self._slots:
            for attempt in (1, 2):
                # The retry always opens a new connection: the next idle one may have been closed too.
                conn = self._reuse(key) if attempt == 1 else None
                conn = conn or await self._open()
                reused = conn.used
                try:
                    conn.writer.write(raw)
                    reply, keep = await _read_reply(conn.reader)
                except (ConnectionError, asyncio.IncompleteReadError, OSError):
                    conn.close()
                    if reused and attempt == 1:
                        continue  # the server closed an idle keep-alive connection: one fresh try
                    raise
                except BaseException:
                    conn.close()  # cancelled (timeout) mid-reply: the connection's state is unknown
                    raise
                conn.used = True
                reply = Reply(reply.status, reply.body, conn.port)
                if keep:
                    conn.idle_since = time.monotonic()
                    if self._per_key is not None and key is not None:
                        stale = self._per_key.pop(key, None)
                        if stale is not None:
                            stale.close()
                        self._per_key[key] = conn
                    else:
                        self._idle.append(conn)
                else:
                    conn.close()
                return reply
        raise ConnectionError("unreachable")  # pragma: no cover - the loop returns or raises

    def _reuse(self, key: str | None = None) -> _Conn | None:
        """The next idle connection in ``reuse`` order (``visitor``: the key's own, if any), dropping those the
        server is about to time out."""
        now = time.monotonic()
        if self._per_key is not None and key is not None:
            own = self._per_key.pop(key, None)
            if own is not None and now - own.idle_since < KEEP_ALIVE_S:
                return own
            if own is not None:
                own.close()
            return None
        while self._idle:
            conn = self._idle.popleft() if self._fifo else self._idle.pop()
            if now - conn.idle_since < KEEP_ALIVE_S:
                return conn
            conn.close()
        return None

    def close(self) -> None:
        for conn in [*self._idle, *(self._per_key or {}).values()]:
            conn.close()
        self._idle.clear()
        if self._per_key is not None:
            self._per_key.clear()


async def _read_reply(reader: asyncio.StreamReader) -> tuple[Reply, bool]:
    head = await reader.readuntil(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    status = int(status_line.split(" ", 2)[1])
    headers = {}
    for line in header_lines:
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = await _read_chunked(reader)
    else:
        body = await reader.readexactly(int(headers.get("content-length", "0")))
    return Reply(status, body), headers.get("connection", "").lower() != "close"


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    parts: list[bytes] = []
    while True:
        size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
        if size == 0:
            await reader.readuntil(b"\r\n")
            return b"".join(parts)
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)
