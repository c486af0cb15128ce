"""What one turn's stages share, passed explicitly: the turn's deadline, the ledger of model calls made outside
the proposal, and where decisions run. ``TurnRuntime.handle`` opens one ``TurnContext`` per turn and hands it to
the proposer (``ProposerInput.context``), the answerer, the question modulator and the rubric rater; nothing
about the turn lives in a context variable.

The deadline is cooperative: a Python thread cannot be interrupted, so long stages call ``check_deadline``
between units of work (the offline proposer between objectives). The runtime opens the deadline from the pinned
bundle's ``runtime.json`` and turns a ``DeadlineError`` into a closed turn.

``remaining_ms`` lets a stage that can stop early (a streamed LLM call) stop in time: all LLM roles of a turn
share its one deadline. The ledger collects what such stages did outside the proposal (calls made, fallback
decisions) so the turn's audit record can show them.

``decide_on`` lets the HTTP service run answering and proposing on a bounded worker pool while every decision
still runs on the one engine thread (the decision layer is not thread-safe; see engine/service/engine_thread).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from engine.errors import DeadlineError

T = TypeVar("T")
Runner = Callable[[Callable[[], T]], T]


@dataclass
class TurnLedger:
    """What stages outside the proposer did during one turn: model calls (audit ``llm_calls``) and notes."""

    calls: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class TurnContext:
    """One turn's deadline, ledger and decision runner. ``TurnContext()`` is the context of work outside a turn
    (a compile run, a benchmark calling a proposer directly): no deadline, decisions run in place."""

    def __init__(self, budget_ms: float | None = None, decide_on: Callable[[Callable[[], Any]], Any] | None = None,
                 *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._end = None if budget_ms is None else clock() + budget_ms / 1000.0
        self._decide_on = decide_on
        self.ledger = TurnLedger()

    def remaining_ms(self) -> float | None:
        """Milliseconds left before the turn's deadline (negative once past; None: no deadline)."""
        return None if self._end is None else (self._end - self._clock()) * 1000.0

    def check_deadline(self, stage: str) -> None:
        if self._end is not None and self._clock() > self._end:
            raise DeadlineError(f"the turn ran past its deadline during {stage}")

    def record_call(self, call: dict[str, Any]) -> None:
        """A model call made outside the proposal (synthesis, modulation): it joins the turn's record."""
        self.ledger.calls.append(dict(call))

    def record_note(self, note: str) -> None:
        self.ledger.notes.append(note)

    def run_decision(self, work: Callable[[], T]) -> T:
        """``work`` on the decision runner (e.g. the service's engine thread), or here when there is none."""
        if self._decide_on is None:
            return work()
        result: T = self._decide_on(work)
        return result
