"""The webhook outbox: one row per delivery id (idempotent enqueue), its attempts, and the dead-letter list.

Kept in its own SQLite file beside the deployment's data, written in short transactions, so a crash between two
attempts loses nothing: a delivery is pending, delivered or dead, and a pending one is retried when due."""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from engine.leads.errors import DeliveryError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS lead_deliveries (
    delivery_id TEXT PRIMARY KEY,
    goal TEXT NOT NULL,
    body BLOB NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'dead')),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_at TEXT NOT NULL,
    last_error TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS lead_deliveries_due ON lead_deliveries (status, next_at);
"""


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


class Outbox:
    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)

    def enqueue(self, delivery_id: str, goal: str, body: bytes, now: datetime) -> bool:
        """Queue a delivery; False when this delivery id is already known (queued, delivered or dead)."""
        stamp = _iso(now)
        with self._lock:
            inserted = self._db.execute(
                "INSERT OR IGNORE INTO lead_deliveries (delivery_id, goal, body, status, next_at, created_at, "
                "updated_at) VALUES (?, ?, ?, 'pending', ?, ?, ?)",
                (delivery_id, goal, body, stamp, stamp, stamp),
            ).rowcount
        return inserted == 1

    def due(self, now: datetime, limit: int = 100) -> list[Delivery]:
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM lead_deliveries WHERE status = 'pending' AND next_at <= ? ORDER BY next_at LIMIT ?",
                (_iso(now), limit),
            ).fetchall()
        return [Delivery(*row) for row in rows]

    def get(self, delivery_id: str) -> Delivery:
        with self._lock:
            row = self._db.execute("SELECT * FROM lead_deliveries WHERE delivery_id = ?", (delivery_id,)).fetchone()
        if row is None:
            raise DeliveryError(f"no delivery {delivery_id}", code="leads.delivery_unknown")
        return Delivery(*row)

    def delivered(self, delivery_id: str, now: datetime) -> Delivery:
        return self._update(delivery_id, "delivered", now, now, None)

    def retry_later(self, delivery_id: str, now: datetime, delay_s: float, error: str) -> Delivery:
        return self._update(delivery_id, "pending", now, now + timedelta(seconds=delay_s), error)

    def dead_letter(self, delivery_id: str, now: datetime, error: str) -> Delivery:
        return self._update(delivery_id, "dead", now, now, error)

    def dead_letters(self) -> list[Delivery]:
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM lead_deliveries WHERE status = 'dead' ORDER BY updated_at").fetchall()
        return [Delivery(*row) for row in rows]

    def requeue(self, delivery_id: str, now: datetime) -> Delivery:
        """An operator sends a dead letter again (after fixing the receiver): a fresh attempt budget."""
        with self._lock:
            changed = self._db.execute(
                "UPDATE lead_deliveries SET status = 'pending', attempts = 0, next_at = ?, updated_at = ? "
                "WHERE delivery_id = ? AND status = 'dead'", (_iso(now), _iso(now), delivery_id)).rowcount
        if changed != 1:
            raise DeliveryError(f"delivery {delivery_id} is not a dead letter", code="leads.not_dead_letter")
        return self.get(delivery_id)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _update(self, delivery_id: str, status: str, now: datetime, next_at: datetime, error: str | None) -> Delivery:
        counted = 1 if error is not None or status == "delivered" else 0
        with self._lock:
            self._db.execute(
                "UPDATE lead_deliveries SET status = ?, attempts = attempts + ?, next_at = ?, last_error = ?, "
                "updated_at = ? WHERE delivery_id = ?",
                (status, counted, _iso(next_at), error, _iso(now), delivery_id),
            )
        return self.get(delivery_id)


def _iso(moment: datetime) -> str:
    # fixed-width UTC text, so string order is time order in SQL comparisons
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
