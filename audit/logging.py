"""Log set-up for GRACE: JSON lines, UTC timestamps, and contact-data redaction on every log path.

Event names are stable and dotted (``audit.record.sealed``, ``turn.recorded``, ``retrieval.query.done``).
The redaction processor runs after exception formatting, so tracebacks are redacted too, and before the
renderer, so nothing un-redacted is ever serialised. Without a redaction key the processor still replaces
contact data, with digest-less tokens (``email:redacted``).

Standard-library logging (uvicorn's error and access logs, third-party libraries) goes through the same
redactor: ``configure_logging`` gives the root logger one handler whose formatter renders each record as a
JSON line and redacts it. Tracebacks on every path keep their frames and exception types but never the
exception's message: messages quote values (pydantic's ``input_value``), and a name or an address in a
message is not something a pattern can be trusted to find.
"""

from __future__ import annotations

import json
import logging as stdlib_logging
import re
import sys
import traceback
from collections.abc import Mapping
from datetime import UTC, datetime
from types import TracebackType
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


ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None]


def safe_traceback(exc_info: ExcInfo) -> str:
    """The traceback of ``exc_info`` and of its causes, with exception types and frames but no messages."""
    parts: list[str] = []
    seen: set[int] = set()
    exc: BaseException | None = exc_info[1]
    while exc is not None and id(exc) not in seen and len(seen) < 16:
        seen.add(id(exc))
        frames = "".join(traceback.format_tb(exc.__traceback__))
        parts.append(f"Traceback (most recent call last):\n{frames}{type(exc).__module__}.{type(exc).__qualname__}"
                     " (message withheld from logs)")
        exc = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    return "\n\nwhile handling:\n".join(reversed(parts))


def _exc_info_of(value: Any) -> ExcInfo | None:
    if isinstance(value, BaseException):
        return (type(value), value, value.__traceback__)
    if isinstance(value, tuple) and len(value) == 3 and isinstance(value[1], BaseException):
        return value
    if value is True:
        found = sys.exc_info()
        return found if found[1] is not None else None
    return None


def format_exc_safely(logger: WrappedLogger, method_name: str, event_dict: EventDict) -> EventDict:
    """structlog processor: ``exc_info`` rendered by ``safe_traceback`` (replaces format_exc_info)."""
    value = event_dict.pop("exc_info", None)
    info = _exc_info_of(value)
    if info is not None:
        event_dict["exception"] = safe_traceback(info)
    return event_dict


_QUERY = re.compile(r"(?<=[\w/%-])\?[^\s\"'<>]+")


class RedactingFormatter(stdlib_logging.Formatter):
    """Standard-library records as redacted JSON lines (same fields as the structlog events)."""

    def __init__(self, redactor: Redactor) -> None:
        super().__init__()
        self._redactor = redactor

    def format(self, record: stdlib_logging.LogRecord) -> str:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string must not lose the record
            message = str(record.msg)
        # URL query strings (uvicorn's access lines, HTTP clients' request lines) can carry anything, names
        # and percent-encoded addresses included: the path stays, the query does not.
        message = _QUERY.sub("?[query withheld]", message)
        event: dict[str, Any] = {
            "event": message,
            "logger": record.name,
            "level": record.levelname.lower(),
            "timestamp": datetime.fromtimestamp(record.created, UTC).isoformat().replace("+00:00", "Z"),
        }
        if record.exc_info and record.exc_info[1] is not None:
            event["exception"] = safe_traceback(record.exc_info)
        if record.stack_info:
            event["stack"] = record.stack_info
        return json.dumps(self._redactor.redact(event, strict=False), sort_keys=True, ensure_ascii=False)


def route_standard_logging(redactor: Redactor, stream: TextIO, level: int) -> None:
    """Every standard-library record reaches the root logger's redacting handler. Console handlers someone
    else installed (plain, unredacted) are removed; other handlers (files, test capture) are left alone."""
    root = stdlib_logging.getLogger()
    for handler in list(root.handlers):
        if isinstance(handler, _RedactingHandler) or _is_console(handler):
            root.removeHandler(handler)
    handler = _RedactingHandler(stream)
    handler.setFormatter(RedactingFormatter(redactor))
    handler.setLevel(level)  # libraries that set their own logger to DEBUG (bm25s) stay below the threshold
    root.addHandler(handler)
    root.setLevel(level)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi"):
        named = stdlib_logging.getLogger(name)
        for extra in list(named.handlers):  # uvicorn's own (unredacted) handlers, if it configured any
            named.removeHandler(extra)
        named.propagate = True


class _RedactingHandler(stdlib_logging.StreamHandler):  # type: ignore[type-arg]
    """The handler ``route_standard_logging`` installs (recognised, and replaced, when called again)."""


def _is_console(handler: stdlib_logging.Handler) -> bool:
    stream = getattr(handler, "stream", None)
    return type(handler) is stdlib_logging.StreamHandler and stream in (sys.stderr, sys.stdout, sys.__stderr__,
                                                                         sys.__stdout__)


def build_processors(redactor: Redactor) -> list[Processor]:
    """The processor chain, ending in the JSON renderer (usable with ``structlog.wrap_logger`` in tests)."""
    return [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True, key="timestamp"),
        structlog.processors.StackInfoRenderer(),
        format_exc_safely,
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
    route_standard_logging(redactor, stream or sys.stderr, numeric)
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
