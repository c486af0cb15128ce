"""The turn request's read-ahead (engine/storage/read_ahead), held to the plain reads it replaces:

* inside a block, ``access``, ``idempotent`` and ``load_with_cipher`` answer exactly what they answer outside
  one, value or error, for live, erased and unknown conversations, with and without an idempotency entry;
* on PostgreSQL the three reads are one statement;
* each prefetched part is used once; a turn whose prefetch went stale (another writer committed meanwhile) runs
  again on fresh reads, and finds the other writer's idempotency entry when it used the same key;
* a turn that waited for the conversation's lock drops the prefetch.
"""

from __future__ import annotations

import threading
import time
import uuid
from typing import Any
from unittest import mock

import pytest

from audit.chain import verify
from engine.errors import StoreError
from engine.kernel.ports import IdempotencyEntry, IdempotencyKey
from engine.service.engine_thread import EngineThread
from engine.service.locks import KeyedLocks
from engine.service.turns import TurnSubmitter, fingerprint
from engine.storage.base import DurableStore
from engine.storage.read_ahead import IdempotencyRow, ReadAhead, TurnRow, open_for, read_ahead
from engine.storage.rows import KeyedRow
from tests.storage.backends import StoreFactory
from tests.storage.sealing import AUDIT_KEY, demo_runtime, raw


def _outcome(read: Any, *args: Any) -> Any:
    """What a read returns, comparable across calls: the value (models dumped) or the error code."""
    try:
        value = read(*args)
    except StoreError as exc:
        return ("error", exc.code)
    if isinstance(value, tuple):  # load_with_cipher: (state, cipher)
        state, cipher = value
        return state.model_dump(mode="json"), cipher is None
    return value


def _reads(store: DurableStore, cid: str, key: str | None) -> list[Any]:
    got = [_outcome(store.access, cid)]
    if key is not None:
        got.append(_outcome(store.idempotent, cid, key))
    got.append(_outcome(store.load_with_cipher, cid))
    return got


@pytest.mark.parametrize("case", ["fresh", "entry", "other_key", "no_key", "erased_with_entry", "unknown"])
def test_reads_inside_a_read_ahead_equal_the_plain_reads(factory: StoreFactory, case: str) -> None:
    store = factory.open(AUDIT_KEY)
    runtime = demo_runtime(store)
    cid = runtime.start(language="en").conversation_id
    used = "k-" + uuid.uuid4().hex
    if case != "fresh":
        runtime.handle(cid, "Hello, my budget is 300,000 euros",
                       idempotency=IdempotencyKey(used, fingerprint("Hello, my budget is 300,000 euros")))
    if case == "erased_with_entry":  # erasure deletes the entries: put one back, as a restored backup would
        entry = raw(factory, "SELECT * FROM grace_idempotency")[0]
        store.erase(cid, actor="test")
        raw(factory, f"INSERT INTO grace_idempotency VALUES ({', '.join('?' * len(entry))})", entry)
    if case == "unknown":
        cid = uuid.uuid4().hex
    key = {"other_key": "k-other", "no_key": None}.get(case, used)
    plain = _reads(store, cid, key)
    with read_ahead(cid, key):
        ahead = _reads(store, cid, key)
    assert ahead == plain
    if case == "entry":
        assert isinstance(plain[1], IdempotencyEntry) and plain[1].key == used  # the case holds an entry
    if case == "erased_with_entry":
        assert plain[1] == ("error", "store.erased")


@pytest.mark.postgres
def test_on_postgres_the_three_reads_are_one_statement(factory: StoreFactory) -> None:
    if factory.backend != "postgres":
        pytest.skip("round trips are a PostgreSQL matter")
    store = factory.open(AUDIT_KEY)
    runtime = demo_runtime(store)
    cid = runtime.start(language="en").conversation_id
    runtime.handle(cid, "Hello, my budget is 300,000 euros")
    with mock.patch.object(store, "_conn", wraps=store._conn) as conn:  # type: ignore[attr-defined]
        _reads(store, cid, "k-1")
        assert conn.call_count == 3
        conn.reset_mock()
        with read_ahead(cid, "k-1"):
            _reads(store, cid, "k-1")
            assert conn.call_count == 1
            _reads(store, cid, "k-1")  # a second round (a retry) reads the database again
            assert conn.call_count == 4


def test_each_prefetched_part_is_taken_once_and_only_for_its_conversation_and_key() -> None:
    keyed = KeyedRow("{}", None, False)
    entry = IdempotencyRow("sha256:x", 1, "{}")
    with read_ahead("c1", "k") as ahead:
        assert open_for("c1") is ahead and open_for("c2") is None
        assert ahead.take_row() is None and ahead.take_idempotency("k") == (False, None, None)  # nothing yet
        ahead.fill(TurnRow(keyed, entry))
        assert ahead.take_idempotency("other") == (False, None, None)
        assert ahead.take_idempotency("k") == (True, entry, keyed)
        assert ahead.take_idempotency("k") == (False, None, None)
        assert ahead.take_row() is keyed
        assert ahead.take_row() is None
    assert open_for("c1") is None
    dropped = ReadAhead("c1", None)
    dropped.fill(TurnRow(keyed, None))
    dropped.drop()
    assert dropped.take_row() is None and not dropped.filled


def _in_fresh_context(fn: Any) -> None:
    """Run ``fn`` on another thread: a new thread starts without the caller's context (no read-ahead), as
    another process would."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            fn()
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]


@pytest.mark.parametrize("same_key", [False, True])
def test_a_stale_prefetch_runs_the_turn_again_on_fresh_reads(factory: StoreFactory, same_key: bool) -> None:
    store = factory.open(AUDIT_KEY)
    runtime = demo_runtime(store)
    cid = runtime.start(language="en").conversation_id
    submitter = TurnSubmitter(store, attempts=3, engine=EngineThread("test-read-ahead"))
    message = "Hello, my budget is 300,000 euros"
    with read_ahead(cid, "k-mine") as ahead:
        store.access(cid)
        if not ahead.filled:  # SQLite has no turn_row: give it the prefetch PostgreSQL makes, the row as it is now
            ahead.fill(TurnRow(_keyed_row(store, cid), None))
        other_key = "k-mine" if same_key else "k-other"
        _in_fresh_context(lambda: runtime.handle(cid, message, idempotency=IdempotencyKey(other_key,
                                                                                           fingerprint(message))))
        submitted = submitter.submit(runtime, cid, message, "k-mine")
    assert submitted.replayed is same_key
    state = store.load(cid)
    assert state.turn == (1 if same_key else 2)
    report = verify(store.records(cid), checkpoint=state.audit_head, key=AUDIT_KEY)
    assert report.ok, report


def _keyed_row(store: DurableStore, cid: str) -> KeyedRow:
    row = store.keyed_row(cid, with_state=True)  # type: ignore[attr-defined]
    assert isinstance(row, KeyedRow)
    return row


def test_a_turn_that_waited_for_the_conversation_lock_drops_the_prefetch(factory: StoreFactory) -> None:
    store = factory.open(AUDIT_KEY)
    runtime = demo_runtime(store)
    cid = runtime.start(language="en").conversation_id
    submitter = TurnSubmitter(store, attempts=3, engine=EngineThread("test-read-ahead-lock"))
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with submitter.locks.hold(cid):
            holding.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    holding.wait(10)
    with read_ahead(cid, None) as ahead:
        ahead.fill(TurnRow(KeyedRow("not json", None, False), None))  # would fail the turn if it were used
        threading.Timer(0.2, release.set).start()
        submitted = submitter.submit(runtime, cid, "Hello, my budget is 300,000 euros", None)
        assert not ahead.filled
    holder.join(10)
    assert not submitted.replayed and store.load(cid).turn == 1


def test_keyed_locks_tell_whether_the_holder_waited() -> None:
    locks = KeyedLocks()
    with locks.hold("a") as waited:
        assert waited is False
        seen: list[bool] = []

        def second() -> None:
            with locks.hold("a") as waited_too:
                seen.append(waited_too)

        thread = threading.Thread(target=second)
        thread.start()
        time.sleep(0.1)
        assert seen == []  # still waiting
    thread.join(10)
    assert seen == [True]
    assert len(locks) == 0
