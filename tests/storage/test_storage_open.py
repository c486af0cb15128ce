"""``open_store`` picks the backend from a database URL and refuses anything else with a stable code."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import StoreError
from engine.storage import open_store
from tests.storage.backends import PG_URL


@pytest.mark.parametrize("form", ["sqlite:///{path}", "{path}"])
def test_sqlite_urls(tmp_path: Path, form: str) -> None:
    path = tmp_path / "sub" / "grace.db"
    store = open_store(form.format(path=path))
    try:
        assert store.backend == "sqlite"
        assert path.exists()
    finally:
        store.close()


@pytest.mark.parametrize("url", ["mysql://x/y", "", "sqlite://", ":memory:"])
def test_unsupported_urls(url: str) -> None:
    with pytest.raises(StoreError) as info:
        open_store(url)
    assert info.value.code == "store.url_invalid"


@pytest.mark.postgres
@pytest.mark.skipif(not PG_URL, reason="GRACE_TEST_POSTGRES_URL is not set")
def test_postgres_url() -> None:
    store = open_store(PG_URL, schema="t_open_store")
    try:
        assert store.backend == "postgres"
    finally:
        store.close()
        import psycopg

        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(b'DROP SCHEMA IF EXISTS "t_open_store" CASCADE')


def test_unreachable_postgres_fails_with_a_code() -> None:
    with pytest.raises(StoreError) as info:
        from engine.storage.postgres import PostgresStore

        PostgresStore("postgresql://nobody:x@127.0.0.1:1/none", timeout_s=1.0)
    assert info.value.code == "store.failed"
