"""Mistral chat-completion wire format through Instructor: good output, re-asks, and every failure class."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engine.kernel.commands import Complete
from engine.kernel.conversation import Message, Role
from engine.kernel.goal_models import PublishedGoalSpec
from engine.kernel.ports import ProposerInput
from llm_adapters.config import read_llm_rules
from llm_adapters.errors import (
    LLMError,
    LLMOutputError,
    LLMRateLimitError,
    LLMServerError,
    LLMTimeoutError,
    LLMTransportError,
)
from llm_adapters.protocol import ModulationRequest, Passage, SynthesisRequest, UtilityRequest

MESSAGE = "I want a house in Vera with three bedrooms; my budget is 450.000 EUR."

MakeAdapter = Callable[..., Any]


def _request(spec: PublishedGoalSpec, text: str = MESSAGE, turn: int = 1,
             history: list[Message] | None = None) -> ProposerInput:
    return ProposerInput(spec=spec, bits=[0, 0, 0, 0], language="en", turn=turn,
                         message=Message(role=Role.VISITOR, turn=turn, text=text), history=history or [])


def test_good_output_becomes_commands_with_spans_on_the_visitor_text(make_adapter: MakeAdapter,
                                                                      spec: PublishedGoalSpec) -> None:
    adapter, server, _ = make_adapter("mistral", ["propose_ok"])
    proposal = adapter.propose(_request(spec))

    assert len(server.requests) == 1
    assert [type(c) for c in proposal.commands] == [Complete, Complete]
    for command in proposal.commands:
        assert isinstance(command, Complete)
        assert MESSAGE[command.span.start:command.span.end] == command.span.quote
    assert [c.span.quote for c in proposal.commands] == ["450.000 EUR", "three bedrooms"]
    assert proposal.malformed == []
    call = proposal.calls[0]
    assert (call["purpose"], call["prompt_id"], call["prompt_version"]) == ("propose", "grace.propose", "1.0.0")
    assert call["model"] == "mistral-small-2603"
    assert (call["input_tokens"], call["output_tokens"], call["attempt"], call["status"]) == (812, 64, 1, "ok")
    assert call["latency_ms"] >= 0
    assert call["output"]["commands"][0]["objective"] == "budget"
    assert call["prompt_hash"].startswith("sha256:") and call["response_hash"].startswith("sha256:")


def test_request_carries_the_paper_configuration(make_adapter: MakeAdapter, spec: PublishedGoalSpec) -> None:
    adapter, server, _ = make_adapter("mistral", ["propose_ok"])
    adapter.propose(_request(spec))

    body = server.requests[0]
    rules = read_llm_rules()
    assert (body["model"], body["temperature"]) == ("mistral-small-2603", 0.2)
    # the role's own budget (rules/llm.json roles.propose), below the paper's 4096-token ceiling
    assert body["max_tokens"] == rules["roles"]["propose"]["max_tokens"] < rules["generation"]["max_tokens"] == 4096
    assert body["tool_choice"] == "any"
    assert body["tools"][0]["function"]["name"] == "EvidenceProposal"
    assert MESSAGE in body["messages"][-1]["content"]
    assert server.headers[0]["authorization"].startswith("Bearer sk-test-")


@pytest.mark.parametrize("bad", ["propose_malformed_json", "propose_schema_violation", "propose_prose"])
def test_bad_output_is_re_asked_then_accepted(make_adapter: MakeAdapter, spec: PublishedGoalSpec, bad: str) -> None:
    adapter, server, _ = make_adapter("mistral", [bad, "propose_ok"])
    proposal = adapter.propose(_request(spec))

    assert len(server.requests) == 2
    if bad == "propose_prose":
        # Instructor cannot build a re-ask for a reply without a tool call; the adapter asks again afresh.
        assert server.requests[1]["messages"] == server.requests[0]["messages"]
    else:
        assert len(server.requests[1]["messages"]) > len(server.requests[0]["messages"])  # the re-ask says why
    assert len(proposal.commands) == 2
    assert proposal.calls[0]["attempt"] == 2
    assert proposal.calls[0]["input_tokens"] == (700 if bad == "propose_prose" else 812) + 812


@pytest.mark.parametrize("bad", ["propose_malformed_json", "propose_schema_violation", "propose_prose"])
def test_output_still_bad_after_bounded_re_asks_fails_closed(make_adapter: MakeAdapter, spec: PublishedGoalSpec,
                                                               bad: str) -> None:
    adapter, server, _ = make_adapter("mistral", [bad, bad, bad], max_reasks=2)
    with pytest.raises(LLMOutputError) as info:
        adapter.propose(_request(spec))

    assert info.value.code == "llm.output_invalid"
    assert len(server.requests) == 3  # first try + max_reasks, never more
    assert info.value.call is not None
    assert (info.value.call["attempt"], info.value.call["status"]) == (3, "llm.output_invalid")
    assert info.value.call["output"] is None


def test_unlocatable_quotes_become_malformed_items(make_adapter: MakeAdapter, spec: PublishedGoalSpec) -> None:
    adapter, _, _ = make_adapter("mistral", ["propose_unlocatable"])
    proposal = adapter.propose(_request(spec))

    assert [m["reason"] for m in proposal.malformed] == ["proposal.quote_not_found"]
    assert proposal.malformed[0]["item"]["quote"] == "500.000 EUR"
    # An unknown objective id is still a well-formed command: the decision layer rejects it with its own code.
    objectives = [getattr(c, "objective", None) for c in proposal.commands]
    assert objectives == ["pets", "contact"]
    refuse = proposal.commands[1]
    assert refuse.span.quote == "I want a house"  # located case-insensitively; the witness is the stored text


@pytest.mark.parametrize(
    ("fixtures", "error", "code"),
    [
        (["error_429"], LLMRateLimitError, "llm.rate_limited"),
        (["error_500"], LLMServerError, "llm.server_error"),
        (["error_503"], LLMServerError, "llm.server_error"),
        (["timeout"], LLMTimeoutError, "llm.timeout"),
        (["connect_error"], LLMTransportError, "llm.transport"),
    ],
)
def test_transport_failures_fail_closed_with_typed_errors(make_adapter: MakeAdapter, spec: PublishedGoalSpec,
                                                          fixtures: list[str], error: type[LLMError],
                                                          code: str) -> None:
    adapter, server, sleeps = make_adapter("mistral", fixtures, transport_retries=0)
    with pytest.raises(error) as info:
        adapter.propose(_request(spec))
    assert info.value.code == code
    assert len(server.requests) == 1 and sleeps == []
    assert info.value.call is not None and info.value.call["error_code"] == code


def test_rate_limit_is_retried_after_the_servers_delay(make_adapter: MakeAdapter, spec: PublishedGoalSpec) -> None:
    adapter, server, sleeps = make_adapter("mistral", ["error_429", "propose_ok"], transport_retries=1)
    proposal = adapter.propose(_request(spec))

    assert len(proposal.commands) == 2 and len(server.requests) == 2
    assert sleeps == [2.0]  # Retry-After: 2 beats the 0.5 s initial backoff
    assert proposal.calls[0]["attempt"] == 2


def test_server_errors_stop_after_the_transport_retry_bound(make_adapter: MakeAdapter,
                                                            spec: PublishedGoalSpec) -> None:
    adapter, server, sleeps = make_adapter("mistral", ["error_500", "error_503", "error_500"], transport_retries=2)
    with pytest.raises(LLMServerError):
        adapter.propose(_request(spec))
    assert len(server.requests) == 3
    assert sleeps == [0.5, 1.0]  # exponential from backoff_initial_ms, capped by backoff_max_ms


def test_rate_utility_levels_and_rationales(make_adapter: MakeAdapter, spec: PublishedGoalSpec) -> None:
    adapter, server, _ = make_adapter("mistral", ["rate_utility_bad_level", "rate_utility_ok"])
    message = Message(role=Role.VISITOR, turn=2, text="It should be near the beach.")
    result = adapter.rate_utility(UtilityRequest(spec=spec, language="en", turn=2, candidates=["location", "contact"],
                                                 message=message))

    assert len(server.requests) == 2  # 0.7 is not a rubric level: re-asked
    levels = {r.objective: (r.relevance.level, r.burden.level, r.repetition.level, r.privacy.level)
              for r in result.output.ratings}
    assert levels == {"location": (1.0, 0.0, 0.0, 0.0), "contact": (0.5, 0.0, 0.0, 0.5)}
    assert all(r.relevance.rationale for r in result.output.ratings)
    assert result.call.purpose == "rate_utility" and result.call.attempt == 2


def test_modulate_returns_the_models_question(make_adapter: MakeAdapter, spec: PublishedGoalSpec) -> None:
    adapter, server, _ = make_adapter("mistral", ["modulate_ok"])
    result = adapter.modulate(ModulationRequest(spec=spec, objective_id="budget", language="en", turn=1))
    assert result.output.question.startswith("Is 325.000 EUR around the budget")
    assert "What budget range do you have in mind" in server.requests[0]["messages"][-1]["content"]


def test_synthesize_keeps_citations_to_retrieved_passages(make_adapter: MakeAdapter) -> None:
    adapter, _, _ = make_adapter("mistral", ["synthesize_ok"])
    passage = Passage(passage_id="listings#CI-V01", source="listings.json",
                      text="Detached villa for sale in Vera with a private swimming pool, a garden and parking.")
    result = adapter.synthesize(SynthesisRequest(message="Do you have villas with a pool?", language="en",
                                                 passages=[passage]))
    assert result.output.supported and result.output.is_question
    assert [(c.source, c.passage_id) for c in result.output.citations] == [("listings.json", "listings#CI-V01")]


def test_synthesize_rejects_a_citation_the_passage_does_not_contain(make_adapter: MakeAdapter) -> None:
    adapter, server, _ = make_adapter("mistral", ["synthesize_bad_citation"] * 3)
    passage = Passage(passage_id="listings#CI-V01", source="listings.json",
                      text="Detached villa for sale in Vera with a private swimming pool.")
    with pytest.raises(LLMOutputError):
        adapter.synthesize(SynthesisRequest(message="Cheapest villa?", language="en", passages=[passage]))
    assert len(server.requests) == 3
