"""LLM roles inside a real turn: one deadline shared by all roles, offline fallbacks recorded with their reason,
and SDK log messages turned into redacted structlog events."""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Callable, Iterator

import pytest
import structlog

from engine.kernel.turn import TurnRuntime
from engine.kernel.turn_context import TurnContext
from engine.kernel.turn_outcome import TurnOutcome
from engine.runtimes import demo_runtime
from llm_adapters.adapter import LLMAdapter
from llm_adapters.openai_compat import openai_compat_backend
from llm_adapters.redaction import protect
from llm_adapters.sdk_logging import route_sdk_logging
from llm_adapters.wiring import attach_adapter
from tests.llm_adapters.llm_wire_harness import FAKE_KEY, WireServer, settings_for

MESSAGE = "Hello, I am looking for a flat with two bedrooms."


def _runtime(server: WireServer, **overrides: object) -> TurnRuntime:
    _, runtime = demo_runtime("real-estate", with_answerer=False)
    settings = settings_for("llamacpp", transport_retries=0, **overrides)
    backend = openai_compat_backend(settings, http_client=server.client(), environ={"GRACE_LLM_API_KEY": FAKE_KEY},
                                    sleep=lambda _: None)
    return attach_adapter(runtime, LLMAdapter(backend, settings))


def _turn(runtime: TurnRuntime) -> TurnOutcome:
    state = runtime.start(language="en")
    return runtime.handle(state.conversation_id, MESSAGE)


def _offline_state() -> str:
    _, runtime = demo_runtime("real-estate", with_answerer=False)
    return _turn(runtime).state


@pytest.fixture
def remaining(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[list[float]], None]]:
    """Script the turn's remaining milliseconds, one value per look (the last value repeats)."""

    def script(values: list[float]) -> None:
        queue = list(values)

        def look() -> float:
            return queue.pop(0) if len(queue) > 1 else queue[0]

        monkeypatch.setattr(TurnContext, "remaining_ms", lambda self: look())

    yield script


def test_every_role_falls_back_and_the_record_says_why(spec: object) -> None:
    server = WireServer("openai", ["error_502"] * 3)  # propose, rate_utility, modulate: one request each
    result = _turn(_runtime(server))

    assert result.fail_closed is None  # the offline roles stood in
    assert result.state == _offline_state()
    notes = result.record["notes"]
    assert "proposer.fallback_offline: llm.server_error" in notes
    assert "rubric.fallback_offline: llm.server_error" in notes
    assert "modulation.fallback_canonical: llm.server_error" in notes
    calls = result.record["llm_calls"]
    assert sorted(c["purpose"] for c in calls) == ["modulate", "propose", "rate_utility"]
    assert {c["error_code"] for c in calls} == {"llm.server_error"}


def test_no_role_starts_once_the_turn_has_no_time_beyond_the_reserve(
        remaining: Callable[[list[float]], None]) -> None:
    settings = settings_for("llamacpp")
    remaining([float(settings.reserve_ms)])  # the whole turn is in its reserve
    server = WireServer("openai", [])  # any request at all fails the test
    result = _turn(_runtime(server))

    assert server.requests == []
    assert result.fail_closed is None and result.state == _offline_state()
    assert "proposer.fallback_offline: llm.deadline_exceeded" in result.record["notes"]
    assert "modulation.fallback_canonical: llm.deadline_exceeded" in result.record["notes"]


def test_the_roles_share_one_deadline(remaining: Callable[[list[float]], None]) -> None:
    # The proposal's stream uses the turn's time up (cut after a few chunks); the rating and the question
    # that follow in the same turn find no time and never reach the server.
    settings = settings_for("llamacpp")
    remaining([30_000.0] * 5 + [float(settings.reserve_ms)])
    server = WireServer("openai", ["propose_ok_stream"])  # one request only: a second one fails the test
    result = _turn(_runtime(server))

    assert len(server.requests) == 1 and server.streams[0].closed
    assert server.streams[0].read < len(server.streams[0].events)
    codes = {c["purpose"]: c["error_code"] for c in result.record["llm_calls"]}
    assert codes == {"propose": "llm.deadline_exceeded", "rate_utility": "llm.deadline_exceeded",
                     "modulate": "llm.deadline_exceeded"}
    assert result.fail_closed is None


def test_sdk_messages_stay_off_the_terminal_at_the_default_level(capsys: pytest.CaptureFixture[str]) -> None:
    route_sdk_logging()
    logging.getLogger("instructor.v2.retry").error("API call failed on attempt 1: Request timed out.")
    captured = capsys.readouterr()
    assert "API call failed" not in captured.err + captured.out


@pytest.fixture
def debug_logging() -> Iterator[None]:
    previous = structlog.get_config()
    httpx_level = logging.getLogger("httpx2").level
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG))
    logging.getLogger("httpx2").setLevel(logging.DEBUG)
    yield
    structlog.configure(**previous)
    logging.getLogger("httpx2").setLevel(httpx_level)


def test_sdk_messages_become_redacted_structlog_events(capsys: pytest.CaptureFixture[str],
                                                       debug_logging: None) -> None:
    protect(FAKE_KEY)
    route_sdk_logging()
    with structlog.testing.capture_logs() as events:
        logging.getLogger("instructor.v2.retry").error(f"API call failed on attempt 1: Request timed out. {FAKE_KEY}")
        logging.getLogger("httpx2").info("HTTP Request: POST http://127.0.0.1:8080/v1/chat?token=abc \"200 OK\"")
    captured = capsys.readouterr()
    assert "API call failed" not in captured.err + captured.out  # nothing raw on the terminal
    sdk = [e for e in events if e["event"] == "llm.sdk.message"]
    assert [e["library"] for e in sdk] == ["instructor.v2.retry", "httpx2"]
    assert FAKE_KEY not in sdk[0]["message"] and "[redacted]" in sdk[0]["message"]
    assert sdk[0]["log_level"] == "info"  # the adapter logs the failure itself (llm.call.failed)
    assert "token=abc" not in sdk[1]["message"]


def test_python_warnings_of_libraries_go_through_the_bridge() -> None:
    # pytest replaces warnings.showwarning in-process, so this runs in a fresh interpreter
    code = ("import warnings\nfrom llm_adapters.sdk_logging import route_sdk_logging\nroute_sdk_logging()\n"
            "warnings.warn('instructor: this mode is deprecated', DeprecationWarning, stacklevel=1)\n")
    done = subprocess.run([sys.executable, "-W", "always", "-c", code], capture_output=True, text=True, timeout=120,
                          check=True)
    assert "DeprecationWarning" not in done.stderr  # no raw warning line on the terminal
    assert "llm.sdk.message" in done.stdout + done.stderr and "py.warnings" in done.stdout + done.stderr
