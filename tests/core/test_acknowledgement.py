"""Volunteered facts (issue 32 item 6): which objectives are acknowledged, and how mention notes are read."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.kernel.acknowledgement import mentions, volunteered
from engine.kernel.conversation import ConversationState

ORDER = ["a", "b", "c", "d"]


def _state(bits: list[int], last_asked: str | None = None) -> ConversationState:
    return ConversationState(conversation_id="c", goal_ref="g/v1", goal_hash="h", bundle_hash="b", language="en",
                             turn=1, bits=bits, last_asked=last_asked)


@given(st.lists(st.integers(0, 1), min_size=4, max_size=4), st.lists(st.integers(0, 1), min_size=4, max_size=4),
       st.sampled_from([None, *ORDER]))
def test_only_objectives_recorded_now_and_not_just_asked_are_volunteered(
        before: list[int], gained: list[int], asked: str | None) -> None:
    after = [max(b, g) for b, g in zip(before, gained, strict=True)]
    found = volunteered(_state(before, asked), _state(after), ORDER)
    assert found == [oid for oid, b, a in zip(ORDER, before, after, strict=True) if b == 0 and a == 1
                     and oid != asked]


def test_mentions_quote_the_visitors_words_in_message_order_and_ignore_bad_notes() -> None:
    message = "We fly out on 3 June and back on 10 June, budget about 900 euros."
    start_date = message.index("3 June")
    start_money = message.index("900 euros")
    notes = [
        f"proposer.mention:money:{start_money}:{start_money + 9}",
        f"proposer.mention:date:{start_date}:{start_date + 6}",
        "proposer.mention:date:x:y",  # not offsets
        f"proposer.mention:date:{len(message)}:{len(message) + 4}",  # outside the message
        "proposer.mention:date:5",  # incomplete
        "arc.other:1:2",
    ]
    assert mentions(notes, message) == [("date", "3 June"), ("money", "900 euros")]


@given(st.text(max_size=60), st.integers(-5, 80), st.integers(-5, 80))
def test_mentions_never_quote_outside_the_message(message: str, start: int, end: int) -> None:
    for _, words in mentions([f"proposer.mention:x:{start}:{end}"], message):
        assert words and words in " ".join(message.split())
