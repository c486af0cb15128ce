"""The webhook outbox: one row per delivery id (idempotent enqueue), its attempts, and the dead-letter list.

Kept in its own SQLite file beside the deployment's data (0600, ``secure_delete``), written in short transactions,
so a crash between two attempts loses nothing: a delivery is pending, delivered or dead, and a pending one is
retried when due. Personal data does not outlive its use: a delivered payload is replaced by a tombstone after the
retention of ``delivery.json``, and erasing a conversation turns each of its deliveries into an ``erased``
tombstone at once (a pending one is never sent). The tombstone keeps only the ids, the goal and the timestamps."""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from engine.leads.errors import DeliveryError
from engine.storage.private_files import private_file

TOMBSTONE = b"{}"  # what a purged or erased delivery keeps as its body: nothing personal
STATUSES = ("pending", "delivered", "dead", "erased")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS lead_deliveries (
    delivery_id TEXT PRIMARY KEY,
    goal TEXT NOT NULL,
    body BLOB NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'dead', 'erased')),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_at TEXT NOT NULL,
    last_error TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    conversation_id TEXT NOT NULL DEFAULT '',
    purged INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS lead_deliveries_due ON lead_deliveries (status, next_at);
"""
# Outboxes written before erasure reached them: statuses without 'erased', no conversation column.
_MIGRATE = """
ALTER TABLE lead_deliveries RENAME TO lead_deliveries_old;
{schema}
INSERT INTO lead_deliveries (delivery_id, goal, body, status, attempts, next_at, last_error, created_at, updated_at,
    conversation_id)
    SELECT delivery_id, goal, body, status, attempts, next_at, last_error, created_at, updated_at,
        COALESCE(json_extract(CAST(body AS TEXT), '$.conversation_id'), '') FROM lead_deliveries_old;
DROP TABLE lead_deliveries_old;
"""
_COLUMNS = ("delivery_id, goal, body, status, attempts, next_at, last_error, created_at, updated_at, conversation_id")


@dataclass(frozen=True)
class Delivery:
    delivery_id: str
    goal: str
    body: bytes
    status: str
    attempts: int
    next_at: str
    last_error: str | None
    created_at: str
    updated_at: str
    conversation_id: str = ""


class Outbox:
    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        private_file(Path(path))
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA secure_delete=ON")  # a purged payload is overwritten, not left in free pages
        found = self._db.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'lead_deliveries'").fetchone()
        if found is not None and "'erased'" not in found[0]:
            self._db.executescript("BEGIN;" + _MIGRATE.format(schema=_SCHEMA) + "COMMIT;")
        else:
            self._db.executescript(_SCHEMA)

    def enqueue(self, delivery_id: str, goal: str, body: bytes, now: datetime, conversation_id: str = "") -> bool:
        """Queue a delivery; False when this delivery id is already known (queued, delivered, dead or erased)."""
        stamp = _iso(now)
        with self._lock:
            inserted = self._db.execute(
                "INSERT OR IGNORE INTO lead_deliveries (delivery_id, goal, body, status, next_at, created_at, "
                "updated_at, conversation_id) VALUES (?, ?, ?, 'pending', ?, ?, ?, ?)",
                (delivery_id, goal, body, stamp, stamp, stamp, conversation_id),
            ).rowcount
        return inserted == 1

    def due(self, now: datetime, limit: int = 100) -> list[Delivery]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM lead_deliveries WHERE status = 'pending' AND next_at <= ? "
                "ORDER BY next_at LIMIT ?",
                (_iso(now), limit),
            ).fetchall()
        return [Delivery(*row) for row in rows]

    def get(self, delivery_id: str) -> Delivery:
        with self._lock:
            row = self._db.execute(f"SELECT {_COLUMNS} FROM lead_deliveries WHERE delivery_id = ?",
                                   (delivery_id,)).fetchone()
        if row is None:
            raise DeliveryError(f"no delivery {delivery_id}", code="leads.delivery_unknown")
        return Delivery(*row)

    def erase_conversation(self, conversation_id: str, now: datetime) -> int:
        """Erasure reaches the outbox: every delivery of the conversation becomes an ``erased`` tombstone (a
        pending one is never sent), its payload overwritten; the WAL is truncated so no old page keeps it."""
        with self._lock:
            changed = self._db.execute(
                "UPDATE lead_deliveries SET status = 'erased', body = ?, purged = 1, last_error = NULL, "
                "updated_at = ? WHERE conversation_id = ? AND (status != 'erased' OR purged = 0)",
                (TOMBSTONE, _iso(now), conversation_id)).rowcount
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return int(changed)

    def purge_delivered(self, now: datetime, retention_s: float) -> int:
        """Delivered payloads older than ``retention_s`` become tombstones (the receiver has its copy)."""
        cutoff = _iso(now - timedelta(seconds=retention_s))
        with self._lock:
            changed = self._db.execute(
                "UPDATE lead_deliveries SET body = ?, purged = 1 WHERE status = 'delivered' AND purged = 0 "
                "AND updated_at <= ?", (TOMBSTONE, cutoff)).rowcount
            if changed:
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return int(changed)

    def delivered(self, delivery_id: str, now: datetime) -> Delivery:
        return self._update(delivery_id, "delivered", now, now, None)

    def retry_later(self, delivery_id: str, now: datetime, delay_s: float, error: str) -> Delivery:
        return self._update(delivery_id, "pending", now, now + timedelta(seconds=delay_s), error)

    def dead_letter(self, delivery_id: str, now: datetime, error: str) -> Delivery:
        return self._update(delivery_id, "dead", now, now, error)

    def dead_letters(self) -> list[Delivery]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM lead_deliveries WHERE status = 'dead' ORDER BY updated_at").fetchall()
        return [Delivery(*row) for row in rows]

    def requeue(self, delivery_id: str, now: datetime) -> Delivery:
        """An operator sends a dead letter again (after fixing the receiver): a fresh attempt budget."""
        with self._lock:
            changed = self._db.execute(
                "UPDATE lead_deliveries SET status = 'pending', attempts = 0, next_at = ?, updated_at = ? "
                "WHERE delivery_id = ? AND status = 'dead'", (_iso(now), _iso(now), delivery_id)).rowcount
        if changed != 1:
            current = self.get(delivery_id)  # leads.delivery_unknown (404) when there is no such delivery
            raise DeliveryError(f"delivery {delivery_id} is {current.status}, not a dead letter",
                                code="leads.not_dead_letter")
        return self.get(delivery_id)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _update(self, delivery_id: str, status: str, now: datetime, next_at: datetime, error: str | None) -> Delivery:
        counted = 1 if error is not None or status == "delivered" else 0
        with self._lock:
            self._db.execute(
                "UPDATE lead_deliveries SET status = ?, attempts = attempts + ?, next_at = ?, last_error = ?, "
                "updated_at = ? WHERE delivery_id = ? AND status != 'erased'",  # erasure is final
                (status, counted, _iso(next_at), error, _iso(now), delivery_id),
            )
        return self.get(delivery_id)


def _iso(moment: datetime) -> str:
    # fixed-width UTC text, so string order is time order in SQL comparisons
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
