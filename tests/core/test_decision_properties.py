"""Hypothesis properties of one decision over random states and random candidate streams."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.evaluation.differential import random_case
from engine.kernel.commands import Complete, Correct, Span
from engine.kernel.conversation import Role
from engine.kernel.decision.decider import Decider
from engine.rules.loader import RuleBundle

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
_DECIDERS: dict[str, Decider] = {}


def _decide(bundle: RuleBundle, seed: int):  # type: ignore[no-untyped-def]
    case = random_case(random.Random(seed))
    decider = _DECIDERS.setdefault(case.spec.content_hash, Decider(case.spec, bundle))
    return case, decider.decide(case.state, case.commands, company_question=case.company_question)


@pytest.mark.invariant("I-2", "I-6")
@settings(max_examples=300, deadline=None)
@given(seed=SEEDS)
def test_monotone_and_binary(bundle: RuleBundle, seed: int) -> None:
    case, decision = _decide(bundle, seed)
    assert all(b in (0, 1) for b in decision.bits_after)
    assert all(a >= b for a, b in zip(decision.bits_after, case.state.bits, strict=True))
    assert decision.bits_after == [max(s, z) for s, z in zip(case.state.bits, decision.z, strict=True)]


@pytest.mark.invariant("I-4", "I-5")
@settings(max_examples=300, deadline=None)
@given(seed=SEEDS)
def test_completions_only_from_accepted_visitor_spans(bundle: RuleBundle, seed: int) -> None:
    case, decision = _decide(bundle, seed)
    ids = [o.id for o in case.spec.spec.ordered()]
    for index, z in enumerate(decision.z):
        if z:
            witnesses = [c for c in decision.candidates if c.accepted and c.command.get("objective") == ids[index]
                         and c.command["type"] in ("complete", "correct")]
            assert witnesses, "a completion without an accepted candidate"
            span = witnesses[0].command["span"]
            message = case.state.visitor_message(span["turn"])
            assert message is not None and message.role is Role.VISITOR
            assert message.text[span["start"]:span["end"]] == span["quote"]


@pytest.mark.invariant("I-3", "I-9", "I-11")
@settings(max_examples=300, deadline=None)
@given(seed=SEEDS)
def test_refused_or_stopped_never_asked_and_one_question(bundle: RuleBundle, seed: int) -> None:
    case, decision = _decide(bundle, seed)
    chosen = decision.chosen
    if chosen is not None:
        assert not decision.new_state.stopped
        assert chosen not in decision.new_state.refused
        assert decision.bits_after[[o.id for o in case.spec.spec.ordered()].index(chosen)] == 0
    assert sum(1 for a in decision.actions if a.action == decision.action) == 1


@pytest.mark.invariant("I-10")
@settings(max_examples=200, deadline=None)
@given(seed=SEEDS)
def test_rejected_candidates_change_nothing(bundle: RuleBundle, seed: int) -> None:
    """Dropping every rejected candidate leaves the decision identical (state unchanged on any rejection)."""
    case, decision = _decide(bundle, seed)
    kept = [cmd for cmd, c in zip(case.commands, decision.candidates, strict=True) if c.accepted]
    again = _DECIDERS[case.spec.content_hash].decide(case.state, kept, company_question=case.company_question)
    assert again.bits_after == decision.bits_after
    assert again.new_state.refused == decision.new_state.refused
    assert again.new_state.stopped == decision.new_state.stopped


@pytest.mark.invariant("I-4", "I-5")
def test_assistant_text_cannot_complete(bundle: RuleBundle, published_spec) -> None:  # type: ignore[no-untyped-def]
    """A span citing a turn whose visitor text differs (e.g. quoting the bot's answer) is rejected."""
    from engine.kernel.conversation import ConversationState, Message

    state = ConversationState(
        conversation_id="c", goal_ref="r", goal_hash="h", bundle_hash="b", language="en", turn=1, bits=[0, 0, 0, 0],
        messages=[Message(role=Role.ASSISTANT, turn=1, text="Write to sales@agency.example.com"),
                  Message(role=Role.VISITOR, turn=1, text="thanks")],
    )
    quote = "sales@agency.example.com"
    start = state.messages[0].text.index(quote)
    commands = [Complete(objective="contact", value=quote, span=Span(turn=1, start=start, end=start + len(quote),
                                                                       quote=quote)),
                Correct(objective="contact", value=quote, span=Span(turn=2, start=0, end=6, quote="thanks"))]
    decision = Decider(published_spec, bundle).decide(state, commands)
    assert decision.bits_after == [0, 0, 0, 0]
    assert [c.reason for c in decision.candidates] == ["provenance.not_visitor_text", "provenance.not_visitor_text"]


@pytest.mark.invariant("I-4")
def test_homoglyph_and_invisible_spoofing_rejected(bundle: RuleBundle, published_spec) -> None:  # type: ignore[no-untyped-def]
    from engine.kernel.conversation import ConversationState, Message

    text = "mail me at ana@example.com"
    state = ConversationState(
        conversation_id="c", goal_ref="r", goal_hash="h", bundle_hash="b", language="en", turn=1, bits=[0, 0, 0, 0],
        messages=[Message(role=Role.VISITOR, turn=1, text=text)],
    )
    start = text.index("ana@")
    spoofed = "аna@example.com"  # Cyrillic 'а'
    commands = [Complete(objective="contact", value=spoofed,
                         span=Span(turn=1, start=start, end=start + len(spoofed), quote=spoofed))]
    decision = Decider(published_spec, bundle).decide(state, commands)
    assert decision.candidates[0].reason == "provenance.span_mismatch"
    # zero-width characters in the quote normalise away and the span then matches exactly
    zw = "ana@exam\u200bple.com"
    commands = [Complete(objective="contact", value="ana@example.com",
                         span=Span(turn=1, start=start, end=start + 15, quote=zw))]
    assert Decider(published_spec, bundle).decide(state, commands).candidates[0].accepted
