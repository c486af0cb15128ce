"""Turns for one conversation never interleave and no update is lost: threads, then separate processes."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from engine.kernel.conversation import ConversationState, Role
from tests.storage.backends import StoreFactory
from tests.storage.concurrent_worker import run_turns

MakeState = Callable[..., ConversationState]
WORKER = Path(__file__).with_name("concurrent_worker.py")


def assert_serial_history(factory: StoreFactory, conversation_id: str, expected: set[str]) -> None:
    store = factory.open()
    state = store.load(conversation_id)
    records = store.records(conversation_id)
    texts = [m.text for m in state.messages if m.role is Role.VISITOR]
    assert state.turn == len(expected)
    assert sorted(texts) == sorted(expected)  # nothing lost, nothing duplicated
    assert [m.turn for m in state.messages] == list(range(1, len(expected) + 1))
    assert [r["turn"] for r in records] == list(range(1, len(expected) + 1))  # one record per turn, in order
    assert [r["text"] for r in records] == texts  # records and state agree turn by turn


def test_threads_on_separate_store_instances(factory: StoreFactory, make_state: MakeState) -> None:
    state = make_state()
    factory.open().create(state)
    workers, per_worker = 4, 12
    stores = [factory.open() for _ in range(workers)]
    failures: list[BaseException] = []

    def work(index: int) -> None:
        try:
            run_turns(stores[index], state.conversation_id, f"t{index}", per_worker)
        except BaseException as exc:  # surfaced below: a thread cannot fail the test itself
            failures.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    expected = {f"t{w}-{i}" for w in range(workers) for i in range(per_worker)}
    assert_serial_history(factory, state.conversation_id, expected)


def test_separate_processes(factory: StoreFactory, make_state: MakeState) -> None:
    state = make_state()
    factory.open().create(state)
    location = str(factory.path) if factory.backend == "sqlite" else factory.url
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path.cwd()), *sys.path])}
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                str(WORKER),
                factory.backend,
                location,
                factory.schema,
                state.conversation_id,
                f"p{index}",
                "10",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for index in range(3)
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        int(out.strip().splitlines()[-1])  # last line: the retried conflicts (structlog prints before)
    expected = {f"p{w}-{i}" for w in range(3) for i in range(10)}
    assert_serial_history(factory, state.conversation_id, expected)
