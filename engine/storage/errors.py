"""Errors of the storage package. All are ``engine.errors.StoreError``: the turn is not committed.

StoreError (engine.errors)
├── store.not_found        no conversation with that id
├── store.exists           a conversation with that id already exists
├── store.conflict         the stored turn moved (or the idempotency key was taken): reload and retry
├── store.turn_not_advanced  the new state's turn is not after the expected turn
├── store.pin_mismatch     a commit tried to change the pinned goal spec / rule bundle / id
├── store.unserializable   state or record is not JSON (nothing was written)
├── store.busy             the database stayed locked past the timeout (retryable)
├── store.corrupt          a stored row does not parse back into a state
├── store.failed           any other database error
├── store.url_invalid      the database URL is not sqlite:// or postgresql://
├── store.erased           the conversation was erased (its data key destroyed): nothing can be added
├── store.not_erasable     a plaintext conversation from before schema 2 has no key to destroy
├── store.key_required     the conversation is encrypted and the store was opened without the audit key
└── store.checkpoint_rollback  the new checkpoint does not follow the checkpoint log (rollback)
"""

from __future__ import annotations

from engine.errors import StoreError

FAILED = "store.failed"
NOT_FOUND = "store.not_found"
EXISTS = "store.exists"
CONFLICT = "store.conflict"
PIN_MISMATCH = "store.pin_mismatch"
TURN_NOT_ADVANCED = "store.turn_not_advanced"
UNSERIALIZABLE = "store.unserializable"
BUSY = "store.busy"
CORRUPT = "store.corrupt"
URL_INVALID = "store.url_invalid"
ERASED = "store.erased"
NOT_ERASABLE = "store.not_erasable"
KEY_REQUIRED = "store.key_required"
CHECKPOINT_ROLLBACK = "store.checkpoint_rollback"

# Codes a caller may answer by reloading the state and running the turn again.
RETRYABLE = frozenset({CONFLICT, BUSY})


def not_found(conversation_id: str) -> StoreError:
    return StoreError(f"no conversation {conversation_id!r}", code=NOT_FOUND, conversation_id=conversation_id)


def exists(conversation_id: str) -> StoreError:
    return StoreError(f"conversation {conversation_id!r} already exists", code=EXISTS)


def conflict(conversation_id: str, expected: int, found: int) -> StoreError:
    return StoreError(
        f"conversation {conversation_id!r} is at turn {found}, expected {expected}",
        code=CONFLICT,
        expected=expected,
        found=found,
    )


def erased(conversation_id: str) -> StoreError:
    return StoreError(f"conversation {conversation_id!r} was erased", code=ERASED)


def not_erasable(conversation_id: str) -> StoreError:
    return StoreError(
        f"conversation {conversation_id!r} has no data key (stored before encryption): it cannot be crypto-erased",
        code=NOT_ERASABLE,
    )


__all__ = [
    "BUSY",
    "CHECKPOINT_ROLLBACK",
    "CONFLICT",
    "CORRUPT",
    "ERASED",
    "EXISTS",
    "FAILED",
    "KEY_REQUIRED",
    "NOT_ERASABLE",
    "NOT_FOUND",
    "PIN_MISMATCH",
    "RETRYABLE",
    "TURN_NOT_ADVANCED",
    "UNSERIALIZABLE",
    "URL_INVALID",
    "StoreError",
    "conflict",
    "erased",
    "exists",
    "not_erasable",
    "not_found",
]
