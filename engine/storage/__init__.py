"""Durable conversation stores: SQLite (embedded default) and PostgreSQL (several engine processes).

``open_store(url)`` picks the backend from a database URL:

    sqlite:///relative/or/absolute/path.db   (or a bare file path)
    postgresql://user:password@host:port/db
"""

from __future__ import annotations

from pathlib import Path

from engine.storage import errors
from engine.storage.base import ConversationSummary, DurableStore, IdempotencyEntry
from engine.storage.sqlite import SQLiteStore


def open_store(url: str, *, schema: str | None = None) -> DurableStore:
    """Open (and migrate) the store named by ``url``. PostgreSQL is imported only when asked for."""
    if url.startswith(("postgresql://", "postgres://")):
        from engine.storage.postgres import PostgresStore

        return PostgresStore(url, schema=schema)
    if url.startswith("sqlite://"):
        path = url.removeprefix("sqlite://")
        # sqlite:///abs/path -> /abs/path ; sqlite://rel/path -> rel/path
        path = path[1:] if path.startswith("//") else path
        if not path:
            raise errors.StoreError("sqlite URL has no file path", code=errors.URL_INVALID)
        return SQLiteStore(Path(path))
    if "://" in url:
        raise errors.StoreError(f"unsupported database URL scheme in {url.split('://')[0]!r}", code=errors.URL_INVALID)
    if not url.strip():
        raise errors.StoreError("empty database URL", code=errors.URL_INVALID)
    return SQLiteStore(Path(url))


__all__ = ["ConversationSummary", "DurableStore", "IdempotencyEntry", "SQLiteStore", "open_store"]
