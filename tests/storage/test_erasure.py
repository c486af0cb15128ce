"""Erasure by crypto-shredding (issue 11 item 5): personal data is ciphertext at rest, erasing destroys the
conversation's key, the audit chain still verifies, replay says "erased", and the database files keep nothing
personal (SQLite file and WAL grepped byte by byte)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit.stored import verify_stored
from audit.vault import ERASED
from engine.cli import main
from engine.cli.audit_replay import replay_stored_conversation
from engine.errors import GraceError
from engine.kernel.conversation import Role
from engine.storage.sqlite import SQLiteStore
from tests.storage.backends import StoreFactory
from tests.storage.sealing import AUDIT_KEY, demo_runtime, full_bundle, raw

EMAIL = "marta.quiroga.visitor@example.org"
PHONE_DIGITS = "611987654"
MESSAGES = [
    "I want to buy a flat near Almería with three bedrooms.",
    f"You can write to {EMAIL} or call +34 611 98 76 54, I am Marta Quiroga.",
    "My budget is 300000 EUR.",
]
# Forms the personal data could take in the files: as typed, digits only, UTF-16 (never expected, cheap to check).
NEEDLES = [EMAIL.encode(), b"marta.quiroga", b"Quiroga", PHONE_DIGITS.encode(), b"611 98 76 54",
           EMAIL.encode("utf-16-le")]


def _files(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*") if p.is_file())


def _conversation(factory: StoreFactory) -> tuple[str, object]:
    store = factory.open(AUDIT_KEY)
    runtime = demo_runtime(store)
    cid = runtime.start().conversation_id
    for text in MESSAGES:
        runtime.handle(cid, text)
    return cid, runtime


def test_personal_data_is_ciphertext_at_rest(factory: StoreFactory) -> None:
    cid, runtime = _conversation(factory)
    store = runtime.store  # type: ignore[attr-defined]
    texts = [m.text for m in store.load(cid).messages if m.role is Role.VISITOR]
    assert EMAIL in texts[1]  # the application reads it back
    stored = json.dumps(store.stored_state(cid)) + json.dumps(store.records(cid))
    for needle in (EMAIL, "Quiroga", PHONE_DIGITS, "98 76 54"):
        assert needle not in stored
    if factory.backend == "sqlite":
        data = _files(factory.path)
        assert not [n for n in NEEDLES if n in data]


def test_erasure_keeps_the_audit_verifiable_and_leaves_nothing_personal(factory: StoreFactory) -> None:
    cid, runtime = _conversation(factory)
    store = runtime.store  # type: ignore[attr-defined]
    wrapped = raw(factory, "SELECT wrapped_key FROM grace_conversation_keys WHERE conversation_id = ?", (cid,))[0][0]
    records_before = store.records(cid)
    done = store.erase(cid, actor="test-operator")
    assert (done.conversation_id, done.actor) == (cid, "test-operator")
    assert store.erasure(cid) == done
    assert store.erase(cid, actor="someone-else") == done  # idempotent: the first erasure stands

    # the audit trail is untouched and still verifies (chain, state continuity, stored state, checkpoint log)
    assert store.records(cid) == records_before
    report = verify_stored(store, cid, AUDIT_KEY)
    assert report.ok, report.summary()

    # readers see the markers; the state's decision fields survive
    state = store.load(cid)
    assert {m.text for m in state.messages} == {ERASED}
    assert all(v.value == ERASED for vs in state.values.values() for v in vs)
    assert state.turn == len(MESSAGES)

    # nothing can be added, and the next turn says why
    with pytest.raises(GraceError) as info:
        runtime.handle(cid, "hello again")  # type: ignore[attr-defined]
    assert info.value.code == "store.erased"

    # the operator action is in the append-only log
    actions = raw(factory, "SELECT action, actor FROM grace_operator_actions WHERE conversation_id = ?", (cid,))
    assert actions == [("conversation.erase", "test-operator")]
    with pytest.raises(Exception, match="append-only"):
        raw(factory, "DELETE FROM grace_operator_actions WHERE conversation_id = ?", (cid,))

    if factory.backend == "sqlite":
        store.close()
        data = _files(factory.path)
        assert not [n for n in NEEDLES if n in data]
        assert bytes(wrapped) not in data  # the destroyed key left no copy in the file or the WAL
        assert bytes(wrapped)[13:29] not in data


def test_replay_reports_erased(factory: StoreFactory, capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    cid, runtime = _conversation(factory)
    store = runtime.store  # type: ignore[attr-defined]
    if factory.backend != "sqlite":
        pytest.skip("replay CLI opens the store by URL; the PostgreSQL test schema is not in a URL")
    url = f"sqlite:///{factory.path}"
    monkeypatch.setenv("GRACE_AUDIT_KEY", "hex:" + AUDIT_KEY.hex())
    assert replay_stored_conversation(url, cid, full_bundle(), [], audit_key=AUDIT_KEY) == []  # same decisions
    store.erase(cid, actor="test")
    assert replay_stored_conversation(url, cid, full_bundle(), [], audit_key=AUDIT_KEY) is None
    monkeypatch.setenv("GRACE_RULES_DRAFT", "1")
    assert main(["audit", "replay", cid, "--db", url]) == 0
    assert capsys.readouterr().out.startswith(f"erased: conversation {cid}")


def test_plaintext_conversation_cannot_be_crypto_erased(factory: StoreFactory) -> None:
    store = factory.open()  # no audit key: a plaintext conversation, as schema 1 stored them
    runtime = demo_runtime(store)
    cid = runtime.start().conversation_id
    with pytest.raises(GraceError) as info:
        store.erase(cid, actor="test")
    assert info.value.code == "store.not_erasable"


def test_encrypted_conversation_needs_the_key(factory: StoreFactory) -> None:
    cid, _ = _conversation(factory)
    keyless = factory.open()
    with pytest.raises(GraceError) as info:
        keyless.load(cid)
    assert info.value.code == "store.key_required"
    other = factory.open(b"another-deployment-key-000000000")
    with pytest.raises(GraceError) as info:
        other.load(cid)
    assert info.value.code == "audit.vault.wrong_key"


def test_cli_erase_export_verify_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "grace.db"
    store = SQLiteStore(db, audit_key=AUDIT_KEY)
    runtime = demo_runtime(store)
    cid = runtime.start().conversation_id
    for text in MESSAGES:
        runtime.handle(cid, text)
    store.close()
    monkeypatch.setenv("GRACE_AUDIT_KEY", "hex:" + AUDIT_KEY.hex())
    url = f"sqlite:///{db}"
    files = {name: tmp_path / name for name in ("records.jsonl", "head.json", "log.jsonl", "state.json")}

    def export_and_verify() -> str:
        assert main(["audit", "export", cid, "--db", url, "--out", str(files["records.jsonl"]),
                     "--checkpoint", str(files["head.json"]), "--checkpoint-log", str(files["log.jsonl"]),
                     "--state", str(files["state.json"])]) == 0
        assert main(["audit", "verify", str(files["records.jsonl"]), "--checkpoint", str(files["head.json"]),
                     "--checkpoint-log", str(files["log.jsonl"]), "--state", str(files["state.json"])]) == 0
        assert main(["audit", "verify-stored", cid, "--db", url]) == 0
        return capsys.readouterr().out

    assert f"OK {len(MESSAGES)} records conversation={cid}" in export_and_verify()
    assert main(["conversations", "erase", cid, "--db", url, "--actor", "dpo"]) == 0
    assert f"erased {cid}" in capsys.readouterr().out
    assert f"OK {len(MESSAGES)} records conversation={cid}" in export_and_verify()
    exported = b"".join(p.read_bytes() for p in files.values())
    assert EMAIL.encode() not in exported and PHONE_DIGITS.encode() not in exported


def test_schema_1_database_is_migrated_and_its_conversations_are_read_only(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "old.db"
    store = SQLiteStore(db)
    runtime = demo_runtime(store)
    cid = runtime.start().conversation_id
    runtime.handle(cid, MESSAGES[0])
    store.close()
    # Make it look like schema 1: no new tables, a v1 checkpoint (no state seal, no counter).
    with sqlite3.connect(db) as conn:
        for table in ("grace_checkpoints", "grace_operator_actions", "grace_conversation_keys"):
            conn.execute(f"DROP TABLE {table}")
        state = json.loads(conn.execute("SELECT state_json FROM grace_conversations").fetchone()[0])
        state["audit_head"] = {k: state["audit_head"][k] for k in ("conversation_id", "seq", "head_hash", "mac")}
        conn.execute("UPDATE grace_conversations SET state_json = ?", (json.dumps(state),))
        conn.execute("PRAGMA user_version = 1")
    db.with_name(db.name + ".anchor").unlink()  # schema 1 had no rollback anchor either
    migrated = SQLiteStore(db, audit_key=AUDIT_KEY)
    assert migrated._conn().execute("PRAGMA user_version").fetchone()[0] == 2
    assert migrated.checkpoints(cid) == []
    assert verify_stored(migrated, cid, AUDIT_KEY).code == "audit.checkpoint_legacy"
    with pytest.raises(GraceError) as info:
        demo_runtime(migrated).handle(cid, MESSAGES[1])
    assert info.value.code == "audit.checkpoint_legacy"
    fresh = demo_runtime(migrated).start().conversation_id  # new conversations are encrypted and sealed
    assert migrated.cipher(fresh) is not None


def test_visitor_text_that_looks_encrypted_round_trips(factory: StoreFactory) -> None:
    store = factory.open(AUDIT_KEY)
    runtime = demo_runtime(store)
    cid = runtime.start().conversation_id
    runtime.handle(cid, "enc:siv:abcdef is my reference")
    runtime.handle(cid, "hello again")
    assert store.load(cid).messages[0].text == "enc:siv:abcdef is my reference"
    assert verify_stored(store, cid, AUDIT_KEY).ok
