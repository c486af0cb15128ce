"""Errors of the LLM adapters. The turn runtime turns any of them into a fail-closed turn::

    engine.errors.DecisionError
    └── LLMError                 llm.failed          a model call could not produce a usable result
        ├── LLMOutputError       llm.output_invalid  output still malformed / schema-violating after bounded re-asks
        │                        (llm.output_truncated: the role's output budget ran out first)
        ├── LLMDeadlineError     llm.deadline_exceeded  the turn's shared deadline left no time (stream closed)
        ├── LLMTransportError    llm.transport       the request did not complete (connection, protocol)
        │   ├── LLMTimeoutError      llm.timeout
        │   ├── LLMRateLimitError    llm.rate_limited    HTTP 429
        │   ├── LLMServerError       llm.server_error    HTTP 5xx
        │   ├── LLMAuthError         llm.auth            HTTP 401/403 (the key is never echoed)
        │   └── LLMRequestError      llm.request_rejected other HTTP 4xx
        ├── PromptError          llm.prompt_invalid  a prompt template is missing or malformed
        └── ReplayError          llm.replay_missing  a recorded output needed for replay is absent
    engine.errors.InputError
    └── LLMConfigError           llm.config_invalid  rules/llm.json or the environment is unusable

Messages never contain secrets: they are built here from status codes and counts, never from bodies.
"""

from __future__ import annotations

from typing import Any

from engine.errors import DecisionError, InputError


class LLMError(DecisionError):
    default_code = "llm.failed"

    def __init__(self, message: str, *, code: str | None = None, call: dict[str, Any] | None = None,
                 **context: Any) -> None:
        super().__init__(message, code=code, **context)
        self.call = call  # metadata of the failed call (prompt id, attempts, latency), for the audit record


class LLMOutputError(LLMError):
    default_code = "llm.output_invalid"


class LLMDeadlineError(LLMError):
    """Not retried: the time is the turn's, and it is gone. The offline fallback runs in the reserve."""

    default_code = "llm.deadline_exceeded"


class LLMTransportError(LLMError):
    default_code = "llm.transport"


class LLMTimeoutError(LLMTransportError):
    default_code = "llm.timeout"


class LLMRateLimitError(LLMTransportError):
    default_code = "llm.rate_limited"


class LLMServerError(LLMTransportError):
    default_code = "llm.server_error"


class LLMAuthError(LLMTransportError):
    default_code = "llm.auth"


class LLMRequestError(LLMTransportError):
    default_code = "llm.request_rejected"


class PromptError(LLMError):
    default_code = "llm.prompt_invalid"


class ReplayError(LLMError):
    default_code = "llm.replay_missing"


class LLMConfigError(InputError):
    default_code = "llm.config_invalid"
