"""Per-conversation encryption of personal data, so erasing a conversation is destroying one key.

Each conversation gets a random data key. Personal strings (visitor messages, accepted values, the values
and quotes inside proposed commands and recorded model outputs, fail-closed messages) are stored as
``enc:siv:<letters>``: AES-SIV (deterministic authenticated encryption, RFC 5297) under that key, with the
conversation id as associated data. Deterministic on purpose: the same value encrypts to the same token in
the stored state and in every audit record, so state continuity and "stored state equals the last record's
state-after" are checked on ciphertext, and still hold after the key is destroyed. The ciphertext is written
with the letters a-p (hex digits shifted), so it never looks like a phone number or an address to the
redactor or the log filter.

The data key is stored wrapped (AES-GCM) under a key-encryption key derived from the deployment's audit
key; the wrapped form lives in its own table, which is the only thing erasure deletes. See ADR 0004.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM, AESSIV

from audit.errors import AuditKeyError
from audit.keys import check_key

PREFIX = "enc:siv:"
_SEALED_MEMO_ENTRIES = 4096  # tokens one cipher remembers (a cipher lives for one turn or one export)
ERASED = "[erased]"  # what a reader sees in place of a personal string whose key was destroyed
DATA_KEY_BYTES = 64  # AES-SIV-256: two 256-bit halves
_KEK_TAG = b"grace.vault.kek.v1\x00"
_WRAP_VERSION = b"\x01"
_HEX = "0123456789abcdef"
_LETTERS = "abcdefghijklmnop"
_TO_LETTERS = str.maketrans(_HEX, _LETTERS)
_FROM_LETTERS = str.maketrans(_LETTERS, _HEX)

# Keys whose string values are personal wherever they appear inside the protected parts of a record.
PERSONAL_KEYS = frozenset({"value", "quote", "text", "message"})


def is_sealed(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(PREFIX)


class FieldCipher:
    """Encrypts and decrypts the personal strings of one conversation."""

    def __init__(self, conversation_id: str, data_key: bytes) -> None:
        if len(data_key) != DATA_KEY_BYTES:
            raise AuditKeyError("conversation data key has the wrong length", code="audit.vault.key_invalid")
        self.conversation_id = conversation_id
        self._siv = AESSIV(data_key)
        self._aad = [b"grace.vault.field.v1", conversation_id.encode("utf-8")]
        # AES-SIV is deterministic (same key, associated data and text: same ciphertext), and one turn seals the
        # same history several times (state seal check, stored state, record): remember this cipher's tokens.
        self._sealed: dict[str, str] = {}

    def seal(self, text: str) -> str:
        # Always encrypt, even text that looks sealed: a visitor typing "enc:siv:..." must round-trip.
        token = self._sealed.get(text)
        if token is None:
            raw = self._siv.encrypt(text.encode("utf-8", "surrogatepass"), self._aad)
            token = PREFIX + raw.hex().translate(_TO_LETTERS)
            if len(self._sealed) >= _SEALED_MEMO_ENTRIES:
                self._sealed.clear()
            self._sealed[text] = token
        return token

    def open(self, token: str) -> str:
        if not is_sealed(token):
            return token
        try:
            raw = bytes.fromhex(token[len(PREFIX) :].translate(_FROM_LETTERS))
            return self._siv.decrypt(raw, self._aad).decode("utf-8", "surrogatepass")
        except (ValueError, InvalidTag) as exc:
            raise AuditKeyError("stored ciphertext does not decrypt (altered?)", code="audit.vault.corrupt") from exc


def new_data_key() -> bytes:
    return os.urandom(DATA_KEY_BYTES)


def _kek(audit_key: bytes) -> AESGCM:
    return _kek_cipher(check_key(audit_key, source="audit key"))


@lru_cache(maxsize=8)  # a process holds one or two audit keys: derive the key-encryption key once per key
def _kek_cipher(key: bytes) -> AESGCM:
    return AESGCM(hmac.new(key, _KEK_TAG, hashlib.sha256).digest())


def wrap(data_key: bytes, conversation_id: str, audit_key: bytes) -> bytes:
    nonce = os.urandom(12)
    body = _kek(audit_key).encrypt(nonce, data_key, conversation_id.encode("utf-8"))
    return _WRAP_VERSION + nonce + body


def unwrap(wrapped: bytes, conversation_id: str, audit_key: bytes) -> bytes:
    if len(wrapped) < 13 or wrapped[:1] != _WRAP_VERSION:
        raise AuditKeyError("wrapped conversation key is malformed", code="audit.vault.key_invalid")
    try:
        return _kek(audit_key).decrypt(wrapped[1:13], wrapped[13:], conversation_id.encode("utf-8"))
    except InvalidTag as exc:
        raise AuditKeyError(
            "conversation key does not unwrap under this audit key", code="audit.vault.wrong_key"
        ) from exc


# -- structures ----------------------------------------------------------------------------------------


def seal_personal(value: Any, cipher: FieldCipher, *, under: bool = False) -> Any:
    """Copy of ``value`` with every string under a ``PERSONAL_KEYS`` key encrypted (``under``: all strings)."""
    if isinstance(value, str):
        return cipher.seal(value) if under else value
    if isinstance(value, Mapping):
        return {k: seal_personal(v, cipher, under=under or k in PERSONAL_KEYS) for k, v in value.items()}
    if isinstance(value, list):
        return [seal_personal(v, cipher, under=under) for v in value]
    return value


def open_personal(value: Any, cipher: FieldCipher | None) -> Any:
    """Copy of ``value`` with every sealed string decrypted (``cipher=None``: the key was erased)."""
    if isinstance(value, str):
        if not is_sealed(value):
            return value
        return ERASED if cipher is None else cipher.open(value)
    if isinstance(value, Mapping):
        return {k: open_personal(v, cipher) for k, v in value.items()}
    if isinstance(value, list):
        return [open_personal(v, cipher) for v in value]
    return value


def protect_record(original: Mapping[str, Any], redacted: Mapping[str, Any], cipher: FieldCipher) -> dict[str, Any]:
    """The redacted record with its personal parts replaced by ciphertext of the *original* values.

    Encrypting the original (not the redacted form) keeps record values equal to the stored state's, and
    lets replay recover exactly what was decided; everything outside these parts stays redacted plaintext.
    """
    out = dict(redacted)
    for side in ("state_before", "state_after"):
        snapshot = original.get(side)
        if isinstance(snapshot, Mapping):
            out[side] = {**redacted[side], "values": seal_personal(snapshot.get("values", {}), cipher)}
    out["candidates"] = [
        {**red, "command": seal_personal(orig.get("command", {}), cipher)}
        for orig, red in zip(original.get("candidates", []), redacted.get("candidates", []), strict=True)
    ]
    out["llm_calls"] = [
        {**red, "output": seal_personal(orig.get("output"), cipher, under=True)}
        for orig, red in zip(original.get("llm_calls", []), redacted.get("llm_calls", []), strict=True)
    ]
    failed = original.get("fail_closed")
    if isinstance(failed, Mapping):
        out["fail_closed"] = {**redacted["fail_closed"], "message": cipher.seal(str(failed.get("message", "")))}
    return out
