"""``open_store`` picks the backend from a database URL and refuses anything else with a stable code."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import StoreError
from engine.storage import open_store, sqlite_path
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


@pytest.mark.parametrize(
    ("url", "relative"),
    [
        ("sqlite:///grace.db", "grace.db"),
        ("sqlite:///.grace/grace.db", ".grace/grace.db"),
        ("sqlite://data/grace.db", "data/grace.db"),
        ("grace.db", "grace.db"),
    ],
)
def test_relative_sqlite_urls_are_relative_to_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str, relative: str
) -> None:
    monkeypatch.chdir(tmp_path)
    assert sqlite_path(url) == Path(relative)
    store = open_store(url)
    try:
        assert (tmp_path / relative).exists()
    finally:
        store.close()


def test_four_slashes_is_absolute(tmp_path: Path) -> None:
    assert sqlite_path(f"sqlite:///{tmp_path}/x.db") == tmp_path / "x.db"
    assert sqlite_path(f"sqlite:///{tmp_path}/x.db").is_absolute()


def test_serve_data_dir_defaults_inside_the_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.cli import build_parser
    from engine.service.runner import storage_location

    monkeypatch.delenv("GRACE_DATABASE_URL", raising=False)
    for checkout in ("a", "b"):
        (tmp_path / checkout).mkdir()
        monkeypatch.chdir(tmp_path / checkout)
        data_dir, url = storage_location(build_parser().parse_args(["serve", "--demo"]))
        assert data_dir == tmp_path / checkout / ".grace" and data_dir.is_dir()
        assert sqlite_path(url) == data_dir / "grace.db"  # absolute, inside this checkout: never shared


def test_synchronous_setting(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path}/s.db", synchronous="FULL")
    try:
        assert store._conn().execute("PRAGMA synchronous").fetchone()[0] == 2  # type: ignore[attr-defined]
    finally:
        store.close()
    with pytest.raises(StoreError) as info:
        open_store(f"sqlite:///{tmp_path}/s.db", synchronous="OFF")
    assert info.value.code == "store.url_invalid"


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
