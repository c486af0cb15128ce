"""Verify a stored conversation: its records, its stored state and its checkpoint against the checkpoint log.

This is what the operator console's verify endpoint and ``grace audit verify --db`` run: the chain, state
continuity record to record, the stored state against the checkpoint's ``state_hash`` and the last record's
``state_after``, a required checkpoint once records exist, and the checkpoint against the newest entry of
the append-only checkpoint log (rollback, truncation with an older genuine checkpoint).
"""

from __future__ import annotations

from typing import Any, Protocol

from audit.chain import VerifyReport, verify


class VerifiableStore(Protocol):
    def records(self, conversation_id: str) -> list[dict[str, Any]]: ...

    def stored_state(self, conversation_id: str) -> dict[str, Any]: ...

    def checkpoints(self, conversation_id: str) -> list[dict[str, Any]]: ...


def verify_stored(store: VerifiableStore, conversation_id: str, key: bytes) -> VerifyReport:
    records = store.records(conversation_id)
    stored = store.stored_state(conversation_id)
    head = stored.get("audit_head")
    return verify(
        records,
        head,
        key,
        require_checkpoint=True,
        checkpoint_log=store.checkpoints(conversation_id),
        stored_state=stored,
    )
