"""Errors of the HTTP service, and the one table mapping every error code to an HTTP status.

    GraceError (engine.errors)
    ├── InputError
    │   └── RequestError        a malformed, oversized, binary or unsupported request (4xx)
    ├── AuthError               operator token missing or wrong (401)
    ├── RateLimitError          too many requests from one client (429, with Retry-After)
    ├── NotFoundError           unknown conversation / goal spec / route (404)
    └── ConflictError           idempotency key reused with another body, or conversation stayed busy (409)

Engine errors (``InputError`` from the runtime, ``StoreError``...) keep their own codes; ``status_for``
maps them.
"""

from __future__ import annotations

from engine.errors import GraceError, InputError, IntegrityError, StoreError


class RequestError(InputError):
    default_code = "input.malformed"


class AuthError(GraceError):
    default_code = "auth.invalid_token"


class ForbiddenError(GraceError):
    """An authenticated operator whose role does not allow the action (403)."""

    default_code = "auth.forbidden"


class RateLimitError(GraceError):
    default_code = "rate.limited"

    def __init__(self, message: str, *, retry_after_s: int, code: str | None = None) -> None:
        self.retry_after_s = retry_after_s
        super().__init__(message, code=code, retry_after_s=retry_after_s)


class NotFoundError(GraceError):
    default_code = "not_found"


class ConflictError(GraceError):
    default_code = "conflict"


class LimitsError(InputError):
    default_code = "service.limits_invalid"


# Exact codes first, then the error class.
_STATUS_BY_CODE = {
    "input.too_large": 413,
    "input.too_long": 413,
    "input.unsupported_media_type": 415,
    "store.not_found": 404,
    "store.conflict": 409,
    "store.busy": 503,
    "store.erased": 410,
    "store.not_erasable": 409,
    "store.rollback_detected": 409,
    "leads.delivery_unknown": 404,
    "leads.not_dead_letter": 409,
}


def status_for(error: GraceError) -> int:
    if error.code in _STATUS_BY_CODE:
        return _STATUS_BY_CODE[error.code]
    if isinstance(error, IntegrityError) and error.code.startswith("audit."):
        # The conversation's chain or seal fails verification: closed to new turns, and the code says why.
        return 409
    for cls, status in (
        (AuthError, 401),
        (ForbiddenError, 403),
        (RateLimitError, 429),
        (NotFoundError, 404),
        (ConflictError, 409),
        (InputError, 400),
        (IntegrityError, 500),
        (StoreError, 503),
    ):
        if isinstance(error, cls):
            return status
    return 500
