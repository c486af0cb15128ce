"""Worker process for the cross-process concurrency test: N read-modify-write turns with bounded retries.

Usage: python concurrent_worker.py BACKEND LOCATION SCHEMA CONVERSATION_ID WORKER_NAME N
Prints the number of conflicts it had to retry.
"""

from __future__ import annotations

import sys

from engine.errors import StoreError
from engine.kernel.conversation import Message, Role
from engine.storage.base import DurableStore
from engine.storage.errors import RETRYABLE

MAX_ATTEMPTS = 200


def open_store(backend: str, location: str, schema: str) -> DurableStore:
    if backend == "sqlite":
        from engine.storage.sqlite import SQLiteStore

        return SQLiteStore(location)
    from engine.storage.postgres import PostgresStore

    return PostgresStore(location, schema=schema, max_size=2)


def run_turns(store: DurableStore, conversation_id: str, worker: str, count: int) -> int:
    conflicts = 0
    for index in range(count):
        for _attempt in range(MAX_ATTEMPTS):
            state = store.load(conversation_id)
            turn = state.turn + 1
            text = f"{worker}-{index}"
            new = state.model_copy(
                update={
                    "turn": turn,
                    "messages": [*state.messages, Message(role=Role.VISITOR, turn=turn, text=text)],
                }
            )
            try:
                store.commit_turn(new, {"turn": turn, "text": text}, expected_turn=state.turn)
                break
            except StoreError as exc:
                if exc.code not in RETRYABLE:
                    raise
                conflicts += 1
        else:
            raise RuntimeError(f"{worker} gave up on {text}")
    return conflicts


if __name__ == "__main__":
    backend, location, schema, cid, name, n = sys.argv[1:7]
    opened = open_store(backend, location, schema)
    try:
        print(run_turns(opened, cid, name, int(n)))
    finally:
        opened.close()
