"""Every LLM call loop ends: re-asks and transport retries stay within the rule file's bounds, whatever fails."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from llm_adapters.backend import InstructorBackend
from llm_adapters.config import load_llm_settings
from llm_adapters.errors import LLMError, LLMOutputError


class ReadTimeout(Exception):  # the name is what classify_failure reads, as with httpx
    pass


class ValidationError(Exception):  # an output failure raised before any Instructor hook runs
    pass


class ConnectError(Exception):
    pass


class _StatusError(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(f"HTTP {status}")
        self.status_code = status


FAILURES = {
    "timeout": lambda: ReadTimeout("slow"),
    "output": lambda: ValidationError("bad json"),
    "connect": lambda: ConnectError("refused"),
    "http503": lambda: _StatusError(503),
    "http429": lambda: _StatusError(429),
    "http400": lambda: _StatusError(400),
}


class _Reply(BaseModel):
    text: str


class _FailingCompletions:
    """Fails every call, cycling through ``kinds``; never calls Instructor's hooks."""

    def __init__(self, kinds: list[str]) -> None:
        self.kinds = kinds
        self.calls = 0

    def create(self, **_: Any) -> Any:
        kind = self.kinds[self.calls % len(self.kinds)]
        self.calls += 1
        raise FAILURES[kind]()


class _Client:
    def __init__(self, kinds: list[str]) -> None:
        self.completions = _FailingCompletions(kinds)
        self.chat = self


def _call(kinds: list[str]) -> tuple[int, LLMError]:
    llm = load_llm_settings()
    client = _Client(kinds)
    backend = InstructorBackend(client, adapter="fake", settings=llm, sleep=lambda _s: None)
    with pytest.raises(LLMError) as caught:
        backend.complete(purpose="propose", turn=1, messages=[{"role": "user", "content": "hi"}],
                         response_model=_Reply, context=None)
    return client.completions.calls, caught.value


def test_output_failures_without_hooks_end_after_the_reask_bound() -> None:
    llm = load_llm_settings()
    calls, error = _call(["output"])
    assert isinstance(error, LLMOutputError)
    assert calls == llm.max_reasks + 1


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(sorted(FAILURES)), min_size=1, max_size=8))
def test_any_failure_sequence_ends_within_both_bounds(kinds: list[str]) -> None:
    llm = load_llm_settings()
    calls, error = _call(kinds)
    assert isinstance(error, LLMError)
    assert calls <= (llm.max_reasks + 1) + llm.transport_retries
