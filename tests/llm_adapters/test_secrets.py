"""No API key ever appears in errors or logs, even when the provider echoes it back."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
import structlog
import structlog.testing

from engine.kernel.conversation import Message, Role
from engine.kernel.goal_models import PublishedGoalSpec
from engine.kernel.ports import ProposerInput
from llm_adapters.config import load_llm_settings, resolve_api_key
from llm_adapters.errors import LLMAuthError, LLMConfigError
from llm_adapters.redaction import REDACTED, protect
from tests.llm_adapters.llm_wire_harness import FAKE_KEY

MakeAdapter = Callable[..., Any]


def _request(spec: PublishedGoalSpec) -> ProposerInput:
    return ProposerInput(spec=spec, bits=[0, 0, 0, 0], language="en", turn=1,
                         message=Message(role=Role.VISITOR, turn=1, text="Hello"), history=[])


@pytest.mark.parametrize("provider", ["mistral", "vllm"])
def test_key_echoed_by_the_provider_never_reaches_errors_or_logs(
    make_adapter: MakeAdapter, spec: PublishedGoalSpec, provider: str,
    caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str],
) -> None:
    caplog.set_level(logging.DEBUG)
    adapter, server, _ = make_adapter(provider, ["error_401_echo"])
    # structlog events are captured whatever structlog's configuration in this worker (stdlib logging under other
    # tests, its default printer when this test runs alone)
    with structlog.testing.capture_logs() as events, pytest.raises(LLMAuthError) as info:
        adapter.propose(_request(spec))

    error = info.value
    assert error.code == "llm.auth"
    assert error.__cause__ is None and error.__suppress_context__
    surfaces = [str(error), error.message, repr(error.context), repr(error.call), repr(error.to_dict()),
                caplog.text, *(r.getMessage() for r in caplog.records)]
    captured = capsys.readouterr()
    surfaces += [captured.out, captured.err]
    surfaces += [repr(event) for event in events]
    assert caplog.records or events, "the failure was logged (this test must see those logs)"
    for surface in surfaces:
        assert FAKE_KEY not in surface
    assert server.headers[0]["authorization"] == f"Bearer {FAKE_KEY}"  # the key was used, just never shown


def test_library_log_lines_are_redacted(caplog: pytest.LogCaptureFixture) -> None:
    protect("sk-live-abcdef123456")
    caplog.set_level(logging.ERROR)
    logging.getLogger("instructor").error("API call failed: key %s rejected", "sk-live-abcdef123456")
    assert "sk-live-abcdef123456" not in caplog.text
    assert REDACTED in caplog.text


def test_missing_key_error_names_the_variable_not_a_value() -> None:
    settings = load_llm_settings(provider="mistral")
    with pytest.raises(LLMConfigError) as info:
        resolve_api_key(settings, environ={"MISTRAL_API_KEY": "  "})
    assert info.value.code == "llm.api_key_missing"
    assert "MISTRAL_API_KEY" in info.value.message


def test_settings_never_hold_the_key() -> None:
    settings = load_llm_settings(provider="mistral")
    key = resolve_api_key(settings, environ={"MISTRAL_API_KEY": FAKE_KEY})
    assert key is not None and key.get_secret_value() == FAKE_KEY
    assert FAKE_KEY not in repr(key) and FAKE_KEY not in settings.model_dump_json()
