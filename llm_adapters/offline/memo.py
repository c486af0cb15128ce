"""Per-message memo: values derived once from an Analysis (number mentions, cue positions) and shared by every
extractor of that message, so the proposer's work stays linear in message length."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_slots: dict[int, dict[str, Any]] = {}


def memo(owner: object, key: str, factory: Callable[[], T]) -> T:
    """``factory()`` computed once per (owner object, key) while the owner lives (owners are unhashable
    dataclasses, so they are keyed by identity and forgotten when collected)."""
    ident = id(owner)
    with _lock:
        slot = _slots.get(ident)
        if slot is None:
            slot = _slots[ident] = {}
            weakref.finalize(owner, _forget, ident)
        if key in slot:
            value: T = slot[key]
            return value
    value = factory()
    with _lock:
        slot.setdefault(key, value)
        stored: T = slot[key]
    return stored


def _forget(ident: int) -> None:
    with _lock:
        _slots.pop(ident, None)
