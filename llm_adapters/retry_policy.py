"""One transport-retry policy for every LLM call loop (Instructor calls and streamed calls).

A failure is retried only when it is transient (timeout, HTTP 429, HTTP 5xx), at most ``transport_retries`` times,
after a capped exponential pause (a server's Retry-After wins if longer, still capped), and never when the pause
would spend the turn's remaining deadline share. Both loops ask this one object, so the bound is the same for
every provider and cannot drift between two copies.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from llm_adapters.config import LLMSettings
from llm_adapters.deadline import CallWindow
from llm_adapters.errors import LLMError, LLMRateLimitError, LLMServerError, LLMTimeoutError

RETRYABLE: tuple[type[LLMError], ...] = (LLMTimeoutError, LLMRateLimitError, LLMServerError)


def backoff_seconds(retry: int, settings: LLMSettings, retry_after_s: float | None) -> float:
    """Capped exponential backoff; a server's Retry-After wins if longer (still capped)."""
    computed = settings.backoff_initial_ms * float(2**retry) / 1000
    wanted = max(computed, retry_after_s or 0.0)
    return min(wanted, settings.backoff_max_ms / 1000)


@dataclass
class TransportRetries:
    """Counts the transport retries of one call and waits before each one it allows."""

    settings: LLMSettings
    window: CallWindow
    sleep: Callable[[float], None]
    used: int = 0

    def wait_for_retry(self, error: LLMError) -> bool:
        """True after waiting when ``error`` may be retried; False when the caller must raise it."""
        if not isinstance(error, RETRYABLE) or self.used >= self.settings.transport_retries:
            return False
        after = error.context.get("retry_after_s")
        pause = backoff_seconds(self.used, self.settings, after if isinstance(after, float) else None)
        left = self.window.left_s()
        if left is not None and pause >= left:
            return False  # waiting would spend the turn's deadline
        self.sleep(pause)
        self.used += 1
        return True
