"""Storage backends for tests: SQLite always; PostgreSQL when GRACE_TEST_POSTGRES_URL is set (CI sets it)."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from engine.storage.base import DurableStore

PG_URL = os.environ.get("GRACE_TEST_POSTGRES_URL", "")

BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param(
        "postgres",
        id="postgres",
        marks=[
            pytest.mark.postgres,
            pytest.mark.skipif(not PG_URL, reason="GRACE_TEST_POSTGRES_URL is not set"),
        ],
    ),
]


class StoreFactory:
    """Opens stores on one fresh database (a file for SQLite, a schema for PostgreSQL)."""

    def __init__(self, backend: str, tmp_path: Path) -> None:
        self.backend = backend
        self.path = tmp_path / "grace.db"
        self.schema = f"t_{uuid.uuid4().hex[:16]}"
        self.opened: list[DurableStore] = []

    @property
    def url(self) -> str:
        return f"sqlite:///{self.path}" if self.backend == "sqlite" else PG_URL

    def open(self, audit_key: bytes | None = None, *, anchor: bool = False) -> DurableStore:
        """A store on this database; with ``audit_key`` new conversations are encrypted (as in the service).
        ``anchor``: PostgreSQL keeps a rollback anchor in this test's folder, as ``grace serve`` does in its data
        folder (SQLite always keeps one beside its file)."""
        store: DurableStore
        if self.backend == "sqlite":
            from engine.storage.sqlite import SQLiteStore

            store = SQLiteStore(self.path, audit_key=audit_key)
        else:
            from engine.storage.postgres import PostgresStore

            anchor_path = self.path.with_name("postgres.anchor") if anchor else None
            store = PostgresStore(PG_URL, schema=self.schema, audit_key=audit_key, anchor_path=anchor_path)
        self.opened.append(store)
        return store

    def execute_raw(self, sql: str) -> None:
        """Run SQL around the application (what an attacker or a careless admin could do)."""
        if self.backend == "sqlite":
            import sqlite3

            with sqlite3.connect(self.path) as conn:
                conn.execute(sql)
        else:
            import psycopg

            with psycopg.connect(PG_URL, autocommit=True, options=f"-c search_path={self.schema}") as conn:
                conn.execute(sql.encode())

    def cleanup(self) -> None:
        for store in self.opened:
            store.close()
        if self.backend == "postgres":
            import psycopg

            with psycopg.connect(PG_URL, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE'.encode())
