"""The redactor: replaces contact data in strings and walks records (dicts, lists, models), keys included."""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from datetime import date
from decimal import Decimal
from enum import Enum
from typing import Any

from pydantic import BaseModel

from audit.errors import RedactionError
from audit.redaction.detection import Detector, Finding, Kind
from audit.redaction.policy import RedactionPolicy, load_policy
from audit.redaction.tokens import TokenKey
from engine.text import normalize

_ASCII_TRIGGER = re.compile(r"[0-9@]")  # an ASCII string without these holds no contact data
_ASCII_AT = re.compile("@")
_ASCII_DIGITS = "0123456789"  # on ASCII text, exactly the characters str.isdigit accepts
_KEY_CACHE_SIZE = 4096  # bound on remembered key redactions / cached redactors
# Bound on the characters of remembered string redactions per redactor (a few MB): past it the memory starts afresh.
_SEEN_MAX_CHARS = 1_000_000
_SEEN_MAX_TEXT = 4096  # longer strings are redacted every time, not remembered
_CLEAN_MAX = 16384  # bound on remembered clean strings per redactor (each at most _CLEAN_MAX_TEXT characters)
_CLEAN_MAX_TEXT = 256
_MAX_DEPTH = 64  # deeper values are refused (cycles or hostile input)
_Seen = dict[tuple[str, bool], str]  # string redactions of one walk
_NOT_LEAF = object()  # sentinel: the value is a container or an unusual type and takes the full walk


class Redactor:
    """Finds and replaces contact data. ``key=None`` gives digest-less tokens (``email:redacted``)."""

    def __init__(self, key: bytes | None, policy: RedactionPolicy | None = None) -> None:
        self.policy = policy or load_policy()
        self._tokens = TokenKey(key, self.policy.digest_chars)
        self._detector = Detector(self.policy)
        self._min_digits = self.policy.phone.min_digits
        self._int_bounds = self._detector.int_bounds  # read once per container walked (~45 per record)
        self._key_cache: dict[str, str] = {}
        self._exempt = frozenset(self.policy.phone_exempt_keys)
        # String redactions remembered across records: a record repeats the conversation's earlier messages and
        # values (state_before, state_after), which the previous records already redacted. Redaction is a pure
        # function of the text for one key and policy, so a remembered result is exactly a fresh one. The dict
        # is replaced, never cleared, when full, so a thread still walking with the old one is unaffected.
        self._seen: _Seen = {}
        self._seen_chars = 0
        # ASCII strings without a digit or an '@' met in walks (ids, codes, rationales, field values that repeat from
        # record to record): they hold no contact data whatever the key, and a set lookup is a tenth of the regex
        # test that showed it. Replaced, never cleared, when full (as _seen).
        self._clean: set[str] = set()

    @property
    def keyed(self) -> bool:
        return self._tokens.keyed

    # -- strings ---------------------------------------------------------------------------------------

    def find(self, text: str, *, phones: bool = True) -> list[Finding]:
        """Contact data in ``text`` as given (no normalisation), in order, non-overlapping."""
        return self._detector.find(text, phones=phones)

    def redact_text(self, text: str, *, phones: bool = True) -> str:
        if text.isascii():  # NFKC and the invisible-character strip are identities on ASCII
            if not (_ASCII_TRIGGER if phones else _ASCII_AT).search(text):
                return text
            # A phone number needs at least min_digits digits and an address an "@": most ids ("ASK(o1)",
            # "money/1") have neither and skip the finders.
            if "@" not in text and (not phones or sum(map(text.count, _ASCII_DIGITS)) < self._min_digits):
                return text
            return self._replace(text, phones)
        out = self._replace(text, phones)
        normalized = normalize(out)
        if normalized != out and self._detector.find(normalized, phones=phones):
            # Visible only after normalisation (fullwidth '@', zero-width joiners): redact that form.
            out = self._replace(normalize(text), phones)
        return out

    def token(self, kind: Kind, value: str) -> str:
        """The replacement token of one e-mail address or phone number."""
        return self._tokens.token(kind, value)

    def value_digest(self, value: str) -> str:
        """Keyed digest of an extracted value (for ``Candidate.value_digest``): exact-string equality."""
        return self._tokens.value_digest(value)

    # -- structures ------------------------------------------------------------------------------------

    def redact(self, value: Any, *, strict: bool = True) -> Any:
        """A redacted deep copy: every string (keys too) and phone-like integer is processed.

        ``strict`` (records): values with no JSON meaning raise ``RedactionError``, since they could hide
        contact data. Not strict (log events): such values are rendered with ``repr`` and then redacted.
        """
        if self._seen_chars > _SEEN_MAX_CHARS:
            self._seen, self._seen_chars = {}, 0
        if len(self._clean) > _CLEAN_MAX:
            self._clean = set()
        return self._walk(value, strict, True, 0, self._seen)

    def leaks(self, value: Any) -> list[str]:
        """JSON-pointer-like paths of strings that still hold contact data (empty when clean)."""
        found: list[str] = []
        self._scan(value, "", found, phones=True)
        return found

    # -- internals -------------------------------------------------------------------------------------

    def _replace(self, text: str, phones: bool) -> str:
        findings = self._detector.find(text, phones=phones)
        if not findings:
            return text
        parts: list[str] = []
        cursor = 0
        for found in findings:
            parts.append(text[cursor : found.start])
            parts.append(self._tokens.token(found.kind, text[found.start : found.end]))
            cursor = found.end
        parts.append(text[cursor:])
        return "".join(parts)

    def _walk(self, value: Any, strict: bool, phones: bool, depth: int, seen: _Seen) -> Any:
        if depth > _MAX_DEPTH:
            raise RedactionError("value nested too deeply to redact", code="audit.redaction.too_deep")
        # Exact-type fast paths for the common record shapes (a record walks ~200 values); subclasses (StrEnum,
        # IntEnum, bool) fall through to the ordered checks below.
        kind = type(value)
        if kind is str:
            return self.redact_text(value, phones=phones)
        if kind is dict:
            return self._walk_mapping(value, strict, phones, depth, seen)
        if kind is list:
            return self._walk_list(value, strict, phones, depth, seen)
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, str):
            return self.redact_text(str(value), phones=phones)
        if isinstance(value, Enum):
            return self._walk(value.value, strict, phones, depth + 1, seen)
        if isinstance(value, int):
            return self._tokens.token("phone", str(value)) if phones and self._detector.phone_like_int(value) else value
        if isinstance(value, float | Decimal | date):
            return value
        if isinstance(value, BaseModel):
            return self._walk(value.model_dump(mode="python"), strict, phones, depth + 1, seen)
        if isinstance(value, Mapping):
            return self._walk_mapping(value, strict, phones, depth, seen)
        if isinstance(value, list | tuple):
            return self._walk_list(value, strict, phones, depth, seen)
        if strict:
            raise RedactionError(
                f"cannot redact a value of type {type(value).__name__}",
                code="audit.redaction.unsupported_type",
            )
        return self.redact_text(repr(value), phones=phones)

    def _leaf(self, item: Any, phones: bool, seen: _Seen) -> Any:
        """What ``_walk`` gives for an exact str / None / bool / float / int leaf, without its type ladder and
        depth check (callers take this path only where the depth is within bounds); ``_NOT_LEAF`` otherwise.
        ``seen`` remembers the strings that went through the finders (bounded, see ``redact``): a record repeats
        its values (state_before and state_after, a command's value and quote, its two timestamps), and each
        record repeats the earlier turns' messages."""
        kind = type(item)
        if kind is str:
            # An ASCII string without a digit (or an '@' when phones are exempt) holds no contact data: the same
            # early return as redact_text, taken here without the call (most record strings are such ids/codes).
            if item.isascii() and not (_ASCII_TRIGGER if phones else _ASCII_AT).search(item):
                return item
            done = seen.get((item, phones))
            if done is None:
                done = self.redact_text(item, phones=phones)
                if len(item) <= _SEEN_MAX_TEXT:
                    seen[(item, phones)] = done
                    self._seen_chars += len(item) + len(done)
            return done
        if item is None or kind is bool or kind is float:
            return item
        if kind is int:
            return self._tokens.token("phone", str(item)) if phones and self._detector.phone_like_int(item) else item
        return _NOT_LEAF

    def _walk_list(self, value: list[Any] | tuple[Any, ...], strict: bool, phones: bool, depth: int,
                   seen: _Seen) -> list[Any]:
        child = depth + 1
        if child > _MAX_DEPTH:  # every item would be refused at its own depth check: keep that behaviour
            return [self._walk(item, strict, phones, child, seen) for item in value]
        out = []
        trigger = _ASCII_TRIGGER if phones else _ASCII_AT
        low, high = self._int_bounds
        clean = self._clean
        for item in value:
            kind = type(item)
            if kind is str:
                if item in clean:
                    out.append(item)
                    continue
                if item.isascii() and not trigger.search(item):
                    if phones and len(item) <= _CLEAN_MAX_TEXT:  # no digit, no '@': clean under any key
                        clean.add(item)
                    out.append(item)
                    continue
            # _leaf's cheapest cases in the loop itself (bits, counts): no call
            elif (kind is int and not (phones and low <= abs(item) < high)) or kind is float or kind is bool \
                    or item is None:
                out.append(item)
                continue
            if kind is dict:  # what _walk does for a dict within the depth limit, without its type ladder
                out.append(self._walk_mapping(item, strict, phones, child, seen))
                continue
            leaf = self._leaf(item, phones, seen)
            out.append(self._walk(item, strict, phones, child, seen) if leaf is _NOT_LEAF else leaf)
        return out

    def _walk_mapping(self, value: Mapping[Any, Any], strict: bool, phones: bool, depth: int,
                      seen: _Seen) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        child = depth + 1
        inline = child <= _MAX_DEPTH
        key_cache, exempt, clean = self._key_cache, self._exempt, self._clean
        low, high = self._int_bounds
        for key, item in value.items():
            new_key = key_cache.get(key) if type(key) is str else None
            if new_key is None:
                new_key = self._walk_key(key, strict)
            if new_key in out:
                raise RedactionError("two keys redact to the same token", code="audit.redaction.key_collision")
            kind = type(item)
            if not inline:
                out[new_key] = self._walk(item, strict, key not in exempt, child, seen)
                continue
            if kind is float or kind is bool or item is None:  # never redacted (as in _walk)
                out[new_key] = item
                continue
            item_phones = key not in exempt
            # _leaf's cheapest cases in the loop itself, without the call: a clean ASCII string (ids, codes,
            # rationales) or an int that is not phone-like (offsets, counts, turns)
            if kind is str:
                if item in clean:
                    out[new_key] = item
                elif item.isascii() and not (_ASCII_TRIGGER if item_phones else _ASCII_AT).search(item):
                    if item_phones and len(item) <= _CLEAN_MAX_TEXT:  # no digit, no '@': clean under any key
                        clean.add(item)
                    out[new_key] = item
                else:
                    out[new_key] = self._leaf(item, item_phones, seen)
            elif kind is dict:  # what _walk does for a dict within the depth limit, without its type ladder
                out[new_key] = self._walk_mapping(item, strict, item_phones, child, seen)
            elif kind is int and not (item_phones and low <= abs(item) < high):
                out[new_key] = item
            elif kind is list:
                out[new_key] = self._walk_list(item, strict, item_phones, child, seen)
            else:
                leaf = self._leaf(item, item_phones, seen)
                out[new_key] = self._walk(item, strict, item_phones, child, seen) if leaf is _NOT_LEAF else leaf
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
            if self._detector.holds_contact(value, phones):
                found.append(path or "/")
        elif isinstance(value, bool) or value is None:
            return
        elif isinstance(value, int):
            if phones and self._detector.phone_like_int(value):
                found.append(path or "/")
        elif isinstance(value, Mapping):
            for key, item in value.items():
                if isinstance(key, str) and self._detector.holds_contact(key, True):
                    found.append(f"{path}/{key!s}#key")
                self._scan(item, f"{path}/{key!s}", found, phones=key not in self._exempt)
        elif isinstance(value, list | tuple):
            for index, item in enumerate(value):
                self._scan(item, f"{path}/{index}", found, phones)


_REDACTORS: dict[bytes, Redactor] = {}
_REDACTORS_LOCK = threading.Lock()


def default_redactor(key: bytes) -> Redactor:
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
    redactor = Redactor(key, policy) if policy is not None else default_redactor(key)
    redacted = redactor.redact(record, strict=True)
    if not isinstance(redacted, dict):
        raise RedactionError("record must be a JSON object", code="audit.redaction.not_object")
    return redacted
