"""fork_state (the turn's copy of a conversation state) shares nothing a later step could mutate: every list
and dict is fresh, and what is shared is immutable (strings, numbers, frozen messages and value records).
A field added to ConversationState that fork_state forgets to copy fails here."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from engine.kernel.conversation import ConversationState, Message, Role, ValueRecord
from engine.kernel.decision.decider import fork_state

_IMMUTABLE = (str, int, float, bool, type(None), Role)


def _shared_mutables(a: Any, b: Any, path: str) -> list[str]:
    """Paths where the two trees hold the same mutable object."""
    if isinstance(a, _IMMUTABLE):
        return []
    if isinstance(a, BaseModel):
        frozen = a.model_config.get("frozen", False)
        if a is b and not frozen:
            return [path]
        return [p for name in type(a).model_fields
                for p in _shared_mutables(getattr(a, name), getattr(b, name), f"{path}.{name}")]
    if isinstance(a, tuple):
        return [p for i, (x, y) in enumerate(zip(a, b, strict=True)) for p in _shared_mutables(x, y, f"{path}[{i}]")]
    if a is b:
        return [path]
    if isinstance(a, dict):
        return [p for k in a for p in _shared_mutables(a[k], b[k], f"{path}[{k!r}]")]
    if isinstance(a, list):
        return [p for i, (x, y) in enumerate(zip(a, b, strict=True)) for p in _shared_mutables(x, y, f"{path}[{i}]")]
    return [path]  # an unknown kind of object: treat as mutable


_ids = st.sampled_from(["budget", "location", "contact"])
_records = st.lists(st.builds(ValueRecord, turn=st.integers(1, 9), kind=st.sampled_from(["complete", "correct"]),
                              value=st.text(max_size=5), span_start=st.integers(0, 5), span_end=st.integers(0, 5)),
                    max_size=2)
_states = st.builds(
    ConversationState,
    conversation_id=st.just("c1"), goal_ref=st.just("g@1"), goal_hash=st.just("h"), bundle_hash=st.just("b"),
    language=st.sampled_from(["en", "es"]), turn=st.integers(0, 9),
    bits=st.lists(st.integers(0, 1), min_size=1, max_size=4),
    refused=st.lists(_ids, max_size=2), uncertain=st.dictionaries(_ids, st.integers(1, 9), max_size=2),
    stopped=st.booleans(), ask_counts=st.dictionaries(_ids, st.integers(0, 3), max_size=2),
    last_asked=st.none() | _ids, values=st.dictionaries(_ids, _records, max_size=2),
    messages=st.lists(st.builds(Message, role=st.sampled_from(list(Role)), turn=st.integers(1, 9),
                                text=st.text(max_size=8)), max_size=3),
    audit_head=st.none() | st.just({"conversation_id": "c1", "seq": 3, "head_hash": "x", "state_hash": "y",
                                    "counter": 1, "mac": "m"}),
    visitor_key=st.none() | st.just("k"),
)


@given(state=_states)
def test_fork_shares_no_mutable_object_and_equals_the_original(state: ConversationState) -> None:
    fork = fork_state(state)
    assert fork == state
    assert fork.model_dump(mode="json") == state.model_dump(mode="json")
    assert fork.model_dump(mode="json") == state.model_copy(deep=True).model_dump(mode="json")
    assert _shared_mutables(state, fork, "state") == []


@given(state=_states)
def test_changing_the_fork_leaves_the_original(state: ConversationState) -> None:
    before = state.model_dump(mode="json")
    fork = fork_state(state)
    fork.turn += 1
    fork.messages.append(Message(role=Role.VISITOR, turn=1, text="x"))
    fork.bits.append(1)
    fork.refused.append("budget")
    fork.uncertain["zz"] = 1
    fork.ask_counts["zz"] = 1
    for records in fork.values.values():
        records.append(ValueRecord(turn=1, kind="complete", value="v", span_start=0, span_end=1))
    fork.values["zz"] = []
    if fork.audit_head is not None:
        fork.audit_head["seq"] = -1
    assert state.model_dump(mode="json") == before
