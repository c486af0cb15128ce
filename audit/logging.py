"""structlog set-up for GRACE: JSON lines, UTC timestamps, and contact-data redaction on every event.

Event names are stable and dotted (``audit.record.sealed``, ``turn.recorded``, ``retrieval.query.done``).
The redaction processor runs after exception formatting, so tracebacks are redacted too, and before the
renderer, so nothing un-redacted is ever serialised. Without a redaction key the processor still replaces
contact data, with digest-less tokens (``email:redacted``).
"""

from __future__ import annotations

import logging as stdlib_logging
import sys
from collections.abc import Mapping
from typing import Any, TextIO

import structlog
from structlog.typing import EventDict, Processor, WrappedLogger

from audit.errors import AuditConfigError
from audit.redaction import RedactionPolicy, Redactor

TURN_RECORDED = "turn.recorded"
_LEVELS = {
    "debug": stdlib_logging.DEBUG,
    "info": stdlib_logging.INFO,
    "warning": stdlib_logging.WARNING,
    "error": stdlib_logging.ERROR,
    "critical": stdlib_logging.CRITICAL,
}


class RedactingProcessor:
    """structlog processor: redacts every key and value of the event dict (non-strict: never raises)."""

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor

    def __call__(self, logger: WrappedLogger, method_name: str, event_dict: EventDict) -> EventDict:
        redacted = self._redactor.redact(dict(event_dict), strict=False)
        out: EventDict = dict(redacted)
        return out


def build_processors(redactor: Redactor) -> list[Processor]:
    """The processor chain, ending in the JSON renderer (usable with ``structlog.wrap_logger`` in tests)."""
    return [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True, key="timestamp"),
        structlog.processors.StackInfoRenderer(),
        structlog.processors.format_exc_info,
        RedactingProcessor(redactor),
        structlog.processors.JSONRenderer(sort_keys=True, ensure_ascii=False, default=repr),
    ]


def configure_logging(
    *,
    redaction_key: bytes | None,
    level: str = "info",
    stream: TextIO | None = None,
    policy: RedactionPolicy | None = None,
) -> Redactor:
    """Configure structlog globally; returns the redactor, so records can be redacted by the same rules."""
    numeric = _LEVELS.get(level.lower())
    if numeric is None:
        raise AuditConfigError(f"unknown log level {level!r}", code="audit.config.log_level")
    redactor = Redactor(redaction_key, policy)
    structlog.configure(
        processors=build_processors(redactor),
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(file=stream or sys.stderr),
        cache_logger_on_first_use=False,
    )
    return redactor


def turn_summary(record: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of a sealed record worth a log line (no message text, no state values)."""
    candidates = record.get("candidates") or []
    accepted = [c for c in candidates if isinstance(c, Mapping) and c.get("accepted") is True]
    rejected_codes = sorted(
        {str(c.get("reason_code")) for c in candidates if isinstance(c, Mapping) and c.get("accepted") is not True}
    )
    fail_closed = record.get("fail_closed")
    return {
        "conversation_id": record.get("conversation_id"),
        "turn": record.get("turn"),
        "seq": record.get("seq"),
        "hash": record.get("hash"),
        "goal_ref": record.get("goal_ref"),
        "bundle_version": record.get("bundle_version"),
        "chosen_action": record.get("chosen_action"),
        "candidates_accepted": len(accepted),
        "candidates_rejected": len(candidates) - len(accepted),
        "rejected_codes": rejected_codes,
        "fail_closed": fail_closed.get("code") if isinstance(fail_closed, Mapping) else None,
        "timings_ms": record.get("timings_ms"),
    }


def emit_turn_recorded(record: Mapping[str, Any], logger: Any | None = None) -> None:
    """Log one ``turn.recorded`` event for a sealed record."""
    target = logger if logger is not None else structlog.get_logger("audit")
    target.info(TURN_RECORDED, **turn_summary(record))
