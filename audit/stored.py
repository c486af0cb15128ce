"""Verify a stored conversation: its records, its stored state and its checkpoint against the checkpoint log.

This is what the operator console's verify endpoint and ``grace audit verify --db`` run: the chain, state
continuity record to record, the stored state against the checkpoint's ``state_hash`` and the last record's
``state_after``, a required checkpoint once records exist, and the checkpoint against the newest entry of
the append-only checkpoint log (rollback, truncation with an older genuine checkpoint).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Protocol

from audit.chain import VerifyReport, verify


class VerifiableStore(Protocol):
    def records(self, conversation_id: str) -> list[dict[str, Any]]: ...

    def stored_state(self, conversation_id: str) -> dict[str, Any]: ...

    def checkpoints(self, conversation_id: str) -> list[dict[str, Any]]: ...


COLUMN_MISMATCH = "audit.column_mismatch"


def verify_stored(store: VerifiableStore, conversation_id: str, key: bytes) -> VerifyReport:
    records = store.records(conversation_id)
    stored = store.stored_state(conversation_id)
    head = stored.get("audit_head")
    report = verify(
        records,
        head,
        key,
        require_checkpoint=True,
        checkpoint_log=store.checkpoints(conversation_id),
        stored_state=stored,
    )
    if not report.ok:
        return report
    return _columns_report(store, conversation_id, stored, report)


def _columns_report(store: VerifiableStore, conversation_id: str, stored: dict[str, Any],
                    report: VerifyReport) -> VerifyReport:
    """Every column the console lists beside the sealed state says what the sealed state says: those columns are
    covered by the seal through this comparison (issue 30: an edited ``state_bits`` was shown and verified ok)."""
    listed = getattr(store, "listed_columns", None)
    if listed is None:
        return report
    columns: dict[str, Any] = listed(conversation_id)
    sealed = {"goal_ref": stored.get("goal_ref"), "language": stored.get("language"), "turn": stored.get("turn"),
              "state_bits": "".join(str(b) for b in stored.get("bits") or [])}
    differing = sorted(name for name, value in sealed.items() if name in columns and columns[name] != value)
    if not differing:
        return report
    return replace(report, ok=False, code=COLUMN_MISMATCH,
                   message=f"stored column(s) {', '.join(differing)} differ from the sealed state")
