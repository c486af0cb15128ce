"""Structured calls through Instructor, with one retry policy for every provider.

* validation: Instructor re-asks malformed or schema-violating output at most ``max_reasks`` times;
* transport: HTTP 429, 5xx, timeouts and connection errors are retried at most ``transport_retries`` times
  with capped exponential backoff (SDK-level retries are switched off so the bound is exact);
* then the call fails closed with a typed ``LLMError`` whose message holds no secret and no provider body.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from llm_adapters.config import LLMSettings
from llm_adapters.deadline import CallWindow, Remaining
from llm_adapters.errors import (
    LLMAuthError,
    LLMError,
    LLMOutputError,
    LLMRateLimitError,
    LLMRequestError,
    LLMServerError,
    LLMTimeoutError,
    LLMTransportError,
)
from llm_adapters.retry_policy import TransportRetries

M = TypeVar("M", bound=BaseModel)

_TIMEOUT_NAMES = {"TimeoutException", "ReadTimeout", "ConnectTimeout", "WriteTimeout", "PoolTimeout",
                  "APITimeoutError", "TimeoutError"}
_CONNECTION_NAMES = {"TransportError", "ConnectError", "NetworkError", "RemoteProtocolError",
                     "APIConnectionError", "NoResponseError"}
_OUTPUT_NAMES = {"InstructorRetryException", "ResponseParsingError", "ValidationError", "JSONDecodeError"}


@dataclass(frozen=True)
class Completion(Generic[M]):
    parsed: M
    input_tokens: int | None
    output_tokens: int | None
    attempts: int


class LLMBackend(Protocol):
    """Sends rendered messages, returns a validated response model (or raises ``LLMError``)."""

    adapter: str
    model: str

    def complete(
        self,
        *,
        purpose: str,
        turn: int | None,
        messages: list[dict[str, str]],
        response_model: type[M],
        context: dict[str, Any] | None,
        remaining: Remaining | None = None,
    ) -> Completion[M]:
        """``remaining``: milliseconds left in the turn (its context's ``remaining_ms``; None outside a turn)."""
        ...


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) and 100 <= status <= 599 else None


def _retry_after_s(exc: BaseException) -> float | None:
    headers = getattr(exc, "headers", None) or getattr(getattr(exc, "response", None), "headers", None)
    if headers is None:
        return None
    try:
        milliseconds = headers.get("retry-after-ms")
        if milliseconds is not None:
            return max(float(milliseconds) / 1000, 0.0)
        seconds = headers.get("retry-after")
        return max(float(seconds), 0.0) if seconds is not None else None
    except (TypeError, ValueError):
        return None


def _first_validation_issue(exc: BaseException) -> str:
    for link in _chain(exc):
        if isinstance(link, ValidationError) and link.errors():
            error = link.errors()[0]
            where = ".".join(str(p) for p in error["loc"]) or "(top)"
            return f" (last issue: {where}: {error['type']})"  # never the input value: it may be visitor data
        if isinstance(link, json.JSONDecodeError):
            return " (last issue: not JSON)"
    return ""


def classify_failure(exc: BaseException, *, adapter: str, attempts: int) -> LLMError:
    """Map any client-library failure to a typed error whose message is safe to log."""
    for link in _chain(exc):
        if isinstance(link, LLMError):
            return link
        names = _names(link)
        if names & _TIMEOUT_NAMES:
            return LLMTimeoutError(f"{adapter}: request timed out ({attempts} attempt(s))", attempts=attempts)
        status = _status(link)
        if status is not None:
            extra: dict[str, Any] = {"status": status, "attempts": attempts, "retry_after_s": _retry_after_s(link)}
            if status == 429:
                return LLMRateLimitError(f"{adapter}: rate limited (HTTP 429)", **extra)
            if status >= 500:
                return LLMServerError(f"{adapter}: server error (HTTP {status})", **extra)
            if status in (401, 403):
                return LLMAuthError(f"{adapter}: credentials rejected (HTTP {status})", **extra)
            if status >= 400:
                return LLMRequestError(f"{adapter}: request rejected (HTTP {status})", **extra)
        if names & _CONNECTION_NAMES:
            return LLMTransportError(f"{adapter}: connection failed ({type(link).__name__})", attempts=attempts)
    if "IncompleteOutputException" in {n for link in _chain(exc) for n in _names(link)}:
        return LLMOutputError(f"{adapter}: output truncated at the token limit", code="llm.output_truncated",
                              attempts=attempts)
    if any(_names(link) & _OUTPUT_NAMES for link in _chain(exc)):
        return LLMOutputError(
            f"{adapter}: output failed validation after {attempts} attempt(s){_first_validation_issue(exc)}",
            attempts=attempts,
        )
    return LLMError(f"{adapter}: call failed ({type(exc).__name__})", attempts=attempts)


class _CallStats:
    """Collects per-request facts from Instructor hooks (requests made, token usage)."""

    def __init__(self) -> None:
        self.requests = 0
        self.responses = 0
        self.input_tokens: int | None = None
        self.output_tokens: int | None = None

    def on_request(self, *args: Any, **kwargs: Any) -> None:
        self.requests += 1

    def on_response(self, response: Any) -> None:
        self.responses += 1
        usage = getattr(response, "usage", None)
        self._add("input_tokens", getattr(usage, "prompt_tokens", None))
        self._add("output_tokens", getattr(usage, "completion_tokens", None))

    def _add(self, field: str, value: Any) -> None:
        if isinstance(value, int) and not isinstance(value, bool):
            setattr(self, field, (getattr(self, field) or 0) + value)

    def add_tokens(self, other: _CallStats) -> None:
        self._add("input_tokens", other.input_tokens)
        self._add("output_tokens", other.output_tokens)


class InstructorBackend:
    """Any Instructor client (Mistral, OpenAI-compatible) behind ``LLMBackend``."""

    def __init__(self, client: Any, *, adapter: str, settings: LLMSettings,
                 sleep: Callable[[float], None] = time.sleep, window: CallWindow | None = None) -> None:
        self.client = client
        self.adapter = adapter
        self.model = settings.provider.model
        self.settings = settings
        self._sleep = sleep
        self._window = window  # a fixed window (tests); else each call's own, from the turn's ``remaining``

    def complete(
        self,
        *,
        purpose: str,
        turn: int | None,
        messages: list[dict[str, str]],
        response_model: type[M],
        context: dict[str, Any] | None,
        remaining: Remaining | None = None,
    ) -> Completion[M]:
        from instructor.core.hooks import HookName, Hooks

        attempts = 0  # requests sent, all rounds
        answered = 0  # responses received: what the re-ask bound counts
        window = self._window or CallWindow(self.settings, remaining)
        retries = TransportRetries(self.settings, window, self._sleep)
        usage = _CallStats()  # token usage summed over every round
        while True:
            # No new request once the turn's deadline share is spent (this path cannot cancel a running one:
            # providers without streaming are bounded by their request timeout).
            window.open(self.adapter, attempts=max(attempts, 1), input_tokens=usage.input_tokens,
                              output_tokens=usage.output_tokens)
            stats = _CallStats()
            hooks = Hooks()
            hooks.on(HookName.COMPLETION_KWARGS, stats.on_request)
            hooks.on(HookName.COMPLETION_RESPONSE, stats.on_response)
            try:
                parsed = self.client.chat.completions.create(
                    response_model=response_model,
                    messages=messages,
                    max_retries=max(self.settings.max_reasks - answered, 0),
                    context=context,
                    hooks=hooks,
                    model=self.model,
                    temperature=self.settings.temperature,
                    max_tokens=self.settings.budget(purpose),
                )
            except Exception as exc:
                usage.add_tokens(stats)
                attempts += max(stats.requests, 1)
                answered += stats.responses
                error = classify_failure(exc, adapter=self.adapter, attempts=attempts)
                error.context.update(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens)
                if error.code == LLMOutputError.default_code:
                    # An output failure judged at least one reply even when no response hook saw it (a client
                    # that validates before Instructor's hooks run): count one, so this loop always ends.
                    answered += 0 if stats.responses else 1
                    if answered <= self.settings.max_reasks:
                        # Instructor gave up early (e.g. it cannot build a re-ask for a reply without a tool
                        # call): ask again from scratch, still within the same bound.
                        continue
                if not retries.wait_for_retry(error):
                    raise error from None  # the cause may carry provider bodies; the typed error is enough
                continue
            if not isinstance(parsed, response_model):
                raise LLMOutputError(f"{self.adapter}: client returned {type(parsed).__name__}")
            usage.add_tokens(stats)
            return Completion(parsed=parsed, input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
                              attempts=attempts + max(stats.requests, 1))
