"""Fixtures: every storage test runs against SQLite and, when GRACE_TEST_POSTGRES_URL is set, PostgreSQL."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engine.conversation import ConversationState
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

    def open(self) -> DurableStore:
        store: DurableStore
        if self.backend == "sqlite":
            from engine.storage.sqlite import SQLiteStore

            store = SQLiteStore(self.path)
        else:
            from engine.storage.postgres import PostgresStore

            store = PostgresStore(PG_URL, schema=self.schema)
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


@pytest.fixture(params=BACKENDS)
def factory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreFactory]:
    made = StoreFactory(request.param, tmp_path)
    yield made
    made.cleanup()


@pytest.fixture
def store(factory: StoreFactory) -> DurableStore:
    return factory.open()


@pytest.fixture
def make_state() -> Callable[..., ConversationState]:
    def make(conversation_id: str | None = None, **overrides: object) -> ConversationState:
        fields: dict[str, object] = {
            "conversation_id": conversation_id or uuid.uuid4().hex,
            "goal_ref": "demo-goal@v1",
            "goal_hash": "sha256:" + "a" * 64,
            "bundle_hash": "sha256:" + "b" * 64,
            "language": "en",
            "bits": [0, 0, 0, 0],
        }
        fields.update(overrides)
        return ConversationState.model_validate(fields)

    return make
