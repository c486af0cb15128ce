"""The ConversationStore contract, identical on every backend."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import StoreError
from engine.kernel.conversation import ConversationState, Message, Role, ValueRecord
from engine.storage.base import DurableStore, IdempotencyEntry
from tests.storage.backends import StoreFactory

MakeState = Callable[..., ConversationState]


def advance(state: ConversationState, text: str = "hello", bit: int | None = None) -> ConversationState:
    turn = state.turn + 1
    bits = list(state.bits)
    if bit is not None:
        bits[bit] = 1
    messages = [*state.messages, Message(role=Role.VISITOR, turn=turn, text=text)]
    return state.model_copy(update={"turn": turn, "bits": bits, "messages": messages})


def record_for(state: ConversationState, **extra: Any) -> dict[str, Any]:
    return {"turn": state.turn, "state_after": state.state_string(), "candidates": [], **extra}


def test_create_then_load_returns_the_same_state(store: DurableStore, make_state: MakeState) -> None:
    state = make_state(
        values={"budget": [ValueRecord(turn=1, kind="complete", value="500000", span_start=3, span_end=9)]},
        uncertain={"area": 2},
        refused=["timeline"],
    )
    store.create(state)
    assert store.load(state.conversation_id) == state
    assert store.list_conversations() == [state.conversation_id]
    assert store.records(state.conversation_id) == []


def test_create_twice_is_refused(store: DurableStore, make_state: MakeState) -> None:
    state = make_state()
    store.create(state)
    with pytest.raises(StoreError) as info:
        store.create(state)
    assert info.value.code == "store.exists"


def test_load_with_cipher_is_load_and_cipher_in_one_read(store: DurableStore, make_state: MakeState) -> None:
    state = make_state(values={"budget": [ValueRecord(turn=1, kind="complete", value="1", span_start=0, span_end=1)]})
    store.create(state)
    loaded, cipher = store.load_with_cipher(state.conversation_id)
    assert loaded == store.load(state.conversation_id) == state
    expected = store.cipher(state.conversation_id)
    assert (cipher is None) == (expected is None)
    if cipher is not None and expected is not None:  # the same key: each opens what the other sealed
        assert expected.open(cipher.seal("x")) == "x"


def test_unknown_conversation_is_not_found(store: DurableStore) -> None:
    for call in (lambda: store.load("nope"), lambda: store.records("nope"), lambda: store.load_with_cipher("nope")):
        with pytest.raises(StoreError) as info:
            call()
        assert info.value.code == "store.not_found"


def test_commit_turn_persists_state_and_records_in_order(store: DurableStore, make_state: MakeState) -> None:
    state = make_state()
    store.create(state)
    expected_records = []
    for index in range(3):
        new = advance(state, f"message {index}", bit=index)
        record = record_for(new, index=index)
        store.commit_turn(new, record, expected_turn=state.turn)
        expected_records.append(record)
        state = new
    assert store.load(state.conversation_id) == state
    assert store.records(state.conversation_id) == expected_records
    [summary] = store.summaries()
    assert (summary.turn, summary.state, summary.goal_ref) == (3, "1110", "demo-goal@v1")


def test_stale_commit_conflicts_and_writes_nothing(store: DurableStore, make_state: MakeState) -> None:
    state = make_state()
    store.create(state)
    first = advance(state, "first")
    store.commit_turn(first, record_for(first), expected_turn=0)
    second = advance(state, "second")  # computed from the stale turn-0 state
    with pytest.raises(StoreError) as info:
        store.commit_turn(second, record_for(second, loser=True), expected_turn=0)
    assert info.value.code == "store.conflict"
    assert store.load(state.conversation_id) == first
    assert store.records(state.conversation_id) == [record_for(first)]


def test_commit_must_advance_the_turn(store: DurableStore, make_state: MakeState) -> None:
    state = make_state()
    store.create(state)
    with pytest.raises(StoreError) as info:
        store.commit_turn(state, record_for(state), expected_turn=0)
    assert info.value.code == "store.turn_not_advanced"
    assert store.records(state.conversation_id) == []


@pytest.mark.parametrize("field", ["goal_ref", "goal_hash", "bundle_hash"])
def test_commit_cannot_change_the_pinned_versions(store: DurableStore, make_state: MakeState, field: str) -> None:
    state = make_state()
    store.create(state)
    new = advance(state)
    value = "other@v2" if field == "goal_ref" else "sha256:" + "c" * 64
    tampered = new.model_copy(update={field: value})
    with pytest.raises(StoreError) as info:
        store.commit_turn(tampered, record_for(new), expected_turn=0)
    assert info.value.code == "store.pin_mismatch"
    assert store.load(state.conversation_id) == state


def test_commit_of_unknown_conversation_is_not_found(store: DurableStore, make_state: MakeState) -> None:
    new = advance(make_state())
    with pytest.raises(StoreError) as info:
        store.commit_turn(new, record_for(new), expected_turn=0)
    assert info.value.code == "store.not_found"


def test_unserialisable_record_writes_nothing(store: DurableStore, make_state: MakeState) -> None:
    state = make_state()
    store.create(state)
    new = advance(state)
    for bad in ({"x": object()}, {"x": float("nan")}, {"x": "\ud800"}):
        with pytest.raises(StoreError) as info:
            store.commit_turn(new, bad, expected_turn=0)
        assert info.value.code == "store.unserializable"
    assert store.load(state.conversation_id) == state
    assert store.records(state.conversation_id) == []


def test_idempotency_entry_is_committed_with_the_turn(store: DurableStore, make_state: MakeState) -> None:
    state = make_state()
    store.create(state)
    cid = state.conversation_id
    assert store.idempotent(cid, "key-1") is None
    new = advance(state)
    entry = IdempotencyEntry(cid, "key-1", "sha256:fp", new.turn, {"state": "0000", "text": "ñ"})
    store.commit_turn(new, record_for(new), expected_turn=0, idempotency=entry)
    assert store.idempotent(cid, "key-1") == entry
    assert store.idempotent(cid, "key-2") is None


def test_reused_idempotency_key_conflicts_and_writes_nothing(store: DurableStore, make_state: MakeState) -> None:
    state = make_state()
    store.create(state)
    cid = state.conversation_id
    first = advance(state)
    store.commit_turn(first, record_for(first), 0, idempotency=IdempotencyEntry(cid, "k", "fp", 1, {}))
    second = advance(first)
    with pytest.raises(StoreError) as info:
        store.commit_turn(second, record_for(second), 1, idempotency=IdempotencyEntry(cid, "k", "fp", 2, {}))
    assert info.value.code == "store.conflict"
    assert store.load(cid) == first
    assert len(store.records(cid)) == 1


def test_state_survives_reopening(factory: StoreFactory, make_state: MakeState) -> None:
    store = factory.open()
    state = make_state()
    store.create(state)
    new = advance(state, "persist me", bit=2)
    store.commit_turn(new, record_for(new), expected_turn=0)
    store.close()
    reopened = factory.open()
    assert reopened.load(state.conversation_id) == new
    assert reopened.records(state.conversation_id) == [record_for(new)]


def test_audit_records_are_append_only_in_the_database(factory: StoreFactory, make_state: MakeState) -> None:
    store = factory.open()
    state = make_state()
    store.create(state)
    new = advance(state)
    store.commit_turn(new, record_for(new), expected_turn=0)
    for sql in ("UPDATE grace_audit_records SET record_json = '{}'", "DELETE FROM grace_audit_records"):
        with pytest.raises(Exception, match="append-only"):
            factory.execute_raw(sql)
    assert store.records(state.conversation_id) == [record_for(new)]


def test_the_erasure_lookup_is_indexed(factory: StoreFactory) -> None:
    # every state read asks whether the conversation was erased: an index on the operator actions serves it
    factory.open()
    with pytest.raises(Exception, match="already exists"):
        factory.execute_raw(
            "CREATE INDEX grace_operator_actions_conversation ON grace_operator_actions (conversation_id, action)"
        )


def test_summaries_are_paged_most_recent_first(store: DurableStore, make_state: MakeState) -> None:
    states = [make_state(f"c{index}") for index in range(3)]
    for state in states:
        store.create(state)
    touched = advance(states[0])
    store.commit_turn(touched, record_for(touched), expected_turn=0)
    ids = [s.conversation_id for s in store.summaries(limit=10)]
    assert ids[0] == "c0"
    assert sorted(ids) == ["c0", "c1", "c2"]
    assert len(store.summaries(limit=2)) == 2
    assert [s.conversation_id for s in store.summaries(limit=10, offset=1)] == ids[1:]


visitor_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=200)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(visitor_text, min_size=1, max_size=4), language=st.sampled_from(["en", "es", "pt-BR"]))
def test_any_unicode_history_round_trips(
    store: DurableStore, make_state: MakeState, texts: list[str], language: str
) -> None:
    state = make_state(language=language)
    store.create(state)
    for text in texts:
        new = advance(state, text)
        store.commit_turn(new, record_for(new, text=text), expected_turn=state.turn)
        state = new
    assert store.load(state.conversation_id) == state
    assert [r["text"] for r in store.records(state.conversation_id)] == texts
