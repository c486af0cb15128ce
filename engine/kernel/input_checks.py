"""Visitor input checks, run before anything is stored: empty, oversized and binary text get stable codes."""

from __future__ import annotations

from typing import Any

from engine.errors import InputError
from engine.text import normalize


def check_visitor_text(text: Any, limits: dict[str, Any]) -> str:
    """Return the normalised text or raise ``InputError`` with code input.empty / too_long / binary / type."""
    if not isinstance(text, str):
        raise InputError("message must be a string", code="input.type")
    if "\x00" in text:
        raise InputError("message contains NUL bytes", code="input.binary")
    normalized = normalize(text).strip()
    if not normalized:
        raise InputError("message is empty", code="input.empty")
    if len(normalized) > int(limits["max_message_chars"]):
        raise InputError(f"message longer than {limits['max_message_chars']} characters", code="input.too_long")
    printable = sum(1 for ch in normalized if ch.isprintable() or ch in "\n\t")
    if printable / len(normalized) < float(limits["min_printable_ratio"]):
        raise InputError("message looks like binary data", code="input.binary")
    return normalized
