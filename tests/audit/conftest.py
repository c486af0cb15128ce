"""Audit tests run with structlog quiet (verification logs a warning per failure; thousands of probes)."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
import structlog


@pytest.fixture(autouse=True)
def _quiet_structlog() -> Iterator[None]:
    saved = structlog.get_config()
    structlog.configure(
        processors=[structlog.processors.KeyValueRenderer()],
        wrapper_class=structlog.make_filtering_bound_logger(logging.CRITICAL),
        cache_logger_on_first_use=False,
    )
    try:
        yield
    finally:
        structlog.configure(**saved)
