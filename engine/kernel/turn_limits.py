"""Per-turn bounds shared by the runtime and the proposers: the turn's deadline, and where decisions run.

The deadline is cooperative: a Python thread cannot be interrupted, so long stages call ``check_deadline``
between units of work (the offline proposer between objectives). ``TurnRuntime`` opens the deadline from the
pinned bundle's ``runtime.json`` and turns a ``DeadlineError`` into a closed turn.

``remaining_ms`` lets a stage that can stop early (a streamed LLM call) stop in time: all LLM roles of a turn
share its one deadline. ``turn_ledger`` collects what such stages did outside the proposal (calls made, fallback
decisions) so the turn's audit record can show them.

``decide_on`` lets the HTTP service run answering and proposing on a bounded worker pool while every decision
still runs on the one engine thread (the decision layer is not thread-safe; see engine/service/engine_thread).
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from engine.errors import DeadlineError

T = TypeVar("T")
Runner = Callable[[Callable[[], T]], T]

_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("grace_turn_deadline", default=None)
_decide_on: contextvars.ContextVar[Callable[[Callable[[], object]], object] | None] = contextvars.ContextVar(
    "grace_decide_on", default=None
)


@contextmanager
def turn_deadline(budget_ms: float | None) -> Iterator[None]:
    """Within the block, ``check_deadline`` raises once ``budget_ms`` have passed (None: no deadline)."""
    token = _deadline.set(None if budget_ms is None else time.monotonic() + budget_ms / 1000.0)
    try:
        yield
    finally:
        _deadline.reset(token)


def remaining_ms() -> float | None:
    """Milliseconds left before the current turn's deadline (negative once past; None: no deadline)."""
    end = _deadline.get()
    return None if end is None else (end - time.monotonic()) * 1000.0


@dataclass
class TurnLedger:
    """What stages outside the proposer did during one turn: model calls (audit ``llm_calls``) and notes."""

    calls: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


_ledger: contextvars.ContextVar[TurnLedger | None] = contextvars.ContextVar("grace_turn_ledger", default=None)


@contextmanager
def turn_ledger() -> Iterator[TurnLedger]:
    ledger = TurnLedger()
    token = _ledger.set(ledger)
    try:
        yield ledger
    finally:
        _ledger.reset(token)


def record_call(call: dict[str, Any]) -> None:
    """Add a model call to the current turn's record (no-op outside a turn, e.g. a compile run)."""
    ledger = _ledger.get()
    if ledger is not None:
        ledger.calls.append(dict(call))


def record_note(note: str) -> None:
    ledger = _ledger.get()
    if ledger is not None:
        ledger.notes.append(note)


def check_deadline(stage: str) -> None:
    end = _deadline.get()
    if end is not None and time.monotonic() > end:
        raise DeadlineError(f"the turn ran past its deadline during {stage}")


@contextmanager
def deciding_on(runner: Callable[[Callable[[], object]], object]) -> Iterator[None]:
    """Within the block, ``run_decision`` hands its work to ``runner`` (e.g. the service's engine thread)."""
    token = _decide_on.set(runner)
    try:
        yield
    finally:
        _decide_on.reset(token)


def run_decision(work: Callable[[], T]) -> T:
    runner = _decide_on.get()
    if runner is None:
        return work()
    result: T = runner(work)  # type: ignore[assignment]
    return result
