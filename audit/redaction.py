"""Replace contact data (e-mail addresses, phone-number-like strings) by keyed digest tokens.

A token looks like ``email:hmac8:kdmbfaop`` / ``phone:hmac8:pbagcoen``: the kind, the digest length, and the
first characters of HMAC-SHA256(key, tag | kind | canonical value). The digest's hex digits 0-9a-f are
written as the letters a-p, so a token never contains a run of digits or an ``@`` and redaction is
idempotent. Equal values give equal tokens under one key (e-mails compare case-insensitively, phones by
their digits and a leading '+'), so an auditor can check "the same address as turn 2" without seeing it.

What stays readable: offsets, validator names, result codes, numbers that are not phone-like, dates,
single-dot decimals, money amounts next to a currency marker, hex digests. What the detector cannot see:
contact data spelled out in words ("six zero zero ..."), phone numbers stored as JSON floats, or digits glued
to a word that could be hex or holds digits ("abc600000005").

Detection works on the text as given and, if that differs, on its Unicode-normalised form too (fullwidth
'@', zero-width characters), so a disguised address is still replaced. The rules (digit counts, money
markers, exempt keys) are data: ``audit/policy/redaction.json``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import threading
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from enum import Enum
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from audit.errors import RedactionError
from audit.keys import check_key
from engine.text import normalize

DEFAULT_POLICY_PATH = Path(__file__).parent / "policy" / "redaction.json"

Kind = Literal["email", "phone"]

_TOKEN_TAG = b"grace.audit.redaction.v1\x00"
_VALUE_TAG = b"grace.audit.value.v1\x00"
_HEX_AS_LETTERS = str.maketrans("0123456789abcdef", "abcdefghijklmnop")

_LOCAL_CHARS = r"\w.!#$%&'*+/=?^`{|}~-"
# Starts only at the beginning of a run of local-part characters: keeps matching linear on long words.
_EMAIL_RE = re.compile(rf"(?<![{_LOCAL_CHARS}])[{_LOCAL_CHARS}]+[@\uff20\ufe6b][\w-]+(?:\.[\w-]+)*")
# "spec@v3", "free_text@1", "pkg@1.2.0": version references, not addresses (a real domain has a name part).
_VERSION_DOMAIN_RE = re.compile(r"[vV]?\d+(?:\.\d+)*")
# Calendar dates and ISO timestamps: protected from phone detection (validated below). A date-shaped
# piece of a longer digit-group sequence ("00-2026-01-01") is not a date.
_ISO_RE = re.compile(
    r"(?<![\w./-])(\d{4})-(\d{2})-(\d{2})"
    r"(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?!\d|[./-]\d)"
)
_DMY_RE = re.compile(r"(?<![\w./-])(\d{1,2})([./-])(\d{1,2})\2(\d{4})(?![\w]|[./-]\d)")
_YMD_RE = re.compile(r"(?<![\w./-])(\d{4})([./])(\d{1,2})\2(\d{1,2})(?![\w]|[./-]\d)")
_DECIMAL_RE = re.compile(r"\d+\.\d+")
_AMOUNT_RE = re.compile(r"\d+(?:[.,]\d{1,2})?|\d{1,3}([.,' \u00a0])\d{3}(?:\1\d{3})*(?:[.,]\d{1,2})?")
_DIGIT_RE = re.compile(r"\d")
_DIGITS_RE = re.compile(r"\d+")
_ASCII_TRIGGER = re.compile(r"[0-9@]")  # an ASCII string without these holds no contact data
_ASCII_AT = re.compile("@")
_PHONE_SEPARATORS = " \t\u00a0().-/"
_HEX_CHARS = frozenset("0123456789abcdefABCDEF")


_KEY_CACHE_SIZE = 4096  # bound on remembered key redactions / cached redactors

class PhonePolicy(BaseModel):
    """Digit-count bounds of a phone-like string."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min_digits: int = Field(ge=3, le=20, description="Fewest digits a phone-like string has.")
    max_digits: int = Field(ge=3, le=30, description="Most digits a phone-like string has (E.164: 15).")

    @model_validator(mode="after")
    def _ordered(self) -> PhonePolicy:
        if self.min_digits > self.max_digits:
            raise ValueError("min_digits must not exceed max_digits")
        return self


class RedactionPolicy(BaseModel):
    """Versioned redaction rules (data, not code)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: str = Field(pattern=r"^\d+\.\d+\.\d+$", description="Semantic version of this rule file.")
    description: str = Field(min_length=1, description="What the rules do, for compliance readers.")
    digest_chars: int = Field(ge=4, le=64, description="Digest characters kept in a token.")
    phone: PhonePolicy = Field(description="What counts as a phone-like string.")
    money_markers: list[str] = Field(description="Currency symbols/words that mark a number as an amount.")
    phone_exempt_keys: list[str] = Field(description="Keys whose values are machine ids/digests.")

    @model_validator(mode="after")
    def _markers(self) -> RedactionPolicy:
        if any(not marker.strip() for marker in self.money_markers):
            raise ValueError("money markers must not be blank")
        return self


def load_policy(path: Path | None = None) -> RedactionPolicy:
    """Load and validate a redaction rule file (the packaged default if ``path`` is None)."""
    if path is None:
        return _default_policy()
    return _read_policy(path)


@lru_cache(maxsize=1)
def _default_policy() -> RedactionPolicy:
    return _read_policy(DEFAULT_POLICY_PATH)


def _read_policy(path: Path) -> RedactionPolicy:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RedactionError(f"cannot read redaction policy {path}", code="audit.redaction.policy_unreadable") from exc
    try:
        return RedactionPolicy.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "policy"
        raise RedactionError(
            f"redaction policy {where}: {first['msg']}", code="audit.redaction.policy_invalid"
        ) from exc


@dataclass(frozen=True)
class Finding:
    """One piece of contact data found in a string: ``text[start:end]``."""

    kind: Kind
    start: int
    end: int


class Redactor:
    """Finds and replaces contact data. ``key=None`` gives digest-less tokens (``email:redacted``)."""

    def __init__(self, key: bytes | None, policy: RedactionPolicy | None = None) -> None:
        self._key = None if key is None else check_key(key, source="redaction key")
        self._key_cache: dict[str, str] = {}
        self.policy = policy or load_policy()
        lo, hi = self.policy.phone.min_digits, self.policy.phone.max_digits
        # Not inside a number or an address; groups joined by at most two separator characters. Letters
        # around the run are judged in _glued_to_token (hex digests must stay intact, "tel600..." must not).
        self._phone_re = re.compile(
            rf"(?<![\d+@])\+?\d(?:[{re.escape(_PHONE_SEPARATORS)}]{{0,2}}\d){{{lo - 1},{hi - 1}}}(?![\d@])"
        )
        markers = sorted({m.strip() for m in self.policy.money_markers}, key=len, reverse=True)
        alternation = "|".join(_marker_pattern(m) for m in markers)
        self._money_after = re.compile(rf"(?:[.,]\d{{1,2}})?[ \u00a0]?(?:{alternation})", re.IGNORECASE)
        self._money_before = re.compile(rf"(?:{alternation})[ \u00a0]?$", re.IGNORECASE)
        self._exempt = frozenset(self.policy.phone_exempt_keys)

    @property
    def keyed(self) -> bool:
        return self._key is not None

    # -- strings ---------------------------------------------------------------------------------------

    def find(self, text: str, *, phones: bool = True) -> list[Finding]:
        """Contact data in ``text`` as given (no normalisation), in order, non-overlapping."""
        findings = [
            Finding("email", m.start(), m.end())
            for m in _EMAIL_RE.finditer(text)
            if not _VERSION_DOMAIN_RE.fullmatch(re.split("[@\uff20\ufe6b]", m.group(), maxsplit=1)[1])
        ]
        if phones:
            masked = list(text)
            for found in findings:  # an address's digits are never a phone number
                masked[found.start : found.end] = "\x00" * (found.end - found.start)
            findings.extend(self._find_phones("".join(masked)))
        return sorted(findings, key=lambda f: f.start)

    def redact_text(self, text: str, *, phones: bool = True) -> str:
        if text.isascii():  # NFKC and the invisible-character strip are identities on ASCII
            if not (_ASCII_TRIGGER if phones else _ASCII_AT).search(text):
                return text
            # A phone number needs at least min_digits digits and an address an "@": most ids ("ASK(o1)",
            # "money/1") have neither and skip the finders.
            if "@" not in text and (not phones or sum(c.isdigit() for c in text) < self.policy.phone.min_digits):
                return text
            return self._replace(text, phones)
        out = self._replace(text, phones)
        normalized = normalize(out)
        if normalized != out and self.find(normalized, phones=phones):
            # Visible only after normalisation (fullwidth '@', zero-width joiners): redact that form.
            out = self._replace(normalize(text), phones)
        return out

    def token(self, kind: Kind, value: str) -> str:
        """The replacement token of one e-mail address or phone number."""
        if self._key is None:
            return f"{kind}:redacted"
        payload = _TOKEN_TAG + kind.encode() + b"\x00" + _canonical_contact(kind, value).encode("utf-8")
        digest = hmac.new(self._key, payload, hashlib.sha256).hexdigest()[: self.policy.digest_chars]
        return f"{kind}:hmac{self.policy.digest_chars}:{digest.translate(_HEX_AS_LETTERS)}"

    def value_digest(self, value: str) -> str:
        """Keyed digest of an extracted value (for ``Candidate.value_digest``): exact-string equality."""
        if self._key is None:
            raise RedactionError("value digests need a redaction key", code="audit.redaction.no_key")
        digest = hmac.new(self._key, _VALUE_TAG + value.encode("utf-8", "surrogatepass"), hashlib.sha256)
        return "hmac-sha256:" + digest.hexdigest()

    # -- structures ------------------------------------------------------------------------------------

    def redact(self, value: Any, *, strict: bool = True) -> Any:
        """A redacted deep copy: every string (keys too) and phone-like integer is processed.

        ``strict`` (records): values with no JSON meaning raise ``RedactionError``, since they could hide
        contact data. Not strict (log events): such values are rendered with ``repr`` and then redacted.
        """
        return self._walk(value, strict, phones=True, depth=0)

    def leaks(self, value: Any) -> list[str]:
        """JSON-pointer-like paths of strings that still hold contact data (empty when clean)."""
        found: list[str] = []
        self._scan(value, "", found, phones=True)
        return found

    # -- internals -------------------------------------------------------------------------------------

    def _replace(self, text: str, phones: bool) -> str:
        findings = self.find(text, phones=phones)
        if not findings:
            return text
        parts: list[str] = []
        cursor = 0
        for found in findings:
            parts.append(text[cursor : found.start])
            parts.append(self.token(found.kind, text[found.start : found.end]))
            cursor = found.end
        parts.append(text[cursor:])
        return "".join(parts)

    def _find_phones(self, text: str) -> list[Finding]:
        protected = sorted(_date_spans(text))
        found: list[Finding] = []
        pos = 0
        while (match := self._phone_re.search(text, pos)) is not None:
            start, end = match.span()
            inside = next((span for span in protected if span[0] <= start < span[1]), None)
            if inside is not None:  # a date or timestamp: skip past it
                pos = inside[1]
                continue
            cut = next((span[0] for span in protected if start < span[0] < end), None)
            if cut is not None:  # a phone-like run that runs into a date: keep only the part before it
                end = start + len(text[start:cut].rstrip(_PHONE_SEPARATORS))
            pos = end if cut is None else cut
            span = self._phone_span(text, start, end)
            if span is not None:
                found.append(Finding("phone", span[0], span[1]))
        return found

    def _phone_span(self, text: str, start: int, end: int) -> tuple[int, int] | None:
        """The phone-like part of a digit run, or None if it is a date-free amount, decimal or id fragment."""
        glued_before, glued_after = _glued_to_token(text, start, end)
        if glued_before or glued_after:
            # Drop the digit group that touches an id-like word; the groups between stand free.
            runs = [m.span() for m in _DIGITS_RE.finditer(text, start, end)]
            runs = runs[1 if glued_before else 0 : len(runs) - 1 if glued_after else len(runs)]
            if not runs:
                return None
            start, end = runs[0][0], runs[-1][1]
        candidate = text[start:end]
        if len(_DIGIT_RE.findall(candidate)) < self.policy.phone.min_digits:
            return None
        if _DECIMAL_RE.fullmatch(candidate) or self._is_amount(text, start, end):
            return None
        return start, end

    def _is_amount(self, text: str, start: int, end: int) -> bool:
        # One amount, or a range of two ("200000-300000 EUR"), each part shaped like an amount.
        parts = re.split(r"\s?[-–]\s?", text[start:end].lstrip("+"))
        if len(parts) > 2 or not all(_AMOUNT_RE.fullmatch(part) for part in parts):
            return False
        if self._money_after.match(text, end):
            return True
        return self._money_before.search(text[max(0, start - 24) : start]) is not None

    def _holds_contact(self, text: str, phones: bool) -> bool:
        if self.find(text, phones=phones):
            return True
        return not text.isascii() and bool(self.find(normalize(text), phones=phones))

    def _phone_like_int(self, value: int) -> bool:
        digits = len(str(abs(value)))
        return self.policy.phone.min_digits <= digits <= self.policy.phone.max_digits

    def _walk(self, value: Any, strict: bool, phones: bool, depth: int) -> Any:
        if depth > 64:
            raise RedactionError("value nested too deeply to redact", code="audit.redaction.too_deep")
        # Exact-type fast paths for the common record shapes (a record walks ~200 values); subclasses (StrEnum,
        # IntEnum, bool) fall through to the ordered checks below.
        kind = type(value)
        if kind is str:
            return self.redact_text(value, phones=phones)
        if kind is dict:
            return self._walk_mapping(value, strict, phones, depth)
        if kind is list:
            return [self._walk(item, strict, phones, depth + 1) for item in value]
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, str):
            return self.redact_text(str(value), phones=phones)
        if isinstance(value, Enum):
            return self._walk(value.value, strict, phones, depth + 1)
        if isinstance(value, int):
            return self.token("phone", str(value)) if phones and self._phone_like_int(value) else value
        if isinstance(value, float | Decimal | date):
            return value
        if isinstance(value, BaseModel):
            return self._walk(value.model_dump(mode="python"), strict, phones, depth + 1)
        if isinstance(value, Mapping):
            return self._walk_mapping(value, strict, phones, depth)
        if isinstance(value, list | tuple):
            return [self._walk(item, strict, phones, depth + 1) for item in value]
        if strict:
            raise RedactionError(
                f"cannot redact a value of type {type(value).__name__}",
                code="audit.redaction.unsupported_type",
            )
        return self.redact_text(repr(value), phones=phones)

    def _walk_mapping(self, value: Mapping[Any, Any], strict: bool, phones: bool, depth: int) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        for key, item in value.items():
            new_key = self._walk_key(key, strict)
            if new_key in out:
                raise RedactionError("two keys redact to the same token", code="audit.redaction.key_collision")
            out[new_key] = self._walk(item, strict, phones=key not in self._exempt, depth=depth + 1)
        return out

    def _walk_key(self, key: Any, strict: bool) -> Any:
        if isinstance(key, str):
            # Record keys repeat from turn to turn (field names, objective ids): remember their redaction.
            cached = self._key_cache.get(key)
            if cached is None:
                cached = self.redact_text(key)
                if len(self._key_cache) < _KEY_CACHE_SIZE:
                    self._key_cache[key] = cached
            return cached
        if strict and not isinstance(key, int | float | bool) and key is not None:
            raise RedactionError(f"cannot redact a key of type {type(key).__name__}", code="audit.redaction.bad_key")
        return key if strict else self.redact_text(str(key))

    def _scan(self, value: Any, path: str, found: list[str], phones: bool) -> None:
        if isinstance(value, str):
            if self._holds_contact(value, phones):
                found.append(path or "/")
        elif isinstance(value, bool) or value is None:
            return
        elif isinstance(value, int):
            if phones and self._phone_like_int(value):
                found.append(path or "/")
        elif isinstance(value, Mapping):
            for key, item in value.items():
                if isinstance(key, str) and self._holds_contact(key, True):
                    found.append(f"{path}/{key!s}#key")
                self._scan(item, f"{path}/{key!s}", found, phones=key not in self._exempt)
        elif isinstance(value, list | tuple):
            for index, item in enumerate(value):
                self._scan(item, f"{path}/{index}", found, phones)


_REDACTORS: dict[bytes, Redactor] = {}
_REDACTORS_LOCK = threading.Lock()


def _default_redactor(key: bytes) -> Redactor:
    """One redactor per key for the default policy: compiling its patterns costs more than a record."""
    with _REDACTORS_LOCK:
        redactor = _REDACTORS.get(key)
        if redactor is None:
            redactor = Redactor(key)
            if len(_REDACTORS) < _KEY_CACHE_SIZE:
                _REDACTORS[key] = redactor
        return redactor


def redact_record(record: Mapping[str, Any], key: bytes, policy: RedactionPolicy | None = None) -> dict[str, Any]:
    """Redact a transition record before sealing (strict: unknown value types are refused)."""
    redactor = Redactor(key, policy) if policy is not None else _default_redactor(key)
    redacted = redactor.redact(record, strict=True)
    if not isinstance(redacted, dict):
        raise RedactionError("record must be a JSON object", code="audit.redaction.not_object")
    return redacted


def _canonical_contact(kind: Kind, value: str) -> str:
    text = normalize(value)
    if kind == "email":
        return text.casefold()
    digits = "".join(str(unicodedata.decimal(ch)) for ch in text if unicodedata.decimal(ch, None) is not None)
    return ("+" if text.lstrip().startswith("+") else "") + digits


def _glued_to_token(text: str, start: int, end: int) -> tuple[bool, bool]:
    """Whether the run's first / last digit group belongs to a hex digest or an alphanumeric id.

    Letters touching the run are fine ("tel600000005", "600000005thanks"), unless the word they form could
    be hex or already holds digits ("sha256:ab12cd34...", "Zk9x1234567").
    """
    before = start
    while before > 0 and _is_word_char(text[before - 1]):
        before -= 1
    after = end
    while after < len(text) and _is_word_char(text[after]):
        after += 1
    word_before, word_after = text[before:start], text[end:after]
    return (
        bool(word_before) and text[start] != "+" and _hex_or_numeric(word_before),
        bool(word_after) and _hex_or_numeric(word_after),
    )


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _hex_or_numeric(word: str) -> bool:
    return all(ch in _HEX_CHARS for ch in word) or any(ch.isdigit() for ch in word)


def _marker_pattern(marker: str) -> str:
    # Word markers ("EUR") must stand alone; symbols ("€") may touch the number.
    before = r"(?<!\w)" if marker[0].isalnum() else ""
    after = r"(?!\w)" if marker[-1].isalnum() else ""
    return before + re.escape(marker) + after


def _date_spans(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for match in _ISO_RE.finditer(text):
        if _valid_date(int(match.group(1)), int(match.group(2)), int(match.group(3))):
            spans.append(match.span())
    for match in _DMY_RE.finditer(text):
        first, second, year = int(match.group(1)), int(match.group(3)), int(match.group(4))
        if _valid_date(year, second, first) or _valid_date(year, first, second):  # d/m/y or m/d/y
            spans.append(match.span())
    for match in _YMD_RE.finditer(text):
        if _valid_date(int(match.group(1)), int(match.group(3)), int(match.group(4))):
            spans.append(match.span())
    return spans


def _valid_date(year: int, month: int, day: int) -> bool:
    return 1 <= month <= 12 and 1 <= day <= 31 and 1000 <= year <= 2999
