"""OpenAI-compatible chat completions (vLLM tools mode, llama.cpp/Ollama JSON mode) through Instructor."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from engine.kernel.conversation import Message, Role
from engine.kernel.goal_models import PublishedGoalSpec
from engine.kernel.ports import ProposerInput
from llm_adapters.config import read_llm_rules
from llm_adapters.errors import LLMError, LLMOutputError, LLMRateLimitError, LLMServerError, LLMTimeoutError
from llm_adapters.protocol import Passage, SynthesisRequest, UtilityRequest

MESSAGE = "I want a house in Vera with three bedrooms; my budget is 450.000 EUR."
MakeAdapter = Callable[..., Any]


def _request(spec: PublishedGoalSpec) -> ProposerInput:
    return ProposerInput(spec=spec, bits=[0, 0, 0, 0], language="en", turn=1,
                         message=Message(role=Role.VISITOR, turn=1, text=MESSAGE), history=[])


def test_tools_mode_for_vllm(make_adapter: MakeAdapter, spec: PublishedGoalSpec) -> None:
    adapter, server, _ = make_adapter("vllm", ["propose_ok_tools"])
    proposal = adapter.propose(_request(spec))

    assert [c.span.quote for c in proposal.commands] == ["450.000 EUR", "three bedrooms"]
    body = server.requests[0]
    assert body["tools"][0]["function"]["name"] == "EvidenceProposal"
    assert (body["temperature"], body["max_tokens"]) == (0.2, read_llm_rules()["roles"]["propose"]["max_tokens"])
    assert "stream" not in body  # tools mode: one JSON response through Instructor
    assert proposal.adapter == "instructor-openai"


def test_json_mode_for_llamacpp(make_adapter: MakeAdapter, spec: PublishedGoalSpec) -> None:
    adapter, server, _ = make_adapter("llamacpp", ["propose_ok_json"], model="gemma-3-270m")
    proposal = adapter.propose(_request(spec))

    assert len(proposal.commands) == 2
    body = server.requests[0]
    # streamed, with the response model's schema for grammar-constrained decoding (llama.cpp)
    assert body["stream"] is True
    assert body["response_format"]["type"] == "json_object"
    schema = body["response_format"]["schema"]
    assert list(schema["properties"]) == ["commands"]
    assert "maxLength" not in json.dumps(schema)  # bounds stay with the response model, not in the grammar
    assert [m["role"] for m in body["messages"]] == ["user"]  # Gemma's template has no system role
    assert body["messages"][0]["content"].startswith("You are the evidence proposer")
    assert server.streams[0].closed
    assert body["model"] == "gemma-3-270m"
    assert "tools" not in body
    assert proposal.calls[0]["model"] == "gemma-3-270m"
    assert proposal.calls[0]["params"]["mode"] == "json"


def test_malformed_json_content_fails_closed_after_bounded_re_asks(make_adapter: MakeAdapter,
                                                                   spec: PublishedGoalSpec) -> None:
    adapter, server, _ = make_adapter("llamacpp", ["propose_malformed_json"] * 2, max_reasks=1)
    with pytest.raises(LLMOutputError) as info:
        adapter.propose(_request(spec))
    assert len(server.requests) == 2
    assert info.value.code == "llm.output_invalid"


def test_schema_violation_is_re_asked(make_adapter: MakeAdapter, spec: PublishedGoalSpec) -> None:
    adapter, server, _ = make_adapter("llamacpp", ["rate_utility_missing_candidate", "rate_utility_ok"])
    message = Message(role=Role.VISITOR, turn=1, text=MESSAGE)
    result = adapter.rate_utility(UtilityRequest(spec=spec, language="en", candidates=["location", "contact"],
                                                 message=message, turn=1))
    assert {r.objective for r in result.output.ratings} == {"location", "contact"}
    assert len(server.requests) == 2
    assert "contact" in server.requests[1]["messages"][-1]["content"]  # the re-ask names what was missing


def test_unsupported_synthesis_has_no_text_and_no_citations(make_adapter: MakeAdapter) -> None:
    adapter, _, _ = make_adapter("ollama", ["synthesize_unsupported"])
    result = adapter.synthesize(SynthesisRequest(message="Is there a school nearby?", language="en",
                                                 passages=[Passage(passage_id="p1", source="faq.md",
                                                                   text="Office hours are 9 to 5.")]))
    assert (result.output.supported, result.output.is_question, result.output.text) == (False, True, "")
    assert result.output.citations == []


@pytest.mark.parametrize(
    ("fixture", "error", "code"),
    [
        ("error_429", LLMRateLimitError, "llm.rate_limited"),
        ("error_502", LLMServerError, "llm.server_error"),
        ("timeout", LLMTimeoutError, "llm.timeout"),
    ],
)
def test_transport_failures(make_adapter: MakeAdapter, spec: PublishedGoalSpec, fixture: str,
                            error: type[LLMError], code: str) -> None:
    adapter, server, _ = make_adapter("vllm", [fixture], transport_retries=0)
    with pytest.raises(error) as info:
        adapter.propose(_request(spec))
    assert info.value.code == code
    assert len(server.requests) == 1  # the openai client's own retries are off: the bound is ours


def test_rate_limit_then_success(make_adapter: MakeAdapter, spec: PublishedGoalSpec) -> None:
    adapter, server, sleeps = make_adapter("vllm", ["error_429", "propose_ok_tools"], transport_retries=1)
    proposal = adapter.propose(_request(spec))
    assert len(proposal.commands) == 2 and len(server.requests) == 2
    assert sleeps == [0.5]  # retry-after-ms: 5 is shorter than the configured initial backoff


def test_unrelated_openai_key_is_never_sent_to_a_self_hosted_server(make_adapter: MakeAdapter,
                                                                    spec: PublishedGoalSpec,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-account-key-123456")
    adapter, server, _ = make_adapter("llamacpp", ["propose_ok_json"])
    adapter.propose(_request(spec))
    assert "sk-openai-account-key-123456" not in server.headers[0].get("authorization", "")
