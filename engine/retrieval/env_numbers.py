"""Whole-number settings operators may give the retrieval layer through the environment."""

from __future__ import annotations

import os

from engine.retrieval.errors import RetrievalConfigError


def whole_number(name: str, default: int, code: str) -> int:
    """``name``'s value as a whole number (``default`` when unset or empty); anything else is a config error."""
    raw = os.environ.get(name, "")
    if not raw:
        return default
    if not raw.isdigit():
        raise RetrievalConfigError(f"{name} must be a whole number, got {raw!r}", code=code)
    return int(raw)
