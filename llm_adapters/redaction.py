"""Keep API keys out of logs: every log record created in the process has registered secrets blanked.

Our own errors and events never carry a key (they are built from status codes and counts). Third-party
libraries log from many module-level loggers created lazily (Instructor logs provider error bodies
verbatim), so the redaction hooks the log-record factory rather than individual loggers: it runs once per
record, before any handler, and only replaces the exact secret strings registered with ``protect``.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

REDACTED = "[redacted]"
_MIN_SECRET_LENGTH = 4  # shorter strings would blank ordinary words


class SecretFilter(logging.Filter):
    def __init__(self) -> None:
        super().__init__()
        self._secrets: set[str] = set()
        self._lock = threading.Lock()

    def add(self, secret: str) -> None:
        if len(secret) >= _MIN_SECRET_LENGTH:
            with self._lock:
                self._secrets.add(secret)

    def redact(self, text: str) -> str:
        for secret in sorted(self._secrets, key=len, reverse=True):
            text = text.replace(secret, REDACTED)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        if not self._secrets:
            return True
        try:
            message = record.getMessage()
        except (TypeError, ValueError):
            message = str(record.msg)
        cleaned = self.redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and record.exc_info[1] is not None:
            record.exc_text = self.redact(logging.Formatter().formatException(record.exc_info))
        return True


_FILTER = SecretFilter()
_INSTALLED = False
_INSTALL_LOCK = threading.Lock()


def _install() -> None:
    global _INSTALLED
    with _INSTALL_LOCK:
        if _INSTALLED:
            return
        previous = logging.getLogRecordFactory()

        def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = previous(*args, **kwargs)
            _FILTER.filter(record)
            return record

        logging.setLogRecordFactory(factory)
        _INSTALLED = True


def protect(secret: str) -> None:
    """Register a secret: from now on no log record in this process can show it."""
    _FILTER.add(secret)
    _install()


def redact(text: str) -> str:
    return _FILTER.redact(text)
