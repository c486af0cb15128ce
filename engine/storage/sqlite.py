"""SQLite conversation store (stdlib ``sqlite3``): the embedded default.

One file, WAL journal, one connection per thread. ``commit_turn`` runs in a ``BEGIN IMMEDIATE``
transaction, which takes the database write lock before reading the stored turn, so the compare-and-set
of the turn and the append of the audit record are one atomic step across threads and processes.

Schema 2 adds the per-conversation data keys (erasable), the append-only checkpoint log and the append-only
operator action log. ``secure_delete`` is on, and erasure truncates the WAL, so an erased key leaves no copy
in the database files.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import structlog

from engine.kernel.conversation import ConversationState
from engine.storage import codec, errors
from engine.storage.anchor import RollbackAnchor
from engine.storage.base import ERASE_ACTION, ConversationSummary, Erasure, IdempotencyEntry
from engine.storage.keyring import KeyRing
from engine.storage.private_files import private_file
from engine.storage.protocol import ProtocolStore
from engine.storage.rows import CommitRows, KeyedRow, LockedHead
from engine.storage.sqlite_checkpoint import AUTOCHECKPOINT_BACKSTOP_PAGES, WalCheckpointer

log = structlog.get_logger("engine.storage.sqlite")

SCHEMA_VERSION = 2
SYNCHRONOUS_MODES = ("NORMAL", "FULL")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS grace_conversations (
    id          TEXT PRIMARY KEY,
    goal_ref    TEXT NOT NULL,
    language    TEXT NOT NULL,
    turn        INTEGER NOT NULL,
    state_bits  TEXT NOT NULL,
    state_json  TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS grace_conversations_updated ON grace_conversations (updated_at);
CREATE TABLE IF NOT EXISTS grace_audit_records (
    conversation_id TEXT NOT NULL REFERENCES grace_conversations (id),
    seq             INTEGER NOT NULL,
    turn            INTEGER NOT NULL,
    record_json     TEXT NOT NULL,
    committed_at    TEXT NOT NULL,
    PRIMARY KEY (conversation_id, seq)
);
-- Audit records are append-only: an edit or deletion must go around the application, where the hash
-- chain verifier catches it.
CREATE TRIGGER IF NOT EXISTS grace_audit_records_no_update BEFORE UPDATE ON grace_audit_records
BEGIN SELECT RAISE(ABORT, 'grace audit records are append-only'); END;
CREATE TRIGGER IF NOT EXISTS grace_audit_records_no_delete BEFORE DELETE ON grace_audit_records
BEGIN SELECT RAISE(ABORT, 'grace audit records are append-only'); END;
CREATE TABLE IF NOT EXISTS grace_conversation_keys (
    conversation_id TEXT PRIMARY KEY REFERENCES grace_conversations (id),
    wrapped_key     BLOB NOT NULL,
    created_at      TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS grace_checkpoints (
    conversation_id TEXT NOT NULL REFERENCES grace_conversations (id),
    counter         INTEGER NOT NULL,
    seq             INTEGER NOT NULL,
    checkpoint_json TEXT NOT NULL,
    committed_at    TEXT NOT NULL,
    PRIMARY KEY (conversation_id, counter)
);
CREATE TRIGGER IF NOT EXISTS grace_checkpoints_no_update BEFORE UPDATE ON grace_checkpoints
BEGIN SELECT RAISE(ABORT, 'grace checkpoints are append-only'); END;
CREATE TRIGGER IF NOT EXISTS grace_checkpoints_no_delete BEFORE DELETE ON grace_checkpoints
BEGIN SELECT RAISE(ABORT, 'grace checkpoints are append-only'); END;
CREATE TABLE IF NOT EXISTS grace_operator_actions (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id TEXT NOT NULL,
    action          TEXT NOT NULL,
    actor           TEXT NOT NULL,
    at              TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS grace_operator_actions_conversation ON grace_operator_actions (conversation_id, action);
CREATE TRIGGER IF NOT EXISTS grace_operator_actions_no_update BEFORE UPDATE ON grace_operator_actions
BEGIN SELECT RAISE(ABORT, 'grace operator actions are append-only'); END;
CREATE TRIGGER IF NOT EXISTS grace_operator_actions_no_delete BEFORE DELETE ON grace_operator_actions
BEGIN SELECT RAISE(ABORT, 'grace operator actions are append-only'); END;
CREATE TABLE IF NOT EXISTS grace_idempotency (
    conversation_id TEXT NOT NULL REFERENCES grace_conversations (id),
    key             TEXT NOT NULL,
    fingerprint     TEXT NOT NULL,
    turn            INTEGER NOT NULL,
    response_json   TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    PRIMARY KEY (conversation_id, key)
);
"""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


class SQLiteStore(ProtocolStore):
    """Durable ``ConversationStore`` on one SQLite file."""

    backend = "sqlite"

    def __init__(
        self,
        path: str | Path,
        *,
        busy_timeout_ms: int = 10_000,
        audit_key: bytes | None = None,
        synchronous: str = "NORMAL",
    ) -> None:
        self.path = Path(path)
        if str(path) == ":memory:":
            # Each thread would get its own empty database: never what a service wants.
            raise errors.StoreError("use a file path for SQLite, not :memory:", code=errors.URL_INVALID)
        if synchronous.upper() not in SYNCHRONOUS_MODES:
            raise errors.StoreError(f"synchronous must be one of {SYNCHRONOUS_MODES}", code=errors.URL_INVALID)
        self._synchronous = synchronous.upper()
        self.keys = KeyRing(audit_key)
        private_file(self.path)  # 0600 before SQLite opens it: its WAL and shm files take the same mode
        self._busy_timeout_ms = busy_timeout_ms
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._all_lock = threading.Lock()
        self._checkpointer = WalCheckpointer(self.path, busy_timeout_ms=busy_timeout_ms)
        self._migrate()
        # An older copy of the file is refused before anything is served or verified (spec/adr/0007).
        self.anchor = RollbackAnchor(self.path)
        logged = self._conn().execute("SELECT COALESCE(MAX(rowid), 0) FROM grace_checkpoints").fetchone()[0]
        self.anchor.check(logged, self.path)
        self.anchor.advance(logged)

    # -- connections -------------------------------------------------------------------------------

    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            # isolation_level=None: we issue BEGIN/COMMIT ourselves, so a transaction is exactly our block.
            conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=self._busy_timeout_ms / 1000
            )
            conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout_ms)}")
            conn.execute("PRAGMA foreign_keys = ON")
            # NORMAL with WAL: never corrupt, the last commits may roll back on power loss; FULL: fsync per commit.
            conn.execute(f"PRAGMA synchronous = {self._synchronous}")
            conn.execute("PRAGMA secure_delete = ON")  # deleted keys are overwritten, not left in free space
            # Checkpoints run on their own thread (engine/storage/sqlite_checkpoint.py); this is the backstop.
            conn.execute(f"PRAGMA wal_autocheckpoint = {AUTOCHECKPOINT_BACKSTOP_PAGES}")
            self._local.conn = conn
            with self._all_lock:
                self._all.append(conn)
        return conn

    @contextmanager
    def _tx(self, *, write: bool) -> Iterator[sqlite3.Connection]:
        conn = self._conn()
        try:
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        except sqlite3.OperationalError as exc:
            raise errors.StoreError(f"database busy: {exc}", code=errors.BUSY) from exc
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.OperationalError):
                locked = "locked" in str(exc) or "busy" in str(exc)
                raise errors.StoreError(f"sqlite: {exc}", code=errors.BUSY if locked else errors.FAILED) from exc
            raise
        if write:
            self._checkpointer.committed()

    def _migrate(self) -> None:
        conn = self._conn()
        conn.execute("PRAGMA journal_mode = WAL")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise errors.StoreError(
                f"database schema {version} is newer than this code ({SCHEMA_VERSION})", code=errors.CORRUPT
            )
        if version < SCHEMA_VERSION:
            with self._tx(write=True) as tx:
                for statement in _split(_SCHEMA):
                    tx.execute(statement)
                tx.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def ping(self) -> None:
        """Raise ``StoreError`` unless the database answers a trivial query (readiness)."""
        try:
            self._conn().execute("SELECT 1").fetchone()
        except sqlite3.Error as exc:
            raise errors.StoreError(f"sqlite: {exc}", code=errors.FAILED) from exc

    def check_anchor(self, all_checkpoints: int, recount: Callable[[], int]) -> None:
        # SQLite's write lock orders commits: the count read under it is already current, no recount needed.
        self.anchor.check(all_checkpoints, self.path)

    def committed_checkpoints(self, all_checkpoints: int) -> None:
        self.anchor.advance(all_checkpoints)

    def close(self) -> None:
        self.anchor.close()
        self._checkpointer.close()
        with self._all_lock:
            for conn in self._all:
                conn.close()
            self._all.clear()
        self._local = threading.local()

    # -- ConversationStore -------------------------------------------------------------------------

    def create(self, state: ConversationState) -> None:
        cipher, wrapped = self.keys.new(state.conversation_id)
        body = codec.dump_state(state, cipher)
        now = _now()
        with self._tx(write=True) as tx:
            try:
                tx.execute(
                    "INSERT INTO grace_conversations"
                    " (id, goal_ref, language, turn, state_bits, state_json, created_at, updated_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        state.conversation_id,
                        state.goal_ref,
                        state.language,
                        state.turn,
                        state.state_string(),
                        body,
                        now,
                        now,
                    ),
                )
            except sqlite3.IntegrityError as exc:
                raise errors.exists(state.conversation_id) from exc
            if wrapped is not None:
                tx.execute(
                    "INSERT INTO grace_conversation_keys (conversation_id, wrapped_key, created_at) VALUES (?, ?, ?)",
                    (state.conversation_id, wrapped, now),
                )
        log.info("storage.conversation.created", backend=self.backend, conversation_id=state.conversation_id)

    # The conversation's state, its wrapped key and whether it was erased: one statement, one snapshot.
    _KEYED_ROW = (
        "SELECT {columns}, k.wrapped_key, EXISTS (SELECT 1 FROM grace_operator_actions a"
        " WHERE a.conversation_id = c.id AND a.action = ?)"
        " FROM grace_conversations c LEFT JOIN grace_conversation_keys k ON k.conversation_id = c.id"
        " WHERE c.id = ?"
    )

    def keyed_row(self, conversation_id: str, *, with_state: bool) -> KeyedRow | None:
        with self._tx(write=False) as tx:
            return _keyed_row(tx, conversation_id, with_state=with_state)

    def stored_state(self, conversation_id: str) -> dict[str, Any]:
        row = (
            self._conn()
            .execute("SELECT state_json FROM grace_conversations WHERE id = ?", (conversation_id,))
            .fetchone()
        )
        if row is None:
            raise errors.not_found(conversation_id)
        return codec.load_stored(row[0])

    def listed_columns(self, conversation_id: str) -> dict[str, Any]:
        """The columns the console lists beside the sealed state (verify compares them with it)."""
        row = self._conn().execute(
            "SELECT goal_ref, language, turn, state_bits FROM grace_conversations WHERE id = ?", (conversation_id,)
        ).fetchone()
        if row is None:
            raise errors.not_found(conversation_id)
        return dict(zip(("goal_ref", "language", "turn", "state_bits"), row, strict=True))

    def checkpoints(self, conversation_id: str) -> list[dict[str, Any]]:
        rows = (
            self._conn()
            .execute(
                "SELECT checkpoint_json FROM grace_checkpoints WHERE conversation_id = ? ORDER BY counter",
                (conversation_id,),
            )
            .fetchall()
        )
        return [codec.load_record(r[0]) for r in rows]

    def erasure(self, conversation_id: str) -> Erasure | None:
        row = (
            self._conn()
            .execute(
                "SELECT actor, at FROM grace_operator_actions WHERE conversation_id = ? AND action = ? ORDER BY id",
                (conversation_id, ERASE_ACTION),
            )
            .fetchone()
        )
        return None if row is None else Erasure(conversation_id, row[0], row[1])

    def erase_tx(self) -> AbstractContextManager[_SQLiteTx]:
        return self._port_tx()

    def scrub(self, conversation_id: str) -> None:
        # Old page images of the key live on in the WAL until it is checkpointed and truncated.
        with self._checkpointer.exclusive():
            busy = self._conn().execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        if busy:  # a reader held the WAL: the next checkpoint (automatic or at close) overwrites it
            log.warning("storage.erase.wal_busy", backend=self.backend, conversation_id=conversation_id)

    def commit_tx(self) -> AbstractContextManager[_SQLiteTx]:
        # BEGIN IMMEDIATE takes the database write lock before the turn is read: the lock orders the commit.
        return self._port_tx()

    @contextmanager
    def _port_tx(self) -> Iterator[_SQLiteTx]:
        with self._tx(write=True) as conn:
            yield _SQLiteTx(conn)

    @staticmethod
    def is_duplicate(exc: BaseException) -> bool:
        return isinstance(exc, sqlite3.IntegrityError) and "UNIQUE" in str(exc)

    def records(self, conversation_id: str) -> list[dict[str, Any]]:
        conn = self._conn()
        rows = conn.execute(
            "SELECT record_json FROM grace_audit_records WHERE conversation_id = ? ORDER BY seq",
            (conversation_id,),
        ).fetchall()
        if (
            not rows
            and conn.execute("SELECT 1 FROM grace_conversations WHERE id = ?", (conversation_id,)).fetchone() is None
        ):
            raise errors.not_found(conversation_id)
        return [codec.load_record(r[0]) for r in rows]

    def list_conversations(self) -> list[str]:
        rows = self._conn().execute("SELECT id FROM grace_conversations ORDER BY created_at, id").fetchall()
        return [r[0] for r in rows]

    # -- DurableStore extras -----------------------------------------------------------------------

    def summaries(self, *, limit: int = 100, offset: int = 0) -> list[ConversationSummary]:
        rows = (
            self._conn()
            .execute(
                "SELECT c.id, c.goal_ref, c.language, c.turn, c.state_bits, c.created_at, c.updated_at,"
                " (SELECT COUNT(*) FROM grace_audit_records r WHERE r.conversation_id = c.id"
                "  AND json_type(r.record_json, '$.fail_closed') = 'object'),"
                " (SELECT COUNT(*) FROM grace_audit_records r WHERE r.conversation_id = c.id"
                "  AND EXISTS (SELECT 1 FROM json_each(r.record_json, '$.candidates') k"
                "   WHERE json_type(k.value, '$.accepted') = 'false'))"
                " FROM grace_conversations c ORDER BY c.updated_at DESC, c.id LIMIT ? OFFSET ?",
                (max(0, limit), max(0, offset)),
            )
            .fetchall()
        )
        return [ConversationSummary(*row) for row in rows]

    def idempotent(self, conversation_id: str, key: str) -> IdempotencyEntry | None:
        row = (
            self._conn()
            .execute(
                "SELECT fingerprint, turn, response_json FROM grace_idempotency WHERE conversation_id = ? AND key = ?",
                (conversation_id, key),
            )
            .fetchone()
        )
        if row is None:
            return None
        response = codec.load_response(row[2], self.cipher(conversation_id))
        return IdempotencyEntry(conversation_id, key, row[0], row[1], response)


def _keyed_row(conn: sqlite3.Connection, conversation_id: str, *, with_state: bool) -> KeyedRow | None:
    row = conn.execute(
        SQLiteStore._KEYED_ROW.format(columns="c.state_json" if with_state else "''"), (ERASE_ACTION, conversation_id)
    ).fetchone()
    if row is None:
        return None
    return KeyedRow(row[0], bytes(row[1]) if row[1] is not None else None, bool(row[2]))


class _SQLiteTx:
    """The statements of the shared protocol inside one ``BEGIN IMMEDIATE`` transaction."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def recount_checkpoints(self) -> int:
        row = self._conn.execute("SELECT COALESCE(MAX(rowid), 0) FROM grace_checkpoints").fetchone()
        return int(row[0]) if row else 0

    def lock_head(self, conversation_id: str) -> LockedHead | None:
        row = self._conn.execute(
            "SELECT c.turn, c.state_json, k.wrapped_key, EXISTS (SELECT 1 FROM grace_operator_actions a"
            " WHERE a.conversation_id = c.id AND a.action = ?),"
            " (SELECT COALESCE(MAX(seq), 0) + 1 FROM grace_audit_records WHERE conversation_id = c.id),"
            " (SELECT COALESCE(MAX(counter), 0) FROM grace_checkpoints WHERE conversation_id = c.id),"
            " (SELECT COUNT(*) FROM grace_audit_records WHERE conversation_id = c.id),"
            " (SELECT json_extract(record_json, '$.hash') FROM grace_audit_records WHERE conversation_id = c.id"
            "  ORDER BY seq DESC LIMIT 1),"
            " c.state_bits, (SELECT COALESCE(MAX(rowid), 0) FROM grace_checkpoints)"
            " FROM grace_conversations c LEFT JOIN grace_conversation_keys k ON k.conversation_id = c.id"
            " WHERE c.id = ?",
            (ERASE_ACTION, conversation_id),
        ).fetchone()
        if row is None:
            return None
        wrapped = bytes(row[2]) if row[2] is not None else None
        return LockedHead(row[1], wrapped, bool(row[3]), turn=row[0], next_seq=row[4], newest_counter=row[5],
                          record_count=row[6], head_record_hash=row[7], state_bits=row[8], all_checkpoints=row[9])

    def write(self, rows: CommitRows) -> None:
        cid, now = rows.conversation_id, _now()
        if rows.checkpoint is not None:
            self._conn.execute(
                "INSERT INTO grace_checkpoints (conversation_id, counter, seq, checkpoint_json, committed_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (cid, rows.checkpoint.counter, rows.checkpoint.seq, rows.checkpoint.checkpoint_json, now),
            )
        self._conn.execute(
            "UPDATE grace_conversations SET turn = ?, state_bits = ?, state_json = ?, updated_at = ? WHERE id = ?",
            (rows.turn, rows.state_bits, rows.state_json, now, cid),
        )
        self._conn.execute(
            "INSERT INTO grace_audit_records (conversation_id, seq, turn, record_json, committed_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (cid, rows.seq, rows.turn, rows.record_json, now),
        )
        if rows.idempotency is not None:
            self._conn.execute(
                "INSERT INTO grace_idempotency (conversation_id, key, fingerprint, turn, response_json, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (cid, rows.idempotency.key, rows.idempotency.fingerprint, rows.turn, rows.idempotency.response_json,
                 now),
            )

    def lock_keys(self, conversation_id: str) -> KeyedRow | None:
        return _keyed_row(self._conn, conversation_id, with_state=False)

    def shred(self, conversation_id: str, actor: str) -> None:
        self._conn.execute("DELETE FROM grace_conversation_keys WHERE conversation_id = ?", (conversation_id,))
        self._conn.execute("DELETE FROM grace_idempotency WHERE conversation_id = ?", (conversation_id,))
        self._conn.execute(
            "INSERT INTO grace_operator_actions (conversation_id, action, actor, at) VALUES (?, ?, ?, ?)",
            (conversation_id, ERASE_ACTION, actor, _now()),
        )


def _split(script: str) -> list[str]:
    """Split the schema script into statements, keeping trigger bodies (which contain ';') whole."""
    statements: list[str] = []
    buffer = ""
    for line in script.splitlines():
        if line.strip().startswith("--") or not line.strip():
            continue
        buffer += line + "\n"
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements
