"""The protocol of the SQL stores, written once: turn ordering, the erasure check, the state seal, the audit
chain append, idempotency, and crypto-shredding.

Each backend supplies a small port (:class:`SQLPort`): its transactions, and inside them the few statements that
read the locked conversation and write the turn. The decisions (what is refused, in which order, with which
error) live here, so SQLite and PostgreSQL cannot drift apart. A port's transaction decides its own round trips:
PostgreSQL pipelines the lock with the chain heads and the writes with the COMMIT.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol

import structlog

from audit.vault import FieldCipher
from engine.errors import IntegrityError
from engine.kernel.conversation import ConversationState
from engine.kernel.ports import IdempotencyEntry
from engine.storage import codec, errors, read_ahead
from engine.storage.base import ConversationAccess, Erasure
from engine.storage.keyring import KeyRing
from engine.storage.rows import CheckpointRow, CommitRows, IdempotencyWrite, KeyedRow, LockedHead
from engine.storage.turn_session import StoreTurn

log = structlog.get_logger("engine.storage.protocol")

CHAIN_BROKEN = "audit.chain_broken"  # a stored audit record was deleted, swapped or replaced
COLUMN_MISMATCH = "audit.column_mismatch"  # a listed column (state bits, turn) differs from the sealed state


class CommitTx(Protocol):
    def lock_head(self, conversation_id: str) -> LockedHead | None: ...

    def write(self, rows: CommitRows) -> None: ...

    def recount_checkpoints(self) -> int:
        """The checkpoint log's highest row number read again now (``lock_head`` gave it at the lock)."""
        ...


class EraseTx(Protocol):
    def lock_keys(self, conversation_id: str) -> KeyedRow | None: ...

    def shred(self, conversation_id: str, actor: str) -> None:
        """Delete the data key and the stored responses; append the erase action to the operator log."""
        ...


class SQLPort(Protocol):
    backend: str
    keys: KeyRing

    def keyed_row(self, conversation_id: str, *, with_state: bool) -> KeyedRow | None: ...

    def commit_tx(self) -> AbstractContextManager[CommitTx]: ...

    def erase_tx(self) -> AbstractContextManager[EraseTx]: ...

    def scrub(self, conversation_id: str) -> None:
        """After an erasure: overwrite copies of the deleted key the database keeps (WAL pages, dead tuples)."""
        ...

    def erasure(self, conversation_id: str) -> Erasure | None: ...

    def is_duplicate(self, exc: BaseException) -> bool:
        """Whether ``exc`` (raised out of ``commit_tx``) is a unique-key violation: another commit came first."""
        ...

    def check_anchor(self, all_checkpoints: int, recount: Callable[[], int]) -> None:
        """Refuse (``store.rollback_detected``) a checkpoint log shorter than the rollback anchor. ``recount``
        reads the log again: where other connections commit concurrently (PostgreSQL), a commit that raised the
        anchor after this transaction's locked read is not a rollback."""
        ...

    def committed_checkpoints(self, all_checkpoints: int) -> None:
        """After a commit: the checkpoint log now holds ``all_checkpoints`` rows (raise the anchor)."""
        ...


class ProtocolStore:
    """The ``ConversationStore`` methods both SQL stores take from this module: the store is its own port."""

    def load(self: SQLPort, conversation_id: str) -> ConversationState:
        return load(self, conversation_id)

    def access(self: SQLPort, conversation_id: str) -> ConversationAccess:
        """What the service checks and routes on before a turn, without decrypting the state."""
        return access(self, conversation_id)

    def cipher(self: SQLPort, conversation_id: str) -> FieldCipher | None:
        """The conversation's field cipher (None: a plaintext conversation); ``store.erased`` once erased."""
        return cipher(self, conversation_id)

    def load_with_cipher(self: SQLPort, conversation_id: str) -> tuple[ConversationState, FieldCipher | None]:
        """``cipher`` and ``load`` in one read (a turn needs both): ``store.erased`` once erased."""
        state, opened, _ = load_with_cipher(self, conversation_id)
        return state, opened

    @contextmanager
    def open_turn(self: SQLPort, conversation_id: str) -> Iterator[StoreTurn]:
        """A turn's session: state and cipher from one read; its commit reuses the cipher and the stored form
        (engine/storage/turn_session)."""
        port = self

        def committer(state: ConversationState, record: dict[str, Any], expected_turn: int, *,
                      idempotency: IdempotencyEntry | None, session: StoreTurn) -> None:
            port.commit_turn(state, record, expected_turn, idempotency=idempotency,  # type: ignore[attr-defined]
                             session=session)

        state, opened, wrapped = load_with_cipher(self, conversation_id)
        session = StoreTurn(state, opened, wrapped, committer)
        try:
            yield session
        finally:
            session.close()

    def commit_turn(
        self: SQLPort,
        state: ConversationState,
        record: dict[str, Any],
        expected_turn: int,
        *,
        idempotency: IdempotencyEntry | None = None,
        session: StoreTurn | None = None,
    ) -> None:
        """Append one turn (``commit_turn`` below); ``session``: the turn session this commit ends."""
        commit_turn(self, state, record, expected_turn, idempotency, session)

    def erase(self: SQLPort, conversation_id: str, *, actor: str) -> Erasure:
        """Destroy the conversation's data key (crypto-shredding) and log the operator action."""
        return erase(self, conversation_id, actor=actor)


# -- reads ---------------------------------------------------------------------------------------------


def _keyed(port: SQLPort, conversation_id: str, *, with_state: bool) -> KeyedRow:
    row = port.keyed_row(conversation_id, with_state=with_state)
    if row is None:
        raise errors.not_found(conversation_id)
    return row


def load(port: SQLPort, conversation_id: str) -> ConversationState:
    """The state; personal strings show as erased once the conversation's key is gone."""
    row = _keyed(port, conversation_id, with_state=True)
    return codec.load_state(row.state_json, port.keys.open(conversation_id, row.wrapped_key), erased=row.erased)


def access(port: SQLPort, conversation_id: str) -> ConversationAccess:
    """``load``'s conversation id, goal, language, turn and visitor key hash, read from the stored JSON alone
    (no key unwrapped, nothing decrypted, no model built): an erased conversation answers as ``load`` does.
    Inside a turn request's ``read_ahead`` block this read also prefetches the turn's other reads."""
    row = _access_row(port, conversation_id)
    fast = codec.load_access(row.state_json)
    if fast is not None:
        return fast
    state = codec.load_state(row.state_json, port.keys.open(conversation_id, row.wrapped_key), erased=row.erased)
    return ConversationAccess.of(state)


def cipher(port: SQLPort, conversation_id: str) -> FieldCipher | None:
    """The conversation's field cipher (None: a plaintext conversation); ``store.erased`` once erased."""
    row = _keyed(port, conversation_id, with_state=False)
    if row.erased:
        raise errors.erased(conversation_id)
    return port.keys.open(conversation_id, row.wrapped_key)


def _access_row(port: SQLPort, conversation_id: str) -> KeyedRow:
    ahead = read_ahead.open_for(conversation_id)
    turn_row = getattr(port, "turn_row", None)
    if ahead is None or ahead.filled or turn_row is None:
        return _keyed(port, conversation_id, with_state=True)
    prefetched: read_ahead.TurnRow = turn_row(conversation_id, ahead.key)
    if prefetched.keyed is None:
        raise errors.not_found(conversation_id)
    ahead.fill(prefetched)
    return prefetched.keyed


def load_with_cipher(
    port: SQLPort, conversation_id: str
) -> tuple[ConversationState, FieldCipher | None, bytes | None]:
    """``cipher`` and ``load`` from one read (a turn needs both), with the wrapped key the cipher came from:
    ``store.erased`` once erased. The row the turn request's access check prefetched is used once
    (engine/storage/read_ahead)."""
    ahead = read_ahead.open_for(conversation_id)
    row = (ahead.take_row() if ahead is not None else None) or _keyed(port, conversation_id, with_state=True)
    if row.erased:
        raise errors.erased(conversation_id)
    opened = port.keys.open(conversation_id, row.wrapped_key)
    return codec.load_state(row.state_json, opened, erased=False), opened, row.wrapped_key


# -- the turn commit -----------------------------------------------------------------------------------


def check_pins(old: Mapping[str, Any], new: ConversationState) -> None:
    """INVARIANT: a conversation stays pinned to one goal-spec version and one rule-bundle version."""
    for field in ("conversation_id", "goal_ref", "goal_hash", "bundle_hash"):
        if old.get(field) != getattr(new, field):
            raise errors.StoreError(
                f"commit would change the pinned {field} of conversation {new.conversation_id!r}",
                code=errors.PIN_MISMATCH,
            )


def check_commit_args(state: ConversationState, expected_turn: int, idempotency: IdempotencyEntry | None) -> None:
    if state.turn <= expected_turn:
        raise errors.StoreError(
            f"new state turn {state.turn} does not advance past {expected_turn}",
            code=errors.TURN_NOT_ADVANCED,
        )
    if idempotency is not None and idempotency.conversation_id != state.conversation_id:
        raise errors.StoreError("idempotency entry belongs to another conversation", code=errors.PIN_MISMATCH)


def check_integrity(conversation_id: str, stored: Mapping[str, Any], head: LockedHead) -> None:
    """INVARIANT: a conversation whose stored rows no longer form its sealed chain takes no new turn. Checked under
    the write lock, cheaply: no record was deleted (the count equals the numbering), the newest record is the one
    the stored checkpoint anchors (not swapped or edited), and the listed columns say what the sealed state says.
    A tampered record in the middle is found by ``verify`` (which reads every record)."""
    problem = None
    audit_head = stored.get("audit_head")
    if head.record_count >= 0 and head.record_count != head.next_seq - 1:
        problem = (CHAIN_BROKEN, f"{head.next_seq - 1 - head.record_count} audit record(s) are missing")
    elif isinstance(audit_head, Mapping) and head.record_count > 0 and head.head_record_hash is not None \
            and head.head_record_hash != audit_head.get("head_hash"):
        problem = (CHAIN_BROKEN, "the newest audit record is not the one the checkpoint anchors")
    elif head.state_bits is not None and head.state_bits != "".join(str(b) for b in stored.get("bits") or []):
        problem = (COLUMN_MISMATCH, "the listed state is not the sealed state")
    elif stored.get("turn") is not None and stored.get("turn") != head.turn:
        problem = (COLUMN_MISMATCH, "the listed turn is not the sealed state's turn")
    if problem is not None:
        log.error("storage.integrity.failed", conversation_id=conversation_id, code=problem[0])
        raise IntegrityError(f"conversation {conversation_id}: {problem[1]}; it takes no new turn", code=problem[0])


def check_counter(
    conversation_id: str, checkpoint: Mapping[str, Any], newest: int, record: Mapping[str, Any], seq: int
) -> None:
    """INVARIANT: checkpoint counters go 1, 2, 3, ... per conversation (anything else is a rollback), and the
    new checkpoint anchors the record committed with it (``seq`` is the 1-based row number)."""
    counter = checkpoint.get("counter")
    if counter != newest + 1:
        raise errors.StoreError(
            f"checkpoint counter {counter!r} of conversation {conversation_id!r} does not follow the logged"
            f" counter {newest} (stored checkpoint rolled back?)",
            code=errors.CHECKPOINT_ROLLBACK,
        )
    if checkpoint.get("seq") != seq - 1 or checkpoint.get("head_hash") != record.get("hash"):
        raise errors.StoreError(
            f"checkpoint of conversation {conversation_id!r} does not anchor the record committed with it",
            code=errors.CHECKPOINT_ROLLBACK,
        )


def commit_turn(
    port: SQLPort,
    state: ConversationState,
    record: dict[str, Any],
    expected_turn: int,
    idempotency: IdempotencyEntry | None,
    session: StoreTurn | None = None,
) -> None:
    """Append one turn: under the conversation's write lock, refuse an unknown or erased conversation, a turn
    that is not ``expected_turn`` (another turn came first), a change of pins and a checkpoint that does not
    follow the log; then write the sealed state, the audit record, the checkpoint and the idempotency entry
    together. Nothing is written unless all of it is."""
    check_commit_args(state, expected_turn, idempotency)
    cid = state.conversation_id
    # Serialise the inputs before the transaction: an unserialisable record never takes the lock.
    record_json = codec.dump_record(record)
    head_json = codec.dump_record(state.audit_head) if state.audit_head is not None else None
    try:
        with port.commit_tx() as tx:
            head = tx.lock_head(cid)
            if head is None:
                raise errors.not_found(cid)
            if head.erased:
                raise errors.erased(cid)
            if head.turn != expected_turn:
                log.info("storage.turn.conflict", backend=port.backend, conversation_id=cid,
                         expected=expected_turn, found=head.turn)
                raise errors.conflict(cid, expected_turn, head.turn)
            stored_before = codec.load_stored(head.state_json)
            check_pins(stored_before, state)
            # The key the turn's load unwrapped, if it is still the stored one (engine/storage/turn_session).
            sealer = session.cipher_for(head.wrapped_key) if session is not None else None
            if sealer is None:
                sealer = port.keys.open(cid, head.wrapped_key)
            checkpoint = None
            if state.audit_head is not None and head_json is not None:
                check_counter(cid, state.audit_head, head.newest_counter, record, head.next_seq)
                checkpoint = CheckpointRow(state.audit_head["counter"], state.audit_head["seq"], head_json)
            check_integrity(cid, stored_before, head)
            if head.all_checkpoints >= 0:
                port.check_anchor(head.all_checkpoints, tx.recount_checkpoints)
            entry = None
            if idempotency is not None:
                entry = IdempotencyWrite(idempotency.key, idempotency.fingerprint,
                                       codec.dump_response(idempotency.response, sealer))
            seq = head.next_seq
            # The turn already built the stored form for its checkpoint (engine/storage/turn_session).
            stored = session.stored_for(state, sealer) if session is not None else None
            state_json = (codec.dump_json(stored, what="state") if stored is not None
                          else codec.dump_state(state, sealer))
            tx.write(CommitRows(
                conversation_id=cid, turn=state.turn, state_bits=state.state_string(),
                state_json=state_json, seq=seq, record_json=record_json,
                checkpoint=checkpoint, idempotency=entry,
            ))
    except Exception as exc:
        if port.is_duplicate(exc):
            # Another request with this idempotency key (or this record number) committed first: the caller
            # re-reads the entry or retries the turn.
            raise errors.StoreError(f"concurrent commit on conversation {cid!r}", code=errors.CONFLICT) from exc
        raise
    if head.all_checkpoints >= 0 and checkpoint is not None:
        port.committed_checkpoints(head.all_checkpoints + 1)
    log.info("storage.turn.committed", backend=port.backend, conversation_id=cid, turn=state.turn, seq=seq)


# -- erasure -------------------------------------------------------------------------------------------


def erase(port: SQLPort, conversation_id: str, *, actor: str) -> Erasure:
    """Destroy the conversation's data key (crypto-shredding) and log the operator action; erasing twice
    returns the first erasure. A plaintext conversation has no key to destroy: ``store.not_erasable``."""
    with port.erase_tx() as tx:
        row = tx.lock_keys(conversation_id)
        if row is None:
            raise errors.not_found(conversation_id)
        if not row.erased:
            if row.wrapped_key is None:
                raise errors.not_erasable(conversation_id)
            tx.shred(conversation_id, actor)
    port.scrub(conversation_id)
    done = port.erasure(conversation_id)
    assert done is not None
    log.info("storage.conversation.erased", backend=port.backend, conversation_id=conversation_id, actor=actor)
    return done
