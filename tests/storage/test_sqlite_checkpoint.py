"""SQLite's WAL checkpoints run on the store's own thread: the committing connection only checkpoints past a
large backstop, the WAL stays bounded all the same, every commit is kept, erasure's TRUNCATE checkpoint waits
for a running one, and ``close`` stops the thread."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from engine.kernel.conversation import ConversationState
from engine.storage.sqlite import SQLiteStore
from engine.storage.sqlite_checkpoint import AUTOCHECKPOINT_BACKSTOP_PAGES, WalCheckpointer

COMMITS = 400  # each one a write transaction of a few pages


def _state(i: int) -> ConversationState:
    return ConversationState(conversation_id=f"c{i:04d}", goal_ref="g@1", goal_hash="sha256:g", bundle_hash="sha256:b",
                             language="en", bits=[0, 0])


def _wait_for(predicate: object, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.01)
    return False


def test_checkpoints_leave_the_turn_and_keep_the_wal_bounded(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "grace.db")
    store._checkpointer._every = 4
    try:
        conn = store._conn()
        assert conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == AUTOCHECKPOINT_BACKSTOP_PAGES
        for i in range(COMMITS):
            store.create(_state(i))
            if i % 4 == 3:  # paced like turns: the checkpoint finishes before the next commit begins
                assert _wait_for(lambda n=(i + 1) // 4: store._checkpointer.checkpoints >= n)
        # Without checkpoints every commit would append to the WAL (about 3 pages of 4 KB each, 1,200 in all,
        # below the backstop): with them the writers restart it from its beginning. The file keeps its largest
        # size, and on a loaded host a writer now and then begins just before a restart is possible (106 pages
        # were seen on a CI host, 12 on an idle one), so the bound is a quarter of the unchecked growth.
        wal = Path(f"{tmp_path / 'grace.db'}-wal")
        assert wal.stat().st_size < COMMITS * 3 * 4096 // 4
    finally:
        store.close()
    reopened = sqlite3.connect(tmp_path / "grace.db")
    try:
        assert reopened.execute("SELECT COUNT(*) FROM grace_conversations").fetchone()[0] == COMMITS
    finally:
        reopened.close()


def test_close_stops_the_thread_and_a_reopened_store_starts_one(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "grace.db")
    store._checkpointer._every = 2
    for i in range(4):
        store.create(_state(i))
    thread = store._checkpointer._thread
    assert thread is not None and thread.is_alive()
    store.close()
    assert not thread.is_alive() and store._checkpointer._thread is None
    for i in range(4, 8):
        store.create(_state(i))
    assert store._checkpointer._thread is not None
    store.close()


def test_exclusive_waits_for_a_running_checkpoint(tmp_path: Path) -> None:
    checkpointer = WalCheckpointer(tmp_path / "x.db", every_commits=1)
    entered = threading.Event()
    inside: list[bool] = []
    with checkpointer.exclusive():
        worker = threading.Thread(target=lambda: (entered.set(), checkpointer._running.acquire(),
                                                  inside.append(True), checkpointer._running.release()))
        worker.start()
        entered.wait(5)
        time.sleep(0.05)
        assert inside == []  # a checkpoint would still be waiting here
    worker.join(5)
    assert inside == [True]
