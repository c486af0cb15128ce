"""Keyed tokens: what replaces a piece of contact data, and the keyed digest of an extracted value."""

from __future__ import annotations

import hashlib
import hmac
import unicodedata

from audit.errors import RedactionError
from audit.keys import check_key
from audit.redaction.detection import Kind
from engine.text import normalize

_TOKEN_TAG = b"grace.audit.redaction.v1\x00"
_VALUE_TAG = b"grace.audit.value.v1\x00"
_HEX_AS_LETTERS = str.maketrans("0123456789abcdef", "abcdefghijklmnop")
_ASCII_NON_DIGITS = str.maketrans({chr(c): None for c in range(128) if not chr(c).isdigit()})


class TokenKey:
    """The redaction key and the digest length. ``key=None`` gives digest-less tokens (``email:redacted``)."""

    def __init__(self, key: bytes | None, digest_chars: int) -> None:
        self._key = None if key is None else check_key(key, source="redaction key")
        self._digest_chars = digest_chars

    @property
    def keyed(self) -> bool:
        return self._key is not None

    def token(self, kind: Kind, value: str) -> str:
        """The replacement token of one e-mail address or phone number."""
        if self._key is None:
            return f"{kind}:redacted"
        payload = _TOKEN_TAG + kind.encode() + b"\x00" + canonical_contact(kind, value).encode("utf-8")
        # One-shot HMAC (the same digest as hmac.new(...).hexdigest(), without the Python HMAC object)
        digest = hmac.digest(self._key, payload, "sha256").hex()[: self._digest_chars]
        return f"{kind}:hmac{self._digest_chars}:{digest.translate(_HEX_AS_LETTERS)}"

    def value_digest(self, value: str) -> str:
        """Keyed digest of an extracted value (for ``Candidate.value_digest``): exact-string equality."""
        if self._key is None:
            raise RedactionError("value digests need a redaction key", code="audit.redaction.no_key")
        digest = hmac.new(self._key, _VALUE_TAG + value.encode("utf-8", "surrogatepass"), hashlib.sha256)
        return "hmac-sha256:" + digest.hexdigest()


def canonical_contact(kind: Kind, value: str) -> str:
    """What equal contact data has in common: a casefolded address, a phone's digits and leading '+'."""
    text = normalize(value)
    if kind == "email":
        return text.casefold()
    if text.isascii():  # the only ASCII characters with a decimal value are 0-9, each its own digit
        digits = text.translate(_ASCII_NON_DIGITS)
    else:
        digits = "".join(str(unicodedata.decimal(ch)) for ch in text if unicodedata.decimal(ch, None) is not None)
    return ("+" if text.lstrip().startswith("+") else "") + digits
