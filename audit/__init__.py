"""GRACE audit trail: transition records, canonical JSON, redaction, hash chain, checkpoint, verification.

Per turn, the runtime does::

    redacted = redact_record(record, redaction_key)          # contact data -> keyed tokens
    sealed = seal(redacted, SealedHead.of(last) if last else None)
    cp = checkpoint_of(SealedHead.of(sealed), checkpoint_key)
    store.commit_turn(state, sealed, ...)                     # with cp, in one transaction
    emit_turn_recorded(sealed)
"""

from __future__ import annotations

from audit.canonical import canonical_bytes, canonical_text, sha256_hex, sha256_of
from audit.chain import (
    REASON_CODES,
    SealedHead,
    VerifyReport,
    checkpoint,
    checkpoint_of,
    record_hash,
    seal,
    verify,
    verify_or_raise,
)
from audit.record import SealedTransitionRecord, TransitionRecord
from audit.redaction import Redactor, load_policy, redact_record

__all__ = [
    "REASON_CODES",
    "Redactor",
    "SealedHead",
    "SealedTransitionRecord",
    "TransitionRecord",
    "VerifyReport",
    "canonical_bytes",
    "canonical_text",
    "checkpoint",
    "checkpoint_of",
    "load_policy",
    "record_hash",
    "redact_record",
    "seal",
    "sha256_hex",
    "sha256_of",
    "verify",
    "verify_or_raise",
]
