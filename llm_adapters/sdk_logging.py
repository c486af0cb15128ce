"""SDK and HTTP-library log messages as structlog events, redacted, never raw on the terminal.

Instructor logs every failed attempt at ERROR ("API call failed on attempt 1: Request timed out."), the HTTP
clients log requests, and the SDKs emit Python warnings. The adapters already classify every failure into a
typed error and log it once with a stable code (``llm.call.failed``), so a library's own account is detail:
its records become ``llm.sdk.message`` events one level lower (debug for debug/info, info above), carrying the
library's logger name and its message with registered secrets blanked and URL query strings withheld.
Contact data is redacted by the structlog processors like every other event.
"""

from __future__ import annotations

import logging
import re
import threading

import structlog

from llm_adapters.redaction import redact

LIBRARIES = ("instructor", "openai", "mistralai", "httpx", "httpx2", "httpcore", "httpcore2", "llama_cpp")
_QUERY = re.compile(r"(?<=[\w/%-])\?[^\s\"'<>]+")
_log = structlog.get_logger("llm.sdk")
_lock = threading.Lock()


class StructlogBridge(logging.Handler):
    """A standard-library handler that re-emits each record as one structlog event."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string must not lose the record
            message = str(record.msg)
        fields: dict[str, object] = {
            "library": record.name,
            "library_level": record.levelname.lower(),
            "message": _QUERY.sub("?[query withheld]", redact(message)),
        }
        if record.exc_info and record.exc_info[1] is not None:
            fields["error"] = type(record.exc_info[1]).__name__  # the type only: messages can quote bodies
        method = _log.info if record.levelno >= logging.WARNING else _log.debug
        method("llm.sdk.message", **fields)


def _bridged(logger: logging.Logger) -> bool:
    return any(isinstance(h, StructlogBridge) for h in logger.handlers)


def route_sdk_logging() -> None:
    """Idempotent: the libraries' loggers (and Python warnings) go to the bridge only."""
    with _lock:
        logging.captureWarnings(True)
        for name in (*LIBRARIES, "py.warnings"):
            logger = logging.getLogger(name)
            if not _bridged(logger):
                logger.addHandler(StructlogBridge())
            logger.propagate = False  # not also to a plain root handler
