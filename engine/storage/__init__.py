"""Durable conversation stores: SQLite (embedded default) and PostgreSQL (several engine processes).

``open_store(url)`` picks the backend from a database URL:

    sqlite:///relative/path.db     relative to the working directory (sqlite:///grace.db -> ./grace.db)
    sqlite:////absolute/path.db    absolute (four slashes), or a bare file path
    postgresql://user:password@host:port/db

With ``audit_key`` the store encrypts each new conversation's personal data under its own data key
(``engine.storage.keyring``); ``synchronous`` ("NORMAL" or "FULL") sets SQLite's durability.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

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


_CREDENTIAL_PARAMETERS = frozenset({"user", "password", "passfile", "sslpassword"})


def postgres_anchor_name(url: str, schema: str | None) -> str:
    """One anchor file per database and schema, named without the URL's credentials. Connection options
    stay in the name because ``options=-csearch_path=...`` selects a schema just as ``schema`` does."""
    parts = urlsplit(url)
    options = sorted((k, v) for k, v in parse_qsl(parts.query) if k not in _CREDENTIAL_PARAMETERS)
    where = f"{parts.hostname or ''}:{parts.port or ''}{parts.path}?{options}#{schema or ''}"
    return f"postgres-{hashlib.sha256(where.encode()).hexdigest()[:16]}.anchor"


def open_store(
    url: str, *, schema: str | None = None, audit_key: bytes | None = None, synchronous: str = "NORMAL",
    slow_commit_ms: float | None = None, anchor_dir: Path | None = None,
) -> DurableStore:
    """Open (and migrate) the store named by ``url``. PostgreSQL is imported only when asked for.
    ``slow_commit_ms``: PostgreSQL logs each turn commit slower than this with its phases (None: never).
    ``anchor_dir``: the folder where a PostgreSQL store keeps this host's rollback anchor (spec/adr/0007;
    SQLite keeps its anchor beside the database file)."""
    if url.startswith(("postgresql://", "postgres://")):
        from engine.storage.postgres import PostgresStore

        anchor = anchor_dir / postgres_anchor_name(url, schema) if anchor_dir is not None else None
        return PostgresStore(url, schema=schema, audit_key=audit_key, slow_commit_ms=slow_commit_ms,
                             anchor_path=anchor)
    if "://" in url and not url.startswith("sqlite://"):
        raise errors.StoreError(f"unsupported database URL scheme in {url.split('://')[0]!r}", code=errors.URL_INVALID)
    if not url.strip():
        raise errors.StoreError("empty database URL", code=errors.URL_INVALID)
    return SQLiteStore(sqlite_path(url), audit_key=audit_key, synchronous=synchronous)


__all__ = ["ConversationSummary", "DurableStore", "IdempotencyEntry", "SQLiteStore", "open_store"]
