"""The share of the turn's deadline an LLM call may use (rules/llm.json ``deadline``).

Every role of a turn draws on the one deadline the turn runtime opened (``engine.kernel.turn_context``), handed to
each call as ``remaining`` (the turn context's ``remaining_ms``). A call may run
until only ``reserve_ms`` of the turn remain, the time the offline fallback, the decision and the question need;
it is not started at all with less than ``min_call_ms`` left beyond the reserve.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from llm_adapters.config import LLMSettings
from llm_adapters.errors import LLMDeadlineError

Remaining = Callable[[], float | None]


class CallWindow:
    """Seconds left for LLM work in this turn; ``None`` everywhere when no turn deadline is open."""

    def __init__(self, settings: LLMSettings, remaining: Remaining | None = None) -> None:
        """``remaining``: milliseconds left in the turn (None: the call is not part of a turn with a deadline)."""
        self._settings = settings
        self._remaining = remaining

    def left_s(self) -> float | None:
        left = self._remaining() if self._remaining is not None else None
        return None if left is None else (left - self._settings.reserve_ms) / 1000.0

    def open(self, adapter: str, **context: Any) -> float | None:
        """Seconds a new request may take; raises when too little is left to start one."""
        left = self.left_s()
        if left is not None and left * 1000.0 < max(self._settings.min_call_ms, 1):
            raise LLMDeadlineError(f"{adapter}: no time left in the turn for another model call", **context)
        return left

    def passed(self) -> bool:
        left = self.left_s()
        return left is not None and left <= 0
