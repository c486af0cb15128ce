"""Keep API keys out of logs: a logging filter on the client libraries' loggers that blanks known secrets.

Our own errors and events never carry a key (they are built from status codes and counts); this filter
covers what third-party libraries log (e.g. Instructor logs provider error messages verbatim).
"""

from __future__ import annotations

import logging
import threading

REDACTED = "[redacted]"
_LIBRARY_LOGGERS = ("instructor", "openai", "mistralai", "httpx", "httpx2", "httpcore", "httpcore2", "llm_adapters")
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


def _attach() -> None:
    names = set(_LIBRARY_LOGGERS)
    names.update(n for n in logging.root.manager.loggerDict if n.startswith(_LIBRARY_LOGGERS))
    for name in names:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)


def protect(secret: str) -> None:
    """Register a secret and (re)attach the filter to every client-library logger that exists now."""
    _FILTER.add(secret)
    _attach()


def redact(text: str) -> str:
    return _FILTER.redact(text)
