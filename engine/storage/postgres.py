"""PostgreSQL conversation store (psycopg 3 with a connection pool): the store for several processes.

``commit_turn`` locks the conversation row with ``SELECT … FOR UPDATE`` before comparing the stored
turn, so two turns for one conversation never interleave even across engine processes; the state update,
the audit record and the idempotency entry are committed in one transaction.

Schema 2 adds the per-conversation data keys (erasable), the append-only checkpoint log and the append-only
operator action log. Erasure deletes the key row and vacuums its table, so no live or dead tuple keeps it.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import structlog
from psycopg import errors as pg_errors
from psycopg_pool import ConnectionPool, PoolTimeout

from engine.kernel.conversation import ConversationState
from engine.storage import codec, errors, read_ahead
from engine.storage.anchor import RollbackAnchor
from engine.storage.base import ERASE_ACTION, ConversationSummary, Erasure, IdempotencyEntry
from engine.storage.keyring import KeyRing
from engine.storage.protocol import ProtocolStore
from engine.storage.read_ahead import IdempotencyRow, TurnRow
from engine.storage.rows import CommitRows, KeyedRow, LockedHead

log = structlog.get_logger("engine.storage.postgres")

SCHEMA_VERSION = 3
_SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")

_MIGRATION_1 = [
    """CREATE TABLE IF NOT EXISTS grace_conversations (
        id          TEXT PRIMARY KEY,
        goal_ref    TEXT NOT NULL,
        language    TEXT NOT NULL,
        turn        INTEGER NOT NULL,
        state_bits  TEXT NOT NULL,
        state_json  TEXT NOT NULL,
        created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
    )""",
    "CREATE INDEX IF NOT EXISTS grace_conversations_updated ON grace_conversations (updated_at)",
    # record_json is TEXT, not JSONB: the sealed canonical bytes come back exactly as written.
    """CREATE TABLE IF NOT EXISTS grace_audit_records (
        conversation_id TEXT NOT NULL REFERENCES grace_conversations (id),
        seq             INTEGER NOT NULL,
        turn            INTEGER NOT NULL,
        record_json     TEXT NOT NULL,
        committed_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (conversation_id, seq)
    )""",
    """CREATE OR REPLACE FUNCTION grace_audit_append_only() RETURNS trigger AS $$
    BEGIN
        RAISE EXCEPTION 'grace audit records are append-only';
    END;
    $$ LANGUAGE plpgsql""",
    "DROP TRIGGER IF EXISTS grace_audit_records_append_only ON grace_audit_records",
    """CREATE TRIGGER grace_audit_records_append_only BEFORE UPDATE OR DELETE ON grace_audit_records
        FOR EACH ROW EXECUTE FUNCTION grace_audit_append_only()""",
    """CREATE TABLE IF NOT EXISTS grace_idempotency (
        conversation_id TEXT NOT NULL REFERENCES grace_conversations (id),
        key             TEXT NOT NULL,
        fingerprint     TEXT NOT NULL,
        turn            INTEGER NOT NULL,
        response_json   TEXT NOT NULL,
        created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (conversation_id, key)
    )""",
]

# Schema 3 (spec/adr/0007): a database-wide, ever-growing number per checkpoint row, which the service hosts'
# rollback anchors compare with (existing rows are numbered by the migration).
_MIGRATION_3 = [
    "ALTER TABLE grace_checkpoints ADD COLUMN IF NOT EXISTS log_no BIGSERIAL",
    "CREATE UNIQUE INDEX IF NOT EXISTS grace_checkpoints_log_no ON grace_checkpoints (log_no)",
]

_MIGRATION_2 = [
    """CREATE TABLE IF NOT EXISTS grace_conversation_keys (
        conversation_id TEXT PRIMARY KEY REFERENCES grace_conversations (id),
        wrapped_key     BYTEA NOT NULL,
        created_at      TIMESTAMPTZ NOT NULL DEFAULT now()
    )""",
    """CREATE TABLE IF NOT EXISTS grace_checkpoints (
        conversation_id TEXT NOT NULL REFERENCES grace_conversations (id),
        counter         INTEGER NOT NULL,
        seq             INTEGER NOT NULL,
        checkpoint_json TEXT NOT NULL,
        committed_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (conversation_id, counter)
    )""",
    "DROP TRIGGER IF EXISTS grace_checkpoints_append_only ON grace_checkpoints",
    """CREATE TRIGGER grace_checkpoints_append_only BEFORE UPDATE OR DELETE ON grace_checkpoints
        FOR EACH ROW EXECUTE FUNCTION grace_audit_append_only()""",
    """CREATE TABLE IF NOT EXISTS grace_operator_actions (
        id              BIGSERIAL PRIMARY KEY,
        conversation_id TEXT NOT NULL,
        action          TEXT NOT NULL,
        actor           TEXT NOT NULL,
        at              TIMESTAMPTZ NOT NULL DEFAULT now()
    )""",
    # every state read checks this table for an erasure of the conversation: an index, not a scan
    """CREATE INDEX IF NOT EXISTS grace_operator_actions_conversation
        ON grace_operator_actions (conversation_id, action)""",
    "DROP TRIGGER IF EXISTS grace_operator_actions_append_only ON grace_operator_actions",
    """CREATE TRIGGER grace_operator_actions_append_only BEFORE UPDATE OR DELETE ON grace_operator_actions
        FOR EACH ROW EXECUTE FUNCTION grace_audit_append_only()""",
]


class PostgresStore(ProtocolStore):
    """Durable ``ConversationStore`` on PostgreSQL, optionally inside its own schema (one per tenant/test)."""

    backend = "postgres"

    def __init__(
        self,
        url: str,
        *,
        schema: str | None = None,
        min_size: int = 1,
        max_size: int = 8,
        timeout_s: float = 10.0,
        audit_key: bytes | None = None,
        slow_commit_ms: float | None = None,
        anchor_path: Path | None = None,
    ) -> None:
        """``anchor_path``: this host's rollback anchor file (spec/adr/0007); None: no rollback check."""
        self.keys = KeyRing(audit_key)
        # A turn commit slower than this is logged with where its time went (None: never); see commit_tx.
        self.slow_commit_ms = slow_commit_ms
        if schema is not None and not _SCHEMA_NAME.match(schema):
            raise errors.StoreError(f"invalid schema name {schema!r}", code=errors.URL_INVALID)
        self.schema = schema
        kwargs: dict[str, Any] = {"autocommit": True}
        if schema is not None:
            kwargs["options"] = f"-c search_path={schema}"
        if schema is not None:
            self._ensure_schema(url, schema)
        self._pool = ConnectionPool(
            url, min_size=min_size, max_size=max_size, timeout=timeout_s, kwargs=kwargs, open=False
        )
        try:
            self._pool.open(wait=True, timeout=timeout_s)
        except PoolTimeout as exc:
            self._pool.close()
            raise errors.StoreError(f"cannot connect to PostgreSQL: {exc}", code=errors.FAILED) from exc
        self._migrate()
        self.anchor: RollbackAnchor | None = None
        if anchor_path is not None:
            # An older copy of the database is refused before anything is served or verified.
            self.anchor = RollbackAnchor(self._label(), path=anchor_path)
            with self._conn() as conn:
                row = conn.execute("SELECT COALESCE(MAX(log_no), 0) FROM grace_checkpoints").fetchone()
            logged = int(row[0]) if row else 0
            self.anchor.check(logged, self._label())
            self.anchor.advance(logged)

    def _label(self) -> Path:
        """How the rollback messages name this database (no credentials)."""
        return Path(f"postgresql-{self.schema or 'public'}")

    @staticmethod
    def _ensure_schema(url: str, schema: str) -> None:
        try:
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
        except psycopg.Error as exc:
            raise errors.StoreError(f"cannot create schema {schema!r}: {exc}", code=errors.FAILED) from exc

    @contextmanager
    def _tx(self) -> Iterator[psycopg.Connection[Any]]:
        with self._conn() as conn, conn.transaction():
            yield conn

    @contextmanager
    def _conn(self) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection in autocommit: a single statement is its own transaction and one round trip
        (no BEGIN/COMMIT). Several statements that must agree go through ``_tx``."""
        try:
            with self._pool.connection() as conn:
                yield conn
        except PoolTimeout as exc:
            raise errors.StoreError(f"no database connection available: {exc}", code=errors.BUSY) from exc
        except (
            pg_errors.SerializationFailure,
            pg_errors.DeadlockDetected,
            pg_errors.LockNotAvailable,
        ) as exc:
            raise errors.StoreError(f"postgres: {exc}", code=errors.BUSY) from exc
        except psycopg.Error as exc:
            raise errors.StoreError(f"postgres: {exc}", code=errors.FAILED) from exc

    def _migrate(self) -> None:
        with self._tx() as conn:
            # Serialise concurrent first starts of several processes on one database.
            conn.execute("SELECT pg_advisory_xact_lock(hashtext('grace.storage.migrate'))")
            conn.execute("CREATE TABLE IF NOT EXISTS grace_schema_version (version INTEGER NOT NULL)")
            row = conn.execute("SELECT max(version) FROM grace_schema_version").fetchone()
            version = row[0] if row and row[0] is not None else 0
            if version > SCHEMA_VERSION:
                raise errors.StoreError(
                    f"database schema {version} is newer than this code ({SCHEMA_VERSION})",
                    code=errors.CORRUPT,
                )
            if version < 1:
                for statement in _MIGRATION_1:
                    conn.execute(statement)  # static DDL, never user input
                conn.execute("INSERT INTO grace_schema_version (version) VALUES (1)")
            if version < 2:
                for statement in _MIGRATION_2:
                    conn.execute(statement)
                conn.execute("INSERT INTO grace_schema_version (version) VALUES (2)")
            if version < 3:
                for statement in _MIGRATION_3:
                    conn.execute(statement)
                conn.execute("INSERT INTO grace_schema_version (version) VALUES (3)")

    def ping(self) -> None:
        """Raise ``StoreError`` unless the database answers a trivial query (readiness)."""
        with self._tx() as conn:
            conn.execute("SELECT 1").fetchone()

    def close(self) -> None:
        if self.anchor is not None:
            self.anchor.close()
        self._pool.close()

    # -- ConversationStore -------------------------------------------------------------------------

    def create(self, state: ConversationState) -> None:
        cipher, wrapped = self.keys.new(state.conversation_id)
        body = codec.dump_state(state, cipher)
        try:
            with self._tx() as conn:
                conn.execute(
                    "INSERT INTO grace_conversations (id, goal_ref, language, turn, state_bits, state_json)"
                    " VALUES (%s, %s, %s, %s, %s, %s)",
                    (
                        state.conversation_id,
                        state.goal_ref,
                        state.language,
                        state.turn,
                        state.state_string(),
                        body,
                    ),
                )
                if wrapped is not None:
                    conn.execute(
                        "INSERT INTO grace_conversation_keys (conversation_id, wrapped_key) VALUES (%s, %s)",
                        (state.conversation_id, wrapped),
                    )
        except errors.StoreError as exc:
            if isinstance(exc.__cause__, pg_errors.UniqueViolation):
                raise errors.exists(state.conversation_id) from exc
            raise
        log.info("storage.conversation.created", backend=self.backend, conversation_id=state.conversation_id)

    def keyed_row(self, conversation_id: str, *, with_state: bool) -> KeyedRow | None:
        # One statement (one snapshot, one round trip): every turn reads it twice before deciding (turn
        # submission, then the runtime).
        with self._conn() as conn:
            return _keyed_row(conn, conversation_id, with_state=with_state, lock=False)

    def stored_state(self, conversation_id: str) -> dict[str, Any]:
        with self._tx() as conn:
            row = conn.execute(
                "SELECT state_json FROM grace_conversations WHERE id = %s", (conversation_id,)
            ).fetchone()
        if row is None:
            raise errors.not_found(conversation_id)
        return codec.load_stored(row[0])

    def listed_columns(self, conversation_id: str) -> dict[str, Any]:
        """The columns the console lists beside the sealed state (verify compares them with it)."""
        with self._tx() as conn:
            row = conn.execute(
                "SELECT goal_ref, language, turn, state_bits FROM grace_conversations WHERE id = %s",
                (conversation_id,),
            ).fetchone()
        if row is None:
            raise errors.not_found(conversation_id)
        return dict(zip(("goal_ref", "language", "turn", "state_bits"), row, strict=True))

    def checkpoints(self, conversation_id: str) -> list[dict[str, Any]]:
        with self._tx() as conn:
            rows = conn.execute(
                "SELECT checkpoint_json FROM grace_checkpoints WHERE conversation_id = %s ORDER BY counter",
                (conversation_id,),
            ).fetchall()
        return [codec.load_record(r[0]) for r in rows]

    def erasure(self, conversation_id: str) -> Erasure | None:
        with self._tx() as conn:
            row = conn.execute(
                "SELECT actor, at FROM grace_operator_actions WHERE conversation_id = %s AND action = %s"
                " ORDER BY id",
                (conversation_id, ERASE_ACTION),
            ).fetchone()
        return None if row is None else Erasure(conversation_id, row[0], row[1].isoformat())

    @contextmanager
    def erase_tx(self) -> Iterator[_PostgresTx]:
        with self._tx() as conn:
            yield _PostgresTx(conn)

    def scrub(self, conversation_id: str) -> None:
        try:  # dead tuples keep the deleted key until vacuumed (autocommit: VACUUM cannot run in a transaction)
            with self._pool.connection() as conn:
                conn.execute("VACUUM grace_conversation_keys")
        except psycopg.Error as exc:
            log.warning("storage.erase.vacuum_failed", backend=self.backend, error=type(exc).__name__)

    @contextmanager
    def commit_tx(self) -> Iterator[_PostgresTx]:
        # Pipelined: the row lock and the chain heads travel in one round trip, the writes with the COMMIT in a
        # second one, instead of one round trip per statement.
        started = time.perf_counter()
        with self._conn() as conn:
            tx = _PostgresTx(conn, started)
            with conn.pipeline(), conn.transaction():
                yield tx
        if self.slow_commit_ms is not None:
            tx.log_if_slow(self.slow_commit_ms)

    def check_anchor(self, all_checkpoints: int, recount: Callable[[], int]) -> None:
        if self.anchor is None:
            return
        # This host's anchor file, not beside the data (spec/adr/0007). Row locks are per conversation, so another
        # thread or worker may have committed (and raised the anchor) after this transaction's locked read: read
        # the anchor first, then the log again with a fresh statement, which sees every commit the anchor counts.
        if all_checkpoints < self.anchor.anchored():  # one read of the anchor file on the usual path
            self.anchor.check(recount(), self._label())

    def committed_checkpoints(self, all_checkpoints: int) -> None:
        if self.anchor is not None:
            self.anchor.advance(all_checkpoints)

    @staticmethod
    def is_duplicate(exc: BaseException) -> bool:
        return isinstance(exc, errors.StoreError) and isinstance(exc.__cause__, pg_errors.UniqueViolation)

    def records(self, conversation_id: str) -> list[dict[str, Any]]:
        with self._tx() as conn:
            rows = conn.execute(
                "SELECT record_json FROM grace_audit_records WHERE conversation_id = %s ORDER BY seq",
                (conversation_id,),
            ).fetchall()
            if (
                not rows
                and conn.execute("SELECT 1 FROM grace_conversations WHERE id = %s", (conversation_id,)).fetchone()
                is None
            ):
                raise errors.not_found(conversation_id)
        return [codec.load_record(r[0]) for r in rows]

    def list_conversations(self) -> list[str]:
        with self._tx() as conn:
            rows = conn.execute("SELECT id FROM grace_conversations ORDER BY created_at, id").fetchall()
        return [r[0] for r in rows]

    # -- DurableStore extras -----------------------------------------------------------------------

    def summaries(self, *, limit: int = 100, offset: int = 0) -> list[ConversationSummary]:
        with self._tx() as conn:
            rows = conn.execute(
                "SELECT c.id, c.goal_ref, c.language, c.turn, c.state_bits, c.created_at, c.updated_at,"
                " (SELECT COUNT(*) FROM grace_audit_records r WHERE r.conversation_id = c.id"
                "  AND jsonb_typeof(r.record_json::jsonb -> 'fail_closed') = 'object'),"
                " (SELECT COUNT(*) FROM grace_audit_records r WHERE r.conversation_id = c.id"
                "  AND jsonb_path_exists(r.record_json::jsonb, '$.candidates[*] ? (@.accepted == false)'))"
                " FROM grace_conversations c ORDER BY c.updated_at DESC, c.id LIMIT %s OFFSET %s",
                (max(0, limit), max(0, offset)),
            ).fetchall()
        return [ConversationSummary(r[0], r[1], r[2], r[3], r[4], r[5].isoformat(), r[6].isoformat(),
                                    int(r[7]), int(r[8])) for r in rows]

    def idempotent(self, conversation_id: str, key: str) -> IdempotencyEntry | None:
        ahead = read_ahead.open_for(conversation_id)
        prefetched, entry, keyed = ahead.take_idempotency(key) if ahead is not None else (False, None, None)
        if prefetched:
            if entry is None or keyed is None:
                return None
            return self._entry(conversation_id, key, entry, keyed.wrapped_key, keyed.erased)
        with self._conn() as conn:
            row = conn.execute(
                "SELECT i.fingerprint, i.turn, i.response_json, k.wrapped_key, EXISTS (SELECT 1 FROM"
                " grace_operator_actions a WHERE a.conversation_id = i.conversation_id AND a.action = %s)"
                " FROM grace_idempotency i LEFT JOIN grace_conversation_keys k"
                " ON k.conversation_id = i.conversation_id WHERE i.conversation_id = %s AND i.key = %s",
                (ERASE_ACTION, conversation_id, key),
            ).fetchone()
        if row is None:
            return None
        return self._entry(conversation_id, key, IdempotencyRow(row[0], row[1], row[2]),
                           bytes(row[3]) if row[3] is not None else None, bool(row[4]))

    def _entry(self, conversation_id: str, key: str, row: IdempotencyRow, wrapped: bytes | None,
               erased: bool) -> IdempotencyEntry:
        if erased:
            raise errors.erased(conversation_id)
        cipher = self.keys.open(conversation_id, wrapped)
        return IdempotencyEntry(conversation_id, key, row.fingerprint, row.turn,
                                codec.load_response(row.response_json, cipher))

    def turn_row(self, conversation_id: str, key: str | None) -> TurnRow:
        """The conversation row and ``key``'s idempotency entry in one statement (engine/storage/read_ahead)."""
        with self._conn() as conn:
            row = conn.execute(
                "SELECT c.state_json, k.wrapped_key, EXISTS (SELECT 1 FROM grace_operator_actions a"
                " WHERE a.conversation_id = c.id AND a.action = %s), i.fingerprint, i.turn, i.response_json"
                " FROM grace_conversations c LEFT JOIN grace_conversation_keys k ON k.conversation_id = c.id"
                " LEFT JOIN grace_idempotency i ON i.conversation_id = c.id AND i.key = %s"
                " WHERE c.id = %s",
                (ERASE_ACTION, key, conversation_id),
            ).fetchone()
        if row is None:
            return TurnRow(None, None)
        keyed = KeyedRow(row[0], bytes(row[1]) if row[1] is not None else None, bool(row[2]))
        return TurnRow(keyed, IdempotencyRow(row[3], row[4], row[5]) if row[3] is not None else None)


def _keyed_row(conn: psycopg.Connection[Any], conversation_id: str, *, with_state: bool, lock: bool) -> KeyedRow | None:
    row = conn.execute(
        (
            "SELECT {columns}, k.wrapped_key, EXISTS (SELECT 1 FROM grace_operator_actions a"
            " WHERE a.conversation_id = c.id AND a.action = %s)"
            " FROM grace_conversations c LEFT JOIN grace_conversation_keys k ON k.conversation_id = c.id"
            " WHERE c.id = %s{lock}"
        ).format(columns="c.state_json" if with_state else "''", lock=" FOR UPDATE OF c" if lock else "").encode(),
        (ERASE_ACTION, conversation_id),
    ).fetchone()
    if row is None:
        return None
    return KeyedRow(row[0], bytes(row[1]) if row[1] is not None else None, bool(row[2]))


class _PostgresTx:
    """The statements of the shared protocol inside one transaction on one pooled connection."""

    def __init__(self, conn: psycopg.Connection[Any], started: float | None = None) -> None:
        self._conn = conn
        # Where a commit's time goes, for the slow-commit log: waiting for a pooled connection, the lock round
        # trip (a wait for another turn's row lock shows here), the work between lock and write (the caller's
        # Python, holding the lock), and the write round trip, whose COMMIT waits for the WAL flush (fsync).
        self._started = started if started is not None else time.perf_counter()
        self._got_conn = time.perf_counter()
        self._locked = self._written = 0.0
        self._conversation_id = ""

    def log_if_slow(self, threshold_ms: float) -> None:
        done = time.perf_counter()
        total_ms = (done - self._started) * 1000
        if total_ms < threshold_ms or not self._written:
            return
        log.warning(
            "storage.commit.slow", backend="postgres", conversation_id=self._conversation_id,
            total_ms=round(total_ms, 1), pool_wait_ms=round((self._got_conn - self._started) * 1000, 1),
            lock_ms=round((self._locked - self._got_conn) * 1000, 1),
            held_ms=round((self._written - self._locked) * 1000, 1),
            commit_ms=round((done - self._written) * 1000, 1),
        )

    def recount_checkpoints(self) -> int:
        row = self._conn.execute("SELECT COALESCE(MAX(log_no), 0) FROM grace_checkpoints").fetchone()
        return int(row[0]) if row else 0

    def lock_head(self, conversation_id: str) -> LockedHead | None:
        # The row lock orders this commit against every other turn and erasure of the conversation, in any
        # process; the heads statement runs after the lock is held, on a fresh snapshot. Both are sent before
        # either is read: one round trip.
        locked = self._conn.execute(
            "SELECT c.turn, c.state_json, k.wrapped_key, EXISTS (SELECT 1 FROM grace_operator_actions a"
            " WHERE a.conversation_id = c.id AND a.action = %s), c.state_bits"
            " FROM grace_conversations c LEFT JOIN grace_conversation_keys k ON k.conversation_id = c.id"
            " WHERE c.id = %s FOR UPDATE OF c",
            (ERASE_ACTION, conversation_id),
        )
        heads_cursor = self._conn.execute(
            "SELECT (SELECT COALESCE(MAX(seq), 0) + 1 FROM grace_audit_records WHERE conversation_id = %s),"
            " (SELECT COALESCE(MAX(counter), 0) FROM grace_checkpoints WHERE conversation_id = %s),"
            " (SELECT COUNT(*) FROM grace_audit_records WHERE conversation_id = %s),"
            " (SELECT record_json FROM grace_audit_records WHERE conversation_id = %s ORDER BY seq DESC LIMIT 1),"
            " (SELECT COALESCE(MAX(log_no), 0) FROM grace_checkpoints)",
            (conversation_id, conversation_id, conversation_id, conversation_id),
        )
        row = locked.fetchone()
        heads = heads_cursor.fetchone()
        self._locked = time.perf_counter()
        self._conversation_id = conversation_id
        if row is None:
            return None
        wrapped = bytes(row[2]) if row[2] is not None else None
        next_seq, newest = (int(heads[0]), int(heads[1])) if heads else (1, 0)
        count = int(heads[2]) if heads else -1
        newest_hash = _record_hash(heads[3]) if heads and heads[3] is not None else None
        logged = int(heads[4]) if heads else -1  # the newest checkpoint's database-wide number (schema 3)
        return LockedHead(row[1], wrapped, bool(row[3]), turn=row[0], next_seq=next_seq, newest_counter=newest,
                          record_count=count, head_record_hash=newest_hash, state_bits=row[4],
                          all_checkpoints=logged)

    def write(self, rows: CommitRows) -> None:
        # Sent without waiting for an answer: the pipeline flushes them with the COMMIT.
        self._written = time.perf_counter()
        cid = rows.conversation_id
        if rows.checkpoint is not None:
            self._conn.execute(
                "INSERT INTO grace_checkpoints (conversation_id, counter, seq, checkpoint_json)"
                " VALUES (%s, %s, %s, %s)",
                (cid, rows.checkpoint.counter, rows.checkpoint.seq, rows.checkpoint.checkpoint_json),
            )
        self._conn.execute(
            "UPDATE grace_conversations SET turn = %s, state_bits = %s, state_json = %s, updated_at = now()"
            " WHERE id = %s",
            (rows.turn, rows.state_bits, rows.state_json, cid),
        )
        self._conn.execute(
            "INSERT INTO grace_audit_records (conversation_id, seq, turn, record_json) VALUES (%s, %s, %s, %s)",
            (cid, rows.seq, rows.turn, rows.record_json),
        )
        if rows.idempotency is not None:
            self._conn.execute(
                "INSERT INTO grace_idempotency (conversation_id, key, fingerprint, turn, response_json)"
                " VALUES (%s, %s, %s, %s, %s)",
                (cid, rows.idempotency.key, rows.idempotency.fingerprint, rows.turn, rows.idempotency.response_json),
            )

    def lock_keys(self, conversation_id: str) -> KeyedRow | None:
        return _keyed_row(self._conn, conversation_id, with_state=False, lock=True)

    def shred(self, conversation_id: str, actor: str) -> None:
        self._conn.execute("DELETE FROM grace_conversation_keys WHERE conversation_id = %s", (conversation_id,))
        self._conn.execute("DELETE FROM grace_idempotency WHERE conversation_id = %s", (conversation_id,))
        self._conn.execute(
            "INSERT INTO grace_operator_actions (conversation_id, action, actor) VALUES (%s, %s, %s)",
            (conversation_id, ERASE_ACTION, actor),
        )


def _record_hash(record_json: str) -> str | None:
    """The ``hash`` of a stored record (None if the row does not parse: then it is not the anchored record)."""
    try:
        value = json.loads(record_json).get("hash")
    except (ValueError, AttributeError):
        return None
    return value if isinstance(value, str) else None
