"""Structured calls to OpenAI-compatible servers as server-sent events, bounded in tokens and in time.

A local server (llama.cpp) generates one request at a time and keeps generating for a client that gave up
waiting, unless the client closes the stream: it checks for a disconnect after every token. So this backend

* asks for the role's output budget (``max_tokens``) and also enforces it on the tokens it receives;
* reads the reply chunk by chunk and closes the HTTP stream as soon as the turn's deadline share is spent
  (``llm.deadline_exceeded``) or the budget is exceeded (``llm.output_truncated``); a watchdog ends the read at
  the deadline even when no chunk comes: servers send keep-alive comments (sse-starlette every 15 s) while a
  queued request waits or a long prompt is read, and each one restarts the HTTP read timeout;
* validates the finished JSON text against the role's response model with the request as validation context,
  the same check Instructor applies, and re-asks at most ``max_reasks`` times with the validation errors;
* retries transport failures at most ``transport_retries`` times, never past the deadline share.

The request follows Instructor's JSON modes (the response model's JSON schema in the system prompt, and in
``response_format`` so grammar-constrained servers follow it), compacted to save prompt tokens.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

import structlog
from pydantic import BaseModel, ValidationError

from llm_adapters.backend import Completion, classify_failure
from llm_adapters.config import LLMSettings
from llm_adapters.deadline import CallWindow, Remaining
from llm_adapters.errors import (
    LLMDeadlineError,
    LLMError,
    LLMOutputError,
    LLMTimeoutError,
)
from llm_adapters.retry_policy import TransportRetries

M = TypeVar("M", bound=BaseModel)
log = structlog.get_logger("llm_adapters")

SCHEMA_INSTRUCTION = "Reply with one JSON object (no prose, no code fence) that matches this JSON schema:\n"
REASK_INSTRUCTION = "Correct your JSON ONLY RESPONSE, based on the following errors:\n"


@dataclass
class _Reply:
    text: str
    finish_reason: str | None
    output_tokens: int
    input_tokens: int | None
    cut: str | None  # "deadline" or "budget" when the client closed the stream


def _expire(stream: Any, expired: threading.Event) -> None:
    """At the deadline: mark the stream expired and shut its socket down, which wakes a read blocked between
    keep-alive comments (the reading thread then sees the error and closes the stream itself)."""
    expired.set()
    response = getattr(stream, "response", None)
    extensions = getattr(response, "extensions", None) or {}
    network = extensions.get("network_stream")
    sock = network.get_extra_info("socket") if network is not None else None
    if isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):  # already closed by the reader: nothing left to wake
            sock.shutdown(socket.SHUT_RDWR)


# Length and count bounds are checked by the response model after the reply; as grammar rules they multiply
# (llama.cpp refuses a string of at most 2,000 characters as "exceeds sane defaults" and the server dies), and in
# the prompt they only cost tokens. Titles cost tokens too.
_UNCONSTRAINED = frozenset({"maxLength", "minLength", "maxItems", "minItems", "pattern", "title", "default"})


def grammar_schema(schema: Any) -> Any:
    """``schema`` without the keywords above (property names are kept, whatever they are called)."""
    if isinstance(schema, dict):
        return {
            k: (grammar_schema(v) if k != "properties" else {n: grammar_schema(s) for n, s in v.items()})
            for k, v in schema.items()
            if k not in _UNCONSTRAINED
        }
    if isinstance(schema, list):
        return [grammar_schema(item) for item in schema]
    return schema


def schema_text(response_model: type[BaseModel]) -> str:
    return json.dumps(grammar_schema(response_model.model_json_schema()), separators=(",", ":"), ensure_ascii=False)


def request_messages(
    messages: list[dict[str, str]], response_model: type[BaseModel], *, system_role: bool
) -> list[dict[str, str]]:
    """The template's messages with the schema instruction; without a system role it opens the user turn."""
    instruction = SCHEMA_INSTRUCTION + schema_text(response_model)
    system = "\n\n".join([*(m["content"] for m in messages if m["role"] == "system"), instruction])
    rest = [dict(m) for m in messages if m["role"] != "system"]
    if system_role:
        return [{"role": "system", "content": system}, *rest]
    if rest and rest[0]["role"] == "user":
        rest[0]["content"] = f"{system}\n\n{rest[0]['content']}"
        return rest
    return [{"role": "user", "content": system}, *rest]


def _validation_summary(exc: ValidationError) -> str:
    """What was wrong, for the model's re-ask: locations and messages (the model's own output, not logged)."""
    return "\n".join(f"- {'.'.join(str(p) for p in e['loc']) or '(top)'}: {e['msg']}" for e in exc.errors()[:8])


class StreamingBackend:
    """``LLMBackend`` over an ``openai.OpenAI`` client pointed at an OpenAI-compatible server."""

    ok_status = "ok"

    def __init__(
        self,
        client: Any,
        *,
        adapter: str,
        settings: LLMSettings,
        sleep: Callable[[float], None] = time.sleep,
        window: CallWindow | None = None,
    ) -> None:
        self.client = client
        self.adapter = adapter
        self.model = settings.provider.model
        self.settings = settings
        self._sleep = sleep
        self._window = window  # a fixed window (tests); else each call's own, from the turn's ``remaining``

    # -- one streamed request --------------------------------------------------------------------------------

    def _response_format(self, response_model: type[BaseModel]) -> dict[str, Any]:
        schema = grammar_schema(response_model.model_json_schema())
        if self.settings.provider.mode == "json_schema":
            return {"type": "json_schema", "json_schema": {"name": response_model.__name__, "schema": schema}}
        return {"type": "json_object", "schema": schema}  # llama.cpp turns the schema into a grammar

    def _timeout(self, window_s: float | None) -> Any:
        import httpx2

        read = (
            self.settings.request_timeout_s
            if window_s is None
            else min(self.settings.request_timeout_s, max(window_s, 0.001))
        )
        return httpx2.Timeout(read, connect=min(self.settings.connect_timeout_s, read))

    def _stream(
        self, messages: list[dict[str, str]], response_model: type[BaseModel], budget: int, window_s: float | None,
        call_window: CallWindow,
    ) -> _Reply:
        stream = self.client.chat.completions.create(
            model=self.model,
            messages=messages,
            temperature=self.settings.temperature,
            max_tokens=budget,
            stream=True,
            stream_options={"include_usage": True},
            response_format=self._response_format(response_model),
            timeout=self._timeout(window_s),
        )
        parts: list[str] = []
        tokens = 0
        finish: str | None = None
        usage_in: int | None = None
        usage_out: int | None = None
        cut: str | None = None
        expired = threading.Event()
        watchdog = None
        if window_s is not None:
            watchdog = threading.Timer(max(window_s, 0.0), _expire, args=(stream, expired))
            watchdog.daemon = True
            watchdog.start()
        try:
            for chunk in stream:
                usage = getattr(chunk, "usage", None)
                if usage is not None:
                    usage_in = getattr(usage, "prompt_tokens", None)
                    usage_out = getattr(usage, "completion_tokens", None)
                for choice in getattr(chunk, "choices", None) or []:
                    delta = getattr(choice, "delta", None)
                    content = getattr(delta, "content", None) if delta is not None else None
                    if content:
                        parts.append(content)
                        tokens += 1  # OpenAI-compatible servers stream one token per chunk
                    if getattr(choice, "finish_reason", None):
                        finish = choice.finish_reason
                if finish is None and tokens > budget:
                    cut = "budget"  # the server ignored max_tokens: stop it here
                    break
                if finish is None and (expired.is_set() or call_window.passed()):
                    cut = "deadline"
                    break
            if expired.is_set() and finish is None:
                cut = "deadline"  # the shut-down socket read as the end of an unfinished body
        except Exception:
            if not expired.is_set():
                raise
            cut = "deadline"  # the watchdog shut the connection while a read waited
        finally:
            if watchdog is not None:
                watchdog.cancel()
            stream.close()  # releases the connection; the server sees the disconnect and stops generating
        output = usage_out if isinstance(usage_out, int) and cut is None else tokens
        return _Reply("".join(parts), finish, output, usage_in if isinstance(usage_in, int) else None, cut)

    def _count_prompt_tokens(self, messages: list[dict[str, str]], call_window: CallWindow) -> int | None:
        """The server's own count of the prompt's tokens, for servers whose streams report no usage."""
        path = self.settings.provider.token_count_path
        base = self.settings.provider.base_url
        if not path or not base:
            return None
        window = call_window.left_s()
        if window is not None and window <= 0:
            return None
        import httpx2

        parts = urlsplit(base)
        url = f"{parts.scheme}://{parts.netloc}{path}"
        text = "\n".join(m["content"] for m in messages)
        try:
            response = self.client.with_options(timeout=httpx2.Timeout(2.0)).post(
                url, body={"input": text}, cast_to=httpx2.Response
            )
            count = response.json().get("count")
        except Exception as exc:  # a count is a measurement, never a reason to fail the call
            log.debug("llm.prompt_tokens.unavailable", adapter=self.adapter, error=type(exc).__name__)
            return None
        return count if isinstance(count, int) and count >= 0 else None

    # -- the call, with re-asks and retries ---------------------------------------------------------------------

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
        budget = self.settings.budget(purpose)
        sent = request_messages(messages, response_model, system_role=self.settings.provider.system_role)
        attempts = answered = 0
        window = self._window or CallWindow(self.settings, remaining)
        retries = TransportRetries(self.settings, window, self._sleep)
        input_tokens: int | None = None
        output_tokens = 0

        def tally() -> dict[str, Any]:
            return {"attempts": max(attempts, 1), "input_tokens": input_tokens, "output_tokens": output_tokens}

        while True:
            window_s = window.open(self.adapter, **tally())
            attempts += 1
            try:
                reply = self._stream(sent, response_model, budget, window_s, window)
            except LLMError:
                raise
            except Exception as exc:
                error = classify_failure(exc, adapter=self.adapter, attempts=attempts)
                error.context.update(tally())
                if isinstance(error, LLMTimeoutError) and window.passed():
                    # The read timeout was the turn's deadline share (no token came in time, e.g. the server was
                    # still reading a long prompt): the same cut as between chunks, and never retried.
                    raise LLMDeadlineError(
                        f"{self.adapter}: the turn's deadline passed before the model answered; request closed",
                        **tally(),
                    ) from None
                if not retries.wait_for_retry(error):
                    raise error from None  # the cause may carry provider bodies; the typed error is enough
                continue
            output_tokens += reply.output_tokens
            # No count after a deadline cut: the count is one more request to a server that is already late.
            counted = (
                reply.input_tokens
                if reply.input_tokens is not None or reply.cut == "deadline"
                else self._count_prompt_tokens(sent, window)
            )
            if counted is not None:
                input_tokens = (input_tokens or 0) + counted
            if reply.cut == "deadline":
                raise LLMDeadlineError(
                    f"{self.adapter}: the turn's deadline passed while the model was writing "
                    f"({reply.output_tokens} tokens); stream closed",
                    **tally(),
                )
            if reply.cut == "budget" or reply.finish_reason == "length":
                raise LLMOutputError(
                    f"{self.adapter}: output truncated at the {purpose} budget of {budget} tokens",
                    code="llm.output_truncated",
                    **tally(),
                )
            try:
                parsed = response_model.model_validate_json(reply.text, context=context)
            except ValidationError as exc:
                answered += 1
                if answered > self.settings.max_reasks:
                    issue = exc.errors()[0] if exc.errors() else None
                    where = (
                        f" (last issue: {'.'.join(str(p) for p in issue['loc']) or '(top)'}: {issue['type']})"
                        if issue
                        else ""
                    )
                    raise LLMOutputError(
                        f"{self.adapter}: output failed validation after {attempts} attempt(s){where}", **tally()
                    ) from None
                sent = [
                    *sent,
                    {"role": "assistant", "content": reply.text},
                    {"role": "user", "content": REASK_INSTRUCTION + _validation_summary(exc)},
                ]
                continue
            return Completion(parsed=parsed, input_tokens=input_tokens, output_tokens=output_tokens, attempts=attempts)
