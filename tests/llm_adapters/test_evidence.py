"""Witness spans are found in the stored visitor text; the model's claims are never trusted."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.kernel.conversation import Message, Role
from engine.kernel.goal_models import PublishedGoalSpec
from engine.kernel.ports import ProposerInput
from engine.text import normalize
from llm_adapters.evidence import commands_from_proposal, locate
from llm_adapters.schemas import EvidenceProposal


@given(st.text(min_size=1, max_size=80), st.data())
def test_a_located_span_always_slices_to_a_visitor_substring(raw: str, data: st.DataObject) -> None:
    text = normalize(raw)  # visitor text is stored normalised; spans index into that form
    if not text:
        return
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    quote = text[start:end]
    needle = normalize(quote).strip()
    found = locate(quote, text)
    if needle and needle == quote:
        assert found is not None
        assert text[found[0]:found[1]] == quote
    if found is not None:
        s, e = found
        assert 0 <= s < e <= len(text)
        assert text[s:e] == needle or text[s:e].lower() == needle.lower()


@given(st.text(alphabet="abc ", max_size=30), st.text(alphabet="xyz", min_size=1, max_size=5))
def test_a_quote_absent_from_the_message_is_never_located(text: str, quote: str) -> None:
    assert locate(quote, text) is None


def _input(spec: PublishedGoalSpec, history: list[Message], text: str, turn: int) -> ProposerInput:
    return ProposerInput(spec=spec, bits=[0, 0, 0, 0], language="en", turn=turn,
                         message=Message(role=Role.VISITOR, turn=turn, text=text), history=history)


def test_company_text_can_never_become_a_witness(spec: PublishedGoalSpec) -> None:
    history = [
        Message(role=Role.VISITOR, turn=1, text="Do you have villas?"),
        Message(role=Role.ASSISTANT, turn=1, text="Yes, a villa in Vera for 495.000 EUR."),
    ]
    proposal = EvidenceProposal.model_validate({"commands": [
        {"type": "complete", "objective": "budget", "quote": "495.000 EUR", "value": "495000 EUR", "turn": 1},
        {"type": "complete", "objective": "location", "quote": "Vera", "value": "Vera"},
    ]})
    commands, malformed = commands_from_proposal(proposal, _input(spec, history, "Sounds good.", 2))
    assert commands == []
    assert [m["reason"] for m in malformed] == ["proposal.quote_not_found", "proposal.quote_not_found"]


def test_quotes_from_earlier_visitor_turns_cite_that_turn(spec: PublishedGoalSpec) -> None:
    history = [Message(role=Role.VISITOR, turn=1, text="My budget is 300.000 EUR."),
               Message(role=Role.ASSISTANT, turn=1, text="Where would you like to live?")]
    proposal = EvidenceProposal.model_validate({"commands": [
        {"type": "complete", "objective": "budget", "quote": "300.000 EUR", "value": "300000 EUR", "turn": 1},
        {"type": "complete", "objective": "location", "quote": "Mojácar", "value": "Mojácar", "turn": 9},
    ]})
    commands, malformed = commands_from_proposal(proposal, _input(spec, history, "In Mojácar.", 2))
    assert [(c.span.turn, c.span.start, c.span.end) for c in commands] == [(1, 13, 24)]
    assert malformed[0]["reason"] == "proposal.unknown_turn"


def test_stop_commands_carry_no_objective(spec: PublishedGoalSpec) -> None:
    proposal = EvidenceProposal.model_validate({"commands": [{"type": "stop", "quote": "no more questions"}]})
    commands, malformed = commands_from_proposal(proposal, _input(spec, [], "Please, no more questions.", 1))
    assert malformed == [] and commands[0].type == "stop"
