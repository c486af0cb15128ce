"""Durable conversation stores: SQLite (embedded default) and PostgreSQL (several engine processes).

``open_store(url)`` picks the backend from a database URL:

    sqlite:///relative/path.db     relative to the working directory (sqlite:///grace.db -> ./grace.db)
    sqlite:////absolute/path.db    absolute (four slashes), or a bare file path
    postgresql://user:password@host:port/db

With ``audit_key`` the store encrypts each new conversation's personal data under its own data key
(``engine.storage.keyring``); ``synchronous`` ("NORMAL" or "FULL") sets SQLite's durability.
"""

from __future__ import annotations

from pathlib import Path

from engine.storage import errors
from engine.storage.base import ConversationSummary, DurableStore, IdempotencyEntry
from engine.storage.sqlite import SQLiteStore


def sqlite_path(url: str) -> Path:
    """The file a ``sqlite://`` URL (or bare path) names; relative paths stay relative to the working directory."""
    path = url.removeprefix("sqlite://") if url.startswith("sqlite://") else url
    # sqlite:///rel/path -> rel/path ; sqlite:////abs/path -> /abs/path ; sqlite://rel/path -> rel/path
    path = path[1:] if url.startswith("sqlite://") and path.startswith("/") else path
    if not path.strip():
        raise errors.StoreError("sqlite URL has no file path", code=errors.URL_INVALID)
    return Path(path)


def open_store(
    url: str, *, schema: str | None = None, audit_key: bytes | None = None, synchronous: str = "NORMAL",
    slow_commit_ms: float | None = None,
) -> DurableStore:
    """Open (and migrate) the store named by ``url``. PostgreSQL is imported only when asked for.
    ``slow_commit_ms``: PostgreSQL logs each turn commit slower than this with its phases (None: never)."""
    if url.startswith(("postgresql://", "postgres://")):
        from engine.storage.postgres import PostgresStore

        return PostgresStore(url, schema=schema, audit_key=audit_key, slow_commit_ms=slow_commit_ms)
    if "://" in url and not url.startswith("sqlite://"):
        raise errors.StoreError(f"unsupported database URL scheme in {url.split('://')[0]!r}", code=errors.URL_INVALID)
    if not url.strip():
        raise errors.StoreError("empty database URL", code=errors.URL_INVALID)
    return SQLiteStore(sqlite_path(url), audit_key=audit_key, synchronous=synchronous)


__all__ = ["ConversationSummary", "DurableStore", "IdempotencyEntry", "SQLiteStore", "open_store"]
