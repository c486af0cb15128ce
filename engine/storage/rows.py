"""The rows a store reads and writes around one turn, shared by the store protocol, its backends and the read-ahead
of a turn request (kept apart so that neither of those imports the other)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KeyedRow:
    """A conversation's stored state (empty when not asked for), its wrapped data key and whether it was erased,
    read in one snapshot."""

    state_json: str
    wrapped_key: bytes | None
    erased: bool


@dataclass(frozen=True)
class LockedHead(KeyedRow):
    """What a commit reads once it holds the conversation's write lock."""

    turn: int
    next_seq: int  # the 1-based row number the new audit record takes
    newest_counter: int  # the newest logged checkpoint counter (0: none yet)
    # What the commit checks before it appends (issue 30): -1 / None where a backend does not read it.
    record_count: int = -1  # audit records stored for the conversation (a deleted one leaves a gap)
    head_record_hash: str | None = None  # the ``hash`` of the conversation's newest stored record
    state_bits: str | None = None  # the column the console lists, beside the sealed state
    all_checkpoints: int = -1  # the database's checkpoint log length (the rollback anchor compares it)


@dataclass(frozen=True)
class CheckpointRow:
    counter: int
    seq: int
    checkpoint_json: str


@dataclass(frozen=True)
class IdempotencyWrite:
    """An idempotency entry as a commit writes it (read back as ``read_ahead.IdempotencyRow``)."""

    key: str
    fingerprint: str
    response_json: str


@dataclass(frozen=True)
class CommitRows:
    """Everything one turn writes, in the transaction that locked the conversation."""

    conversation_id: str
    turn: int
    state_bits: str
    state_json: str
    seq: int
    record_json: str
    checkpoint: CheckpointRow | None
    idempotency: IdempotencyWrite | None
