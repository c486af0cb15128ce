"""Tamper and rollback over HTTP (issue 30, defects 3 and 4).

Seen failing before the fix: an edited ``state_bits`` column verified ok (and the console listed it); after a
record was deleted or two were swapped the next turn was accepted with 200; an edited stored state answered 500;
a database restored from an older copy was opened and verified ok, and a retried Idempotency-Key ran a fresh turn.
"""

from __future__ import annotations

import shutil
import sqlite3

import pytest

from engine.errors import IntegrityError
from engine.storage.sqlite import SQLiteStore
from tests.service.helpers import AUDIT_KEY, Service, make_service
from tests.storage.backends import StoreFactory
from tests.storage.sealing import drop_append_only, raw, write_state


def _verify(service: Service, cid: str) -> dict[str, object]:
    response = service.client.get(f"/v1/operator/conversations/{cid}/audit/verify", headers=service.headers)
    assert response.status_code == 200
    body: dict[str, object] = response.json()
    return body


def _closed(service: Service, cid: str, code: str) -> None:
    refused = service.turn(cid, "one more thing")
    assert (refused.status_code, refused.json()["error"]["code"]) == (409, code)


def _three_turns(service: Service) -> str:
    cid = service.start()
    for message in ("hello", "budget 80000 EUR", "anything else?"):
        assert service.turn(cid, message).status_code == 200
    return cid


def test_an_edited_state_bits_column_fails_verify_and_closes_the_conversation(
    factory: StoreFactory, service: Service
) -> None:
    cid = _three_turns(service)
    raw(factory, "UPDATE grace_conversations SET state_bits = ? WHERE id = ?", ("1111", cid))
    report = _verify(service, cid)
    assert (report["ok"], report["code"]) == (False, "audit.column_mismatch")
    _closed(service, cid, "audit.column_mismatch")


def test_a_deleted_record_closes_the_conversation(factory: StoreFactory, service: Service) -> None:
    cid = _three_turns(service)
    drop_append_only(factory, "grace_audit_records")
    raw(factory, "DELETE FROM grace_audit_records WHERE conversation_id = ? AND seq = 2", (cid,))
    assert _verify(service, cid)["ok"] is False
    _closed(service, cid, "audit.chain_broken")


def test_swapped_records_close_the_conversation(factory: StoreFactory, service: Service) -> None:
    cid = _three_turns(service)
    drop_append_only(factory, "grace_audit_records")
    rows = dict(raw(factory, "SELECT seq, record_json FROM grace_audit_records WHERE conversation_id = ?", (cid,)))
    raw(factory, "UPDATE grace_audit_records SET record_json = ? WHERE conversation_id = ? AND seq = 2",
        (rows[3], cid))
    raw(factory, "UPDATE grace_audit_records SET record_json = ? WHERE conversation_id = ? AND seq = 3",
        (rows[2], cid))
    assert _verify(service, cid)["ok"] is False
    _closed(service, cid, "audit.chain_broken")


def test_an_edited_stored_state_is_a_coded_409_not_a_500(factory: StoreFactory, service: Service) -> None:
    cid = _three_turns(service)
    stored = service.store.stored_state(cid)
    write_state(factory, cid, dict(stored, stopped=True))
    assert _verify(service, cid)["code"] == "audit.state_mismatch"
    _closed(service, cid, "audit.state_mismatch")


_PG_TABLES = ("grace_conversations", "grace_conversation_keys", "grace_audit_records", "grace_checkpoints",
              "grace_idempotency", "grace_operator_actions")


def _pg_snapshot(factory: StoreFactory) -> dict[str, list[tuple[object, ...]]]:
    """Every row of the PostgreSQL schema: what a restored older backup would bring back."""
    return {table: raw(factory, f"SELECT * FROM {table}") for table in _PG_TABLES}


def _pg_restore(factory: StoreFactory, snapshot: dict[str, list[tuple[object, ...]]]) -> None:
    raw(factory, f"TRUNCATE {', '.join(_PG_TABLES)}")  # row triggers (append-only) do not fire on TRUNCATE
    for table in _PG_TABLES:
        for row in snapshot[table]:
            raw(factory, f"INSERT INTO {table} VALUES ({', '.join('?' for _ in row)})", row)


def test_a_restored_older_postgres_database_is_refused_at_start_and_on_a_retried_key(
    factory: StoreFactory, bundle: object, published_spec: object
) -> None:
    if factory.backend != "postgres":
        pytest.skip("SQLite's anchor is tested by the file copies above")
    service = make_service(factory.open(AUDIT_KEY, anchor=True), bundle, published_spec)  # type: ignore[arg-type]
    cid = service.start()
    service.turn(cid, "hello")
    older = _pg_snapshot(factory)
    assert service.turn(cid, "budget 80000 EUR", key="key-1").status_code == 200
    service.turn(cid, "anything else?")
    _pg_restore(factory, older)  # restored under the running service
    again = service.turn(cid, "budget 80000 EUR", key="key-1")
    assert (again.status_code, again.json()["error"]["code"]) == (409, "store.rollback_detected")
    service.store.close()
    with pytest.raises(IntegrityError) as refused:  # and at the next start of this host
        factory.open(AUDIT_KEY, anchor=True)
    assert refused.value.code == "store.rollback_detected"
    assert factory.open(AUDIT_KEY) is not None  # a host without an anchor cannot tell (spec/adr/0007)


def _copy(factory: StoreFactory, suffix: str) -> None:
    with sqlite3.connect(factory.path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    shutil.copy(factory.path, factory.path.with_name(factory.path.name + suffix))


def test_a_restored_older_database_is_refused_at_start_and_by_verify(
    factory: StoreFactory, bundle: object, published_spec: object
) -> None:
    if factory.backend != "sqlite":
        pytest.skip("the file anchor is SQLite's; PostgreSQL: spec/adr/0007")
    service = make_service(factory.open(AUDIT_KEY), bundle, published_spec)  # type: ignore[arg-type]
    cid = service.start()
    service.turn(cid, "hello")
    _copy(factory, ".copy")
    for message in ("budget 80000 EUR", "anything else?", "thanks"):
        assert service.turn(cid, message).status_code == 200
    service.store.close()
    shutil.copy(factory.path.with_name(factory.path.name + ".copy"), factory.path)
    factory.path.with_name(factory.path.name + "-wal").unlink(missing_ok=True)
    factory.path.with_name(factory.path.name + "-shm").unlink(missing_ok=True)
    with pytest.raises(IntegrityError) as refused:
        SQLiteStore(factory.path, audit_key=AUDIT_KEY)
    assert refused.value.code == "store.rollback_detected"
    from engine.cli import main

    key_file = factory.path.with_name("audit.key")
    key_file.write_text("hex:" + AUDIT_KEY.hex() + "\n")
    assert main(["audit", "verify-stored", cid, "--db", f"sqlite:///{factory.path}", "--key-file", str(key_file)]) != 0


def test_a_retried_key_after_a_live_rollback_is_refused_not_run_again(
    factory: StoreFactory, bundle: object, published_spec: object
) -> None:
    if factory.backend != "sqlite":
        pytest.skip("the file anchor is SQLite's; PostgreSQL: spec/adr/0007")
    service = make_service(factory.open(AUDIT_KEY), bundle, published_spec)  # type: ignore[arg-type]
    cid = service.start()
    service.turn(cid, "hello")
    older = sqlite3.connect(":memory:")
    with sqlite3.connect(factory.path) as live:
        live.backup(older)  # a copy of the database as it is now
    first = service.turn(cid, "budget 80000 EUR", key="key-1")
    assert first.status_code == 200
    service.turn(cid, "anything else?")
    with sqlite3.connect(factory.path) as live:
        older.backup(live)  # restored under the running service
    again = service.turn(cid, "budget 80000 EUR", key="key-1")
    assert (again.status_code, again.json()["error"]["code"]) == (409, "store.rollback_detected")
