"""What one turn computes once and its commit would otherwise compute again.

``TurnRuntime.handle`` runs inside ``turn_scope()``. Within it:

* ``KeyRing.open`` hands back the cipher it already opened for the same conversation, wrapped key and audit key
  (unwrapping is deterministic, so the same inputs give the same data key). The turn's load and its commit then
  share one cipher, and with it the cipher's memo of sealed strings: the commit does not encrypt the history
  again. The scope dies with the turn, so no unwrapped key outlives it: an erasure between two turns leaves
  nothing behind that could decrypt the conversation, and the commit re-reads the wrapped key under its lock
  (an erased conversation has none and is refused before anything is opened).
* The runtime leaves the new state's stored form (``codec.stored_form``), which the checkpoint already hashed;
  the commit writes it instead of dumping the state again, when it is the same state object, sealed with the
  same cipher, at the same turn and checkpoint.

Outside a scope (tools, the operator API, tests) nothing is remembered.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from audit.vault import FieldCipher
from engine.kernel.conversation import ConversationState


@dataclass
class _Stored:
    state: ConversationState
    cipher: FieldCipher | None
    data: dict[str, Any]


@dataclass
class TurnScope:
    ciphers: dict[tuple[bytes, str, bytes], FieldCipher] = field(default_factory=dict)
    stored: _Stored | None = None


_CURRENT: ContextVar[TurnScope | None] = ContextVar("grace_turn_scope", default=None)


@contextmanager
def turn_scope() -> Iterator[TurnScope]:
    scope = TurnScope()
    token = _CURRENT.set(scope)
    try:
        yield scope
    finally:
        _CURRENT.reset(token)
        scope.ciphers.clear()  # nothing unwrapped survives the turn, even if someone kept the scope
        scope.stored = None


def current() -> TurnScope | None:
    return _CURRENT.get()


def remember_stored(state: ConversationState, cipher: FieldCipher | None, data: dict[str, Any]) -> None:
    """``data`` is ``codec.stored_form(state, cipher)`` as of now; the commit of this turn may write it."""
    scope = _CURRENT.get()
    if scope is not None:
        scope.stored = _Stored(state, cipher, data)


def stored_of(state: ConversationState, cipher: FieldCipher | None) -> dict[str, Any] | None:
    """The remembered stored form of ``state`` sealed with ``cipher``, or None. The turn number and the checkpoint
    are compared too: they are what a caller would change on a state after computing its form."""
    scope = _CURRENT.get()
    kept = scope.stored if scope is not None else None
    if (kept is None or kept.state is not state or kept.cipher is not cipher or kept.data.get("turn") != state.turn
            or kept.data.get("audit_head") != state.audit_head):
        return None
    return kept.data
