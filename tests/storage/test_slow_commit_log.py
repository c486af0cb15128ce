"""PostgreSQL logs a turn commit slower than its threshold with where the time went (pool wait, row-lock round
trip, work under the lock, write + COMMIT round trip): the app-side view of a latency tail, next to
PostgreSQL's own log."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
import structlog

from engine.errors import StoreError
from engine.kernel.conversation import ConversationState
from engine.storage import errors
from engine.storage.postgres import PostgresStore
from tests.storage.backends import PG_URL
from tests.storage.test_storage_contract import advance, record_for

pytestmark = [pytest.mark.postgres, pytest.mark.skipif(not PG_URL, reason="GRACE_TEST_POSTGRES_URL is not set")]

PHASES = ("pool_wait_ms", "lock_ms", "held_ms", "commit_ms")


def _state() -> ConversationState:
    return ConversationState.model_validate({
        "conversation_id": uuid.uuid4().hex, "goal_ref": "demo-goal@v1", "goal_hash": "sha256:" + "a" * 64,
        "bundle_hash": "sha256:" + "b" * 64, "language": "en", "bits": [0, 0, 0, 0],
    })


def _commit_events(threshold_ms: float | None) -> list[dict[str, Any]]:
    schema = f"t_{uuid.uuid4().hex[:16]}"
    store = PostgresStore(PG_URL, schema=schema, slow_commit_ms=threshold_ms)
    try:
        state = _state()
        store.create(state)
        with structlog.testing.capture_logs() as events:
            for _ in range(3):
                new = advance(state)
                store.commit_turn(new, record_for(new), expected_turn=state.turn)
                state = new
            # a refused commit (stale turn) wrote nothing: it is not a commit and is never logged as one
            with pytest.raises(StoreError) as refused:
                store.commit_turn(advance(state), record_for(advance(state)), expected_turn=0)
            assert refused.value.code == errors.CONFLICT
    finally:
        store.close()
        import psycopg

        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'.encode())
    return [dict(e) for e in events if e["event"] == "storage.commit.slow"]


def test_every_commit_is_logged_with_its_phases_at_threshold_zero() -> None:
    events = _commit_events(0.0)
    assert len(events) == 3
    for event in events:
        assert event["log_level"] == "warning" and event["backend"] == "postgres"
        phases = [float(event[p]) for p in PHASES]
        assert all(p >= 0 for p in phases)
        # the phases partition the commit's wall time (each rounded to 0.1 ms)
        assert abs(sum(phases) - float(event["total_ms"])) <= 0.5


@pytest.mark.parametrize("threshold", [None, 60_000.0])
def test_fast_commits_and_no_threshold_log_nothing(threshold: float | None) -> None:
    assert _commit_events(threshold) == []
