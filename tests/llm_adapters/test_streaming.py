"""The streaming backend on recorded server-sent events: budgets, cancellation at the turn's deadline, re-asks.

Time is injected (``CallWindow`` over a scripted ``remaining``) so cancellation mid-stream is deterministic.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from engine.kernel.conversation import Message, Role
from engine.kernel.goal_models import PublishedGoalSpec
from engine.kernel.ports import Proposal, ProposerInput
from llm_adapters.adapter import LLMAdapter
from llm_adapters.config import LLMSettings
from llm_adapters.deadline import CallWindow
from llm_adapters.errors import LLMDeadlineError, LLMError, LLMOutputError
from llm_adapters.openai_compat import openai_compat_backend
from llm_adapters.runtime_roles import FallbackProposer
from llm_adapters.streaming import StreamingBackend
from tests.llm_adapters.llm_wire_harness import FAKE_KEY, WireServer, settings_for

MESSAGE = "I want a house in Vera with three bedrooms; my budget is 450.000 EUR."


def _request(spec: PublishedGoalSpec) -> ProposerInput:
    return ProposerInput(
        spec=spec,
        bits=[0, 0, 0, 0],
        language="en",
        turn=1,
        message=Message(role=Role.VISITOR, turn=1, text=MESSAGE),
        history=[],
    )


def _remaining(values: list[float | None], then: float | None) -> Callable[[], float | None]:
    """``remaining_ms`` that returns ``values`` one per call, then ``then`` forever."""
    source: Iterator[float | None] = itertools.chain(values, itertools.repeat(then))
    return lambda: next(source)


def _adapter(
    names: list[str], *, remaining: Callable[[], float | None] | None = None, **overrides: Any
) -> tuple[LLMAdapter, WireServer, LLMSettings]:
    server = WireServer("openai", names)
    settings = settings_for("llamacpp", **overrides)
    backend = openai_compat_backend(
        settings, http_client=server.client(), environ={"GRACE_LLM_API_KEY": FAKE_KEY}, sleep=lambda _: None
    )
    assert isinstance(backend, StreamingBackend)
    if remaining is not None:
        backend._window = CallWindow(settings, remaining)
    return LLMAdapter(backend, settings), server, settings


def test_a_recorded_stream_is_parsed_and_its_connection_released(spec: PublishedGoalSpec) -> None:
    adapter, server, settings = _adapter(["propose_ok_stream"])
    proposal = adapter.propose(_request(spec))

    assert [c.span.quote for c in proposal.commands] == ["450.000 EUR", "three bedrooms"]
    stream = server.streams[0]
    assert stream.closed and stream.read == len(stream.events)
    body = server.requests[0]
    assert body["stream"] is True and body["max_tokens"] == settings.budget("propose")
    call = proposal.calls[0]
    assert call["status"] == "ok" and call["params"]["max_tokens"] == settings.budget("propose")
    content_chunks = sum(1 for e in stream.events if '"content"' in e)
    assert call["output_tokens"] == content_chunks  # one token per streamed chunk (no usage in the stream)
    assert call["input_tokens"] is not None and call["input_tokens"] > 0  # the server's prompt-token count


def test_the_stream_is_closed_when_the_turn_deadline_passes_mid_reply(spec: PublishedGoalSpec) -> None:
    # open() sees 30 s left; the 1st..6th chunks still have time; then only the reserve is left
    reserve = float(settings_for("llamacpp").reserve_ms)
    adapter, server, _ = _adapter(["propose_ok_stream"], remaining=_remaining([30_000.0] * 7, then=reserve))
    with pytest.raises(LLMDeadlineError) as info:
        adapter.propose(_request(spec))

    stream = server.streams[0]
    assert stream.closed  # the server sees the disconnect and stops generating
    assert stream.read < len(stream.events)
    assert info.value.code == "llm.deadline_exceeded"
    call = info.value.call
    assert call is not None and call["status"] == "llm.deadline_exceeded"
    assert 0 < call["output_tokens"] < sum(1 for e in stream.events if '"content"' in e)
    assert len(server.requests) == 1  # a deadline is never retried


def test_no_call_starts_without_time_beyond_the_reserve(spec: PublishedGoalSpec) -> None:
    settings = settings_for("llamacpp")
    just_short = float(settings.reserve_ms + settings.min_call_ms - 1)
    adapter, server, _ = _adapter(["propose_ok_stream"], remaining=_remaining([], then=just_short))
    with pytest.raises(LLMDeadlineError):
        adapter.propose(_request(spec))
    assert server.requests == []


def test_the_output_budget_is_enforced_when_the_server_ignores_max_tokens(spec: PublishedGoalSpec) -> None:
    budget = 5
    adapter, server, _ = _adapter(["propose_ok_stream"], role_max_tokens={"propose": budget})
    with pytest.raises(LLMOutputError) as info:
        adapter.propose(_request(spec))

    assert info.value.code == "llm.output_truncated"
    assert server.requests[0]["max_tokens"] == budget
    stream = server.streams[0]
    assert stream.closed and stream.read == 1 + budget + 1  # role chunk, budget chunks, one over: cut
    assert len(server.requests) == 1  # truncation is not re-asked: a longer reply would not fit either


def test_a_length_finish_is_a_truncation(spec: PublishedGoalSpec) -> None:
    adapter, _, _ = _adapter(["propose_stream_length"])
    with pytest.raises(LLMOutputError) as info:
        adapter.propose(_request(spec))
    assert info.value.code == "llm.output_truncated"


def test_malformed_streams_are_re_asked_within_the_bound(spec: PublishedGoalSpec) -> None:
    adapter, server, _ = _adapter(["propose_malformed_json", "propose_ok_stream"], max_reasks=1)
    proposal = adapter.propose(_request(spec))
    assert len(proposal.commands) == 2 and len(server.requests) == 2
    assert proposal.calls[0]["attempt"] == 2
    reask = server.requests[1]["messages"]
    assert reask[-2]["role"] == "assistant" and reask[-1]["content"].startswith("Correct your JSON")
    assert all(s.closed for s in server.streams)


def test_budgets_come_from_the_role_and_never_exceed_the_ceiling() -> None:
    settings = settings_for("llamacpp")
    assert all(
        settings.budget(role) <= settings.max_tokens
        for role in ("propose", "rate_utility", "modulate", "synthesize", "compile")
    )
    assert settings.budget("propose") < settings.max_tokens
    capped = settings.with_overrides(max_tokens=100, role_max_tokens={"propose": 384})
    assert capped.budget("propose") == 100


def test_a_deadline_falls_back_to_the_offline_proposer_and_says_why(spec: PublishedGoalSpec) -> None:
    adapter, server, _ = _adapter(["propose_ok_stream"], remaining=_remaining([30_000.0] * 4, then=0.0))

    class Offline:
        name, version = "offline", "1"

        def propose(self, request: ProposerInput) -> Proposal:
            return Proposal(adapter=self.name, adapter_version=self.version)

    proposal = FallbackProposer(adapter, Offline()).propose(_request(spec))
    assert proposal.notes == ["proposer.fallback_offline: llm.deadline_exceeded"]
    assert proposal.calls[0]["error_code"] == "llm.deadline_exceeded"
    assert server.streams[0].closed


def test_streaming_needs_a_json_mode() -> None:
    from llm_adapters.config import load_llm_settings, read_llm_rules
    from llm_adapters.errors import LLMConfigError

    rules = read_llm_rules()
    rules["providers"]["vllm"]["stream"] = True  # tools mode
    with pytest.raises(LLMConfigError) as info:
        load_llm_settings(rules, provider="vllm")
    assert info.value.code == "llm.stream_unsupported"


def test_transport_errors_of_a_stream_are_typed(spec: PublishedGoalSpec) -> None:
    adapter, server, _ = _adapter(["timeout"], transport_retries=0)
    with pytest.raises(LLMError) as info:
        adapter.propose(_request(spec))
    assert info.value.code == "llm.timeout" and len(server.requests) == 1


def test_a_stream_recorded_from_llama_cpp_python_is_read_as_it_comes() -> None:
    """The recorded payload of a real llama-cpp-python server (fixtures/wire/openai/city_stream_recorded.json)."""
    from pydantic import BaseModel

    class City(BaseModel):
        city: str

    server = WireServer("openai", ["city_stream_recorded"])
    settings = settings_for("llamacpp")
    backend = openai_compat_backend(settings, http_client=server.client(), environ={})
    assert isinstance(backend, StreamingBackend)
    done = backend.complete(
        purpose="propose",
        turn=1,
        messages=[{"role": "user", "content": "I live in Vera."}],
        response_model=City,
        context=None,
    )
    assert done.parsed.city == "Vera"
    stream = server.streams[0]
    assert stream.closed and stream.read == len(stream.events)
    assert done.output_tokens == sum(1 for e in stream.events if '"content"' in e)
    assert server.requests[0]["messages"][0]["content"].startswith("Reply with one JSON object")  # merged system


def test_the_grammar_schema_keeps_structure_and_drops_bounds() -> None:
    from llm_adapters.streaming import grammar_schema

    schema = {
        "title": "X",
        "type": "object",
        "required": ["title"],
        "properties": {
            "title": {"type": "string", "maxLength": 2000, "title": "Title"},
            "items": {"type": "array", "maxItems": 32, "items": {"enum": [0, 0.5, 1]}},
        },
    }
    assert grammar_schema(schema) == {
        "type": "object",
        "required": ["title"],
        "properties": {"title": {"type": "string"}, "items": {"type": "array", "items": {"enum": [0, 0.5, 1]}}},
    }


def test_a_read_timeout_at_the_deadline_is_a_deadline(spec: PublishedGoalSpec) -> None:
    # the server sends nothing before the window closes (still reading the prompt): httpx times out the read
    settings = settings_for("llamacpp")
    adapter, server, _ = _adapter(["timeout"], remaining=_remaining([30_000.0], then=float(settings.reserve_ms)))
    with pytest.raises(LLMDeadlineError):
        adapter.propose(_request(spec))
    assert len(server.requests) == 1  # not retried


class _PingingServer:
    """A loopback server that answers a chat completion with SSE headers and then only keep-alive comments (a
    queued request, or a long prompt being read): every comment restarts the client's HTTP read timeout."""

    def __init__(self, interval_s: float, lasts_s: float) -> None:
        import http.server
        import threading
        import time

        outer = self
        self.disconnected_after_s: float | None = None

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", 0)))
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                started = time.monotonic()
                while time.monotonic() - started < lasts_s:
                    try:
                        self.wfile.write(b": ping\r\n\r\n")
                        self.wfile.flush()
                    except OSError:
                        outer.disconnected_after_s = time.monotonic() - started
                        return
                    time.sleep(interval_s)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def test_keep_alive_comments_do_not_stretch_a_call_past_the_deadline(spec: PublishedGoalSpec) -> None:
    # Measured with llama-cpp-python's server under load: a queued propose call ran 121 s against a 60 s turn
    # deadline, the 15 s pings restarting the read timeout each time. The watchdog ends the read at the window.
    import time

    server = _PingingServer(interval_s=0.05, lasts_s=20.0)
    try:
        settings = settings_for("llamacpp", base_url=server.base_url, min_call_ms=100)
        backend = openai_compat_backend(settings, environ={"GRACE_LLM_API_KEY": FAKE_KEY}, sleep=lambda _: None)
        assert isinstance(backend, StreamingBackend)
        window_ms = 400.0
        backend._window = CallWindow(settings, lambda: float(settings.reserve_ms) + window_ms)
        adapter = LLMAdapter(backend, settings)
        started = time.monotonic()
        with pytest.raises(LLMDeadlineError):
            adapter.propose(_request(spec))
        elapsed = time.monotonic() - started
        # the server learns of the disconnect at its next write (a few may still land in the socket buffer)
        waited = time.monotonic()
        while server.disconnected_after_s is None and time.monotonic() - waited < 10.0:
            time.sleep(0.05)
    finally:
        server.close()
    # The server would have pinged for 20 s; the call ended near its 0.4 s window (the bound is loose on purpose:
    # this checks the deadline's semantics, not speed) and the server saw the disconnect.
    assert elapsed < 10.0
    assert server.disconnected_after_s is not None and server.disconnected_after_s < 10.0
