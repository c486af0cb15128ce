"""Errors of the engine package.

Every error carries a stable dotted ``code`` and a one-line ``message``::

    GraceError
    ├── InputError            bad input from a caller (HTTP body, CLI argument, file)
    │   ├── GoalSpecError     a goal spec failed deterministic validation
    │   └── RuleBundleError   a rule file failed schema/semantic validation
    ├── IntegrityError        published content does not match its recorded hash
    ├── PublicationError      publishing or loading a published artefact failed
    ├── DecisionError         the decision layer could not decide (fails closed)
    ├── DeadlineError         a turn ran past its deadline (fails closed)
    └── StoreError            persistence failed (the turn is not committed)
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError


class GraceError(Exception):
    """Base error: ``code`` is stable and machine-readable, ``message`` is one line for humans."""

    default_code = "grace.error"

    def __init__(self, message: str, *, code: str | None = None, **context: Any) -> None:
        self.code = code or self.default_code
        self.message = message.replace("\n", " ")
        self.context = context
        super().__init__(f"{self.code}: {self.message}")

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message}


class InputError(GraceError):
    default_code = "input.invalid"


class GoalSpecError(InputError):
    default_code = "goalspec.invalid"

    def __init__(self, issues: list[tuple[str, str]]) -> None:
        self.issues = issues
        first_code, first_msg = issues[0]
        more = f" (+{len(issues) - 1} more)" if len(issues) > 1 else ""
        super().__init__(first_msg + more, code=first_code)


class RuleBundleError(InputError):
    default_code = "rules.invalid"


class IntegrityError(GraceError):
    default_code = "integrity.hash_mismatch"


class PublicationError(GraceError):
    default_code = "publication.failed"


class DecisionError(GraceError):
    default_code = "decision.failed"


class StoreError(GraceError):
    default_code = "store.failed"


class DeadlineError(GraceError):
    """A turn ran past its deadline (rules/runtime.json ``turn_deadline_ms``); the turn fails closed."""

    default_code = "turn.deadline_exceeded"


def first_validation_error(exc: ValidationError, sep: str = ".", root: str = "") -> tuple[str, str]:
    """Where the first error of a pydantic validation lies (its location joined by ``sep``; ``root`` for the
    document itself) and its message: every reader of a typed file words its one-line error from these."""
    first = exc.errors()[0]
    return sep.join(str(part) for part in first.get("loc", ())) or root, first["msg"]
