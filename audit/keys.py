"""Audit keys: read from an environment variable or a key file, never printed, never logged.

A key is written as text in one of three forms:

* ``hex:<hex digits>``      e.g. ``hex:8f3a...``
* ``base64:<base64>``       standard alphabet, padding optional
* anything else            taken as its UTF-8 bytes (a long passphrase)

Surrounding whitespace (a trailing newline in a key file) is ignored. The decoded key must be at least
``MIN_KEY_BYTES`` long. The same key may serve the checkpoint MAC and the redaction digests: both prefix
their input with a distinct domain tag, so one use can never forge the other.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Mapping
from pathlib import Path

from audit.errors import AuditKeyError

# 128 bits: the usual floor for HMAC-SHA256 keys; shorter keys make the digests of small value spaces
# (phone numbers) cheap to brute-force.
MIN_KEY_BYTES = 16
DEFAULT_KEY_ENV = "GRACE_AUDIT_KEY"


def parse_key(text: str, *, source: str = "key") -> bytes:
    """Decode a key from its text form. ``source`` names where it came from (for error messages only)."""
    raw = text.strip()
    try:
        if raw.startswith("hex:"):
            key = bytes.fromhex(raw[4:])
        elif raw.startswith("base64:"):
            body = raw[7:]
            key = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
        else:
            key = raw.encode("utf-8")
    except (ValueError, binascii.Error) as exc:
        raise AuditKeyError(f"{source} is not valid hex/base64", code="audit.key.malformed") from exc
    check_key(key, source=source)
    return key


def check_key(key: bytes, *, source: str = "key") -> bytes:
    if not isinstance(key, bytes | bytearray):
        raise AuditKeyError(f"{source} must be bytes", code="audit.key.invalid")
    if len(key) < MIN_KEY_BYTES:
        raise AuditKeyError(f"{source} is shorter than {MIN_KEY_BYTES} bytes", code="audit.key.too_short")
    return bytes(key)


def key_from_env(name: str = DEFAULT_KEY_ENV, environ: Mapping[str, str] | None = None) -> bytes:
    env = os.environ if environ is None else environ
    text = env.get(name)
    if text is None or not text.strip():
        raise AuditKeyError(f"environment variable {name} is not set", code="audit.key.missing")
    return parse_key(text, source=f"environment variable {name}")


def key_from_file(path: Path) -> bytes:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AuditKeyError(f"cannot read key file {path}", code="audit.key.unreadable") from exc
    return parse_key(text, source=f"key file {path}")
