"""The stored state is under the audit seal (issue 11 items 3-4), on SQLite and PostgreSQL.

Each attack is done around the application with raw SQL; both the verifier (``audit.stored.verify_stored``,
behind the console's verify endpoint) and the next turn must notice, and the next turn must write nothing.
"""

from __future__ import annotations

import pytest

from audit.stored import verify_stored
from engine.errors import GraceError
from engine.kernel.turn import TurnRuntime
from engine.storage.base import DurableStore
from tests.storage.backends import StoreFactory
from tests.storage.sealing import AUDIT_KEY, demo_runtime, drop_append_only, raw, write_state

TURNS = ["I want to buy near Almería.", "My budget is 300000 EUR.", "Three bedrooms and parking, please."]


@pytest.fixture(params=[True, False], ids=["encrypted", "plaintext"])
def sealed(request: pytest.FixtureRequest, factory: StoreFactory) -> tuple[DurableStore, TurnRuntime, str,
                                                                           list[dict[str, object]]]:
    store = factory.open(AUDIT_KEY if request.param else None)
    runtime = demo_runtime(store)
    cid = runtime.start().conversation_id
    states = [store.stored_state(cid)]
    for text in TURNS:
        runtime.handle(cid, text)
        states.append(store.stored_state(cid))
    return store, runtime, cid, states


def _refused(runtime: TurnRuntime, store: DurableStore, cid: str, code: str) -> None:
    before = len(store.records(cid))
    with pytest.raises(GraceError) as info:
        runtime.handle(cid, "thanks, that is all")
    assert info.value.code == code
    assert len(store.records(cid)) == before  # nothing sealed on top of the tampered state


def test_honest_conversation_verifies_with_a_counter_per_turn(sealed: tuple) -> None:  # type: ignore[type-arg]
    store, _, cid, states = sealed
    report = verify_stored(store, cid, AUDIT_KEY)
    assert report.ok, report.summary()
    log = store.checkpoints(cid)
    assert [cp["counter"] for cp in log] == [1, 2, 3]
    assert log[-1] == states[-1]["audit_head"]
    records = store.records(cid)
    assert all(records[i]["state_before"] == records[i - 1]["state_after"] for i in range(1, len(records)))


def test_edited_state_row_is_detected_and_the_next_turn_refuses(sealed: tuple, factory: StoreFactory) -> None:  # type: ignore[type-arg]
    store, runtime, cid, states = sealed
    forged = dict(states[-1], bits=[1] * len(states[-1]["bits"]))  # "every objective complete"
    write_state(factory, cid, forged)
    report = verify_stored(store, cid, AUDIT_KEY)
    assert (report.ok, report.code) == (False, "audit.state_mismatch")
    _refused(runtime, store, cid, "audit.state_mismatch")


def test_edited_state_with_a_consistent_snapshot_is_still_caught_by_the_state_hash(
    sealed: tuple, factory: StoreFactory  # type: ignore[type-arg]
) -> None:
    store, runtime, cid, states = sealed
    forged = dict(states[-1], ask_counts={}, language="es")  # fields the record snapshot partly or never shows
    write_state(factory, cid, forged)
    assert verify_stored(store, cid, AUDIT_KEY).code == "audit.state_mismatch"
    _refused(runtime, store, cid, "audit.state_mismatch")


def test_truncated_records_with_an_older_genuine_checkpoint_are_detected(
    sealed: tuple, factory: StoreFactory  # type: ignore[type-arg]
) -> None:
    store, runtime, cid, states = sealed
    drop_append_only(factory, "grace_audit_records")
    raw(factory, "DELETE FROM grace_audit_records WHERE conversation_id = ? AND seq = ?", (cid, 3))
    write_state(factory, cid, states[-2])  # the state and checkpoint that were genuine one turn earlier
    report = verify_stored(store, cid, AUDIT_KEY)
    assert (report.ok, report.code) == (False, "audit.truncated")
    _refused(runtime, store, cid, "store.checkpoint_rollback")


def test_rolled_back_checkpoint_is_detected(sealed: tuple, factory: StoreFactory) -> None:  # type: ignore[type-arg]
    store, runtime, cid, states = sealed
    write_state(factory, cid, states[1])  # genuine older state + checkpoint; records untouched
    report = verify_stored(store, cid, AUDIT_KEY)
    assert report.ok is False and report.code in {"audit.unanchored_tail", "audit.checkpoint_rollback"}
    _refused(runtime, store, cid, "store.checkpoint_rollback")


def test_rolled_back_checkpoint_is_detected_even_with_unanchored_tails_allowed(
    sealed: tuple, factory: StoreFactory  # type: ignore[type-arg]
) -> None:
    from audit.chain import verify

    store, _, cid, states = sealed
    write_state(factory, cid, states[1])
    report = verify(store.records(cid), states[1]["audit_head"], AUDIT_KEY, allow_unanchored_tail=True,
                    checkpoint_log=store.checkpoints(cid), stored_state=store.stored_state(cid))
    assert report.code == "audit.checkpoint_rollback"


def test_null_checkpoint_is_a_failure(sealed: tuple, factory: StoreFactory) -> None:  # type: ignore[type-arg]
    store, runtime, cid, states = sealed
    write_state(factory, cid, dict(states[-1], audit_head=None))
    report = verify_stored(store, cid, AUDIT_KEY)
    assert (report.ok, report.code) == (False, "audit.checkpoint_missing")
    _refused(runtime, store, cid, "audit.checkpoint_missing")


def test_null_checkpoint_and_reset_turn_is_refused_by_the_log(
    sealed: tuple, factory: StoreFactory  # type: ignore[type-arg]
) -> None:
    store, runtime, cid, states = sealed
    write_state(factory, cid, states[0])  # back to the pristine turn-0 state: only the log remembers
    assert verify_stored(store, cid, AUDIT_KEY).ok is False
    _refused(runtime, store, cid, "store.checkpoint_rollback")


def test_checkpoint_log_is_append_only(sealed: tuple, factory: StoreFactory) -> None:  # type: ignore[type-arg]
    _, _, cid, _ = sealed
    for sql in ("DELETE FROM grace_checkpoints WHERE conversation_id = ?",
                "UPDATE grace_checkpoints SET seq = 0 WHERE conversation_id = ?"):
        with pytest.raises(Exception, match="append-only"):
            raw(factory, sql, (cid,))


def test_forged_log_entry_is_detected(sealed: tuple, factory: StoreFactory) -> None:  # type: ignore[type-arg]
    store, _, cid, _ = sealed
    drop_append_only(factory, "grace_checkpoints")
    raw(factory, "DELETE FROM grace_checkpoints WHERE conversation_id = ? AND counter = ?", (cid, 1))
    assert verify_stored(store, cid, AUDIT_KEY).code == "audit.checkpoint_log_invalid"


def test_edited_record_state_breaks_continuity_or_hash(sealed: tuple, factory: StoreFactory) -> None:  # type: ignore[type-arg]
    from audit.chain import SealedHead, checkpoint, seal, state_hash, verify

    store, _, cid, states = sealed
    records = store.records(cid)
    # An attacker with the key-less chain re-seals a record whose state_before skips ahead: continuity fails.
    body = {k: v for k, v in records[2].items() if k not in ("seq", "prev_hash", "hash")}
    body["state_before"] = dict(body["state_before"], bits=[1] * len(body["state_before"]["bits"]))
    body["state_after"] = dict(body["state_after"], bits=[1] * len(body["state_after"]["bits"]))
    resealed = [*records[:2], seal(body, SealedHead.of(records[1]))]
    cp = checkpoint(cid, 2, resealed[2]["hash"], AUDIT_KEY, state_hash=state_hash(states[-1]), counter=3)
    assert verify(resealed, cp, AUDIT_KEY).code == "audit.state_discontinuity"



def test_store_refuses_a_checkpoint_that_does_not_anchor_the_committed_record(sealed: tuple) -> None:  # type: ignore[type-arg]
    from engine.kernel.conversation import ConversationState

    store, _, cid, states = sealed
    state = ConversationState.model_validate(store.load(cid).model_dump())
    head = states[-1]["audit_head"]
    record = dict(store.records(cid)[-1], hash="sha256:" + "0" * 64)
    following = head["counter"] + 1
    for forged in (dict(head, counter=following), dict(head, counter=following, seq=head["seq"] + 1)):
        state.audit_head = forged
        state.turn += 1
        with pytest.raises(GraceError) as info:
            store.commit_turn(state, record, expected_turn=state.turn - 1)
        assert info.value.code == "store.checkpoint_rollback"
        state.turn -= 1
    assert len(store.records(cid)) == len(TURNS)
