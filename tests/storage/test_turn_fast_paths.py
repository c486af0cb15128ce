"""The storage fast paths of a turn, held to their plain definitions on both backends:

* ``store.access``: the access fields of ``store.load`` (no decryption), also for erased and oddly typed rows;
* a turn unwraps its conversation key once, and again on the next turn (nothing kept across turns);
* the state a turn commits is exactly ``codec.dump_state`` of that state (the commit writes the stored form the
  checkpoint hashed instead of dumping the state again).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from audit import vault
from engine.errors import StoreError
from engine.kernel.conversation import ConversationState, Message, Role
from engine.storage import codec
from engine.storage.base import ConversationAccess, DurableStore
from engine.storage.turn_session import StoreTurn
from tests.storage.backends import StoreFactory
from tests.storage.sealing import AUDIT_KEY, demo_runtime, raw

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
FIXTURES = [HealthCheck.function_scoped_fixture]


def _from_load(state: ConversationState) -> ConversationAccess:
    return ConversationAccess(state.conversation_id, state.goal_ref, state.language, state.turn, state.visitor_key)


def _stored_json(factory: StoreFactory, cid: str) -> str:
    return str(raw(factory, "SELECT state_json FROM grace_conversations WHERE id = ?", (cid,))[0][0])


@settings(max_examples=30, deadline=None, suppress_health_check=FIXTURES)
@given(
    language=st.sampled_from(["en", "es", "de"]),
    turn=st.integers(0, 10_000),
    visitor_key=st.none() | st.text(max_size=70),
    texts=st.lists(TEXT, max_size=4),
)
def test_access_is_the_access_fields_of_load(
    factory: StoreFactory, make_state: Callable[..., ConversationState], language: str, turn: int,
    visitor_key: str | None, texts: list[str],
) -> None:
    store = factory.open(AUDIT_KEY)
    messages = [Message(role=Role.VISITOR, turn=1, text=t) for t in texts]
    state = make_state(language=language, turn=turn, visitor_key=visitor_key, messages=messages)
    store.create(state)
    assert store.access(state.conversation_id) == _from_load(store.load(state.conversation_id))


def test_access_refuses_an_unknown_conversation_as_load_does(store: DurableStore) -> None:
    with pytest.raises(StoreError) as loaded:
        store.load("nope")
    with pytest.raises(StoreError) as accessed:
        store.access("nope")
    assert accessed.value.code == loaded.value.code == "store.not_found"


def test_access_of_an_erased_conversation_is_what_load_shows(
    factory: StoreFactory, make_state: Callable[..., ConversationState]
) -> None:
    store = factory.open(AUDIT_KEY)
    state = make_state(visitor_key="sha256:" + "c" * 64,
                       messages=[Message(role=Role.VISITOR, turn=1, text="call me on 600 123 456")])
    store.create(state)
    store.erase(state.conversation_id, actor="test")
    assert store.access(state.conversation_id) == _from_load(store.load(state.conversation_id))


@pytest.mark.parametrize("field,value", [("turn", 3.0), ("turn", True), ("language", None), ("visitor_key", 7)])
def test_a_field_of_another_type_takes_the_full_parse(
    factory: StoreFactory, make_state: Callable[..., ConversationState], field: str, value: Any
) -> None:
    """Whatever the stored JSON holds, ``access`` answers what ``load`` answers, value or error."""
    store = factory.open(AUDIT_KEY)
    state = make_state(visitor_key="sha256:" + "d" * 64)
    store.create(state)
    data = json.loads(_stored_json(factory, state.conversation_id))
    data[field] = value
    raw(factory, "UPDATE grace_conversations SET state_json = ? WHERE id = ?",
        (json.dumps(data), state.conversation_id))
    try:
        expected: ConversationAccess | str = _from_load(store.load(state.conversation_id))
    except StoreError as exc:
        expected = exc.code
    try:
        got: ConversationAccess | str = store.access(state.conversation_id)
    except StoreError as exc:
        got = exc.code
    assert got == expected


def test_a_turn_unwraps_its_key_once_and_the_next_turn_again(factory: StoreFactory) -> None:
    store = factory.open(AUDIT_KEY)
    runtime = demo_runtime(store)
    cid = runtime.start(language="en").conversation_id
    with mock.patch.object(vault, "unwrap", wraps=vault.unwrap) as unwrap, \
         mock.patch("engine.storage.keyring.unwrap", new=unwrap):
        runtime.handle(cid, "Hello, my budget is 300,000 euros")
        assert unwrap.call_count == 1  # the load and the commit share it
        runtime.handle(cid, "Something near the beach")
        assert unwrap.call_count == 2  # not kept from the turn before
    store.load(cid)  # outside a turn nothing is remembered either
    store.load(cid)


@settings(max_examples=12, deadline=None, suppress_health_check=FIXTURES)
@given(messages=st.lists(TEXT.filter(lambda t: t.strip() != ""), min_size=1, max_size=3))
def test_the_committed_state_is_dump_state_of_that_state(factory: StoreFactory, messages: list[str]) -> None:
    store = factory.open(AUDIT_KEY)
    runtime = demo_runtime(store)
    cid = runtime.start(language="en").conversation_id
    for text in messages:
        try:
            outcome = runtime.handle(cid, text)
        except Exception as exc:  # a message the input checks refuse commits nothing
            assert getattr(exc, "code", "").startswith("input."), exc
            continue
        cipher = store.cipher(cid)
        assert _stored_json(factory, cid) == codec.dump_state(outcome.new_state, cipher)
        assert _stored_json(factory, cid) == codec.dump_state(store.load(cid), cipher)


def test_a_stored_form_handed_to_the_commit_is_only_used_for_that_state_cipher_turn_and_checkpoint(
    make_state: Callable[..., ConversationState],
) -> None:
    state = make_state(turn=2, audit_head={"counter": 1})
    cipher = vault.FieldCipher(state.conversation_id, b"k" * vault.DATA_KEY_BYTES)
    form = codec.stored_form(state, cipher)
    seen: list[object] = []

    def committer(new: ConversationState, record: dict[str, Any], expected_turn: int, *,
                  idempotency: object, session: StoreTurn) -> None:
        seen.append(session.stored_for(new, cipher))
        seen.append(session.stored_for(new.model_copy(), cipher))
        seen.append(session.stored_for(new, None))
        new.audit_head = {"counter": 2}
        seen.append(session.stored_for(new, cipher))
        new.audit_head = {"counter": 1}
        new.turn = 3
        seen.append(session.stored_for(new, cipher))
        new.turn = 2

    session = StoreTurn(state, cipher, b"wrapped", committer)
    assert session.stored_for(state, cipher) is None  # nothing before the commit hands it over
    session.commit(state, {}, 1, stored=form)
    assert seen == [form, None, None, None, None]
    assert session.stored_for(state, cipher) is None  # nor after it
    with pytest.raises(StoreError) as refused:  # one commit per session
        session.commit(state, {}, 1, stored=form)
    assert refused.value.code == "store.session_closed"


def test_the_cipher_a_turn_opened_is_used_by_its_commit_only_and_dropped_with_it(
    factory: StoreFactory, make_state: Callable[..., ConversationState],
) -> None:
    store = factory.open(AUDIT_KEY)
    state = make_state(conversation_id=uuid.uuid4().hex)
    store.create(state)
    with store.open_turn(state.conversation_id) as turn:
        first = turn.cipher
        assert first is not None
        assert turn.cipher_for(turn.wrapped) is first
        assert turn.cipher_for(b"another wrapped key") is None  # the key changed under the lock: open it again
    assert turn.cipher is None and turn.cipher_for(turn.wrapped) is None
    assert store.cipher(state.conversation_id) is not first
