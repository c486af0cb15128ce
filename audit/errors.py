"""Errors of the audit package.

Every error carries a stable dotted ``code`` and a one-line ``message`` (see ``engine.errors``)::

    GraceError
    └── AuditError                 base of everything raised by ``audit``
        ├── CanonicalError         (InputError) a value has no canonical JSON form
        ├── RecordError            (InputError) a record fails its schema or cannot be sealed
        ├── AuditKeyError          (InputError) a key is missing, unreadable or too short
        ├── RedactionError         (InputError) the redaction policy or input is unusable
        ├── ExportFormatError      (InputError) a JSON Lines / checkpoint file is malformed or not canonical
        ├── AuditConfigError       (InputError) a configuration value (log level, ...) is unusable
        ├── AuditIOError           (StoreError) reading or writing an export file failed
        └── ChainIntegrityError    (IntegrityError) ``verify`` found a broken chain (raised on request)

Verification failures are normally *returned* (``VerifyReport``); only ``verify_or_raise`` raises.
"""

from __future__ import annotations

from typing import Any

from engine.errors import GraceError, InputError, IntegrityError, StoreError


class AuditError(GraceError):
    default_code = "audit.error"


class CanonicalError(AuditError, InputError):
    default_code = "audit.canonical.invalid"


class RecordError(AuditError, InputError):
    default_code = "audit.record.invalid"


class AuditKeyError(AuditError, InputError):
    default_code = "audit.key.invalid"


class RedactionError(AuditError, InputError):
    default_code = "audit.redaction.invalid"


class ExportFormatError(AuditError, InputError):
    default_code = "audit.jsonl_invalid"

    def __init__(self, message: str, *, code: str | None = None, line: int | None = None, **context: Any) -> None:
        self.line = line
        super().__init__(message, code=code, line=line, **context)


class AuditConfigError(AuditError, InputError):
    default_code = "audit.config.invalid"


class AuditIOError(AuditError, StoreError):
    default_code = "audit.io.failed"


class ChainIntegrityError(AuditError, IntegrityError):
    default_code = "audit.verify.failed"

    def __init__(self, message: str, *, code: str | None = None, seq: int | None = None, **context: Any) -> None:
        self.seq = seq
        super().__init__(message, code=code, seq=seq, **context)
