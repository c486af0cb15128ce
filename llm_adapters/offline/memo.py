"""Per-message memo: values derived once from an Analysis (number mentions, cue positions) or from the rules
and shared by every extractor, so the proposer's work stays linear in message length.

The memo lives on the owner object itself (a private attribute), so it is freed with the owner: no global
table, no finalizers (a finalizer run by the garbage collector while a global lock was held deadlocked).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_ATTRIBUTE = "_grace_memo"
_lock = threading.Lock()  # only guards creating an owner's memo dict; factories run outside it


def _slot(owner: object) -> dict[str, Any]:
    slot: dict[str, Any] | None = owner.__dict__.get(_ATTRIBUTE)
    if slot is None:
        with _lock:
            slot = owner.__dict__.get(_ATTRIBUTE)
            if slot is None:
                slot = {}
                object.__setattr__(owner, _ATTRIBUTE, slot)  # works on frozen dataclasses too
    return slot


def memo(owner: object, key: str, factory: Callable[[], T]) -> T:
    """``factory()`` computed once per (owner object, key) while the owner lives."""
    slot = _slot(owner)
    if key in slot:
        value: T = slot[key]
        return value
    computed = factory()
    stored: T = slot.setdefault(key, computed)
    return stored
