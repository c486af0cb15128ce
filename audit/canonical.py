"""Canonical JSON: one byte sequence per value, so hashes and MACs over records are reproducible.

Rules (stable; changing any of them changes every hash):

* objects: keys must be ``str``; sorted by Unicode code point; no duplicate keys are possible;
* separators ``,`` and ``:`` with no whitespace; UTF-8 output, non-ASCII characters not escaped;
* ``NaN`` / ``Infinity`` are rejected (they are not JSON);
* ``float`` uses Python's shortest round-trip repr (``1.0``, ``1e-07``); ``int`` and ``float`` stay distinct;
* ``Decimal`` becomes its string form (``str(d)``, precision kept); non-finite decimals are rejected;
* aware ``datetime`` becomes ISO-8601 in UTC with a ``Z`` suffix; naive datetimes are rejected
  (a time without a zone cannot be ordered against others); ``date`` becomes ``YYYY-MM-DD``;
* ``Enum`` members become their value; pydantic models their ``model_dump()``; tuples become lists;
* anything else (sets, bytes, arbitrary objects, lone surrogates) is rejected with ``CanonicalError``.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from datetime import UTC, date, datetime
from decimal import Decimal
from enum import Enum
from typing import Any

from pydantic import BaseModel

from audit.errors import CanonicalError

# Records are shallow; anything deeper is almost certainly a cycle or hostile input.
MAX_DEPTH = 64

JsonValue = None | bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"]


def to_json_value(value: Any) -> JsonValue:
    """Convert ``value`` to plain JSON data following the canonical rules (no serialisation yet)."""
    return _prepare(value, 0)


def canonical_bytes(value: Any) -> bytes:
    """The canonical JSON encoding of ``value`` as UTF-8 bytes."""
    try:
        # Plain JSON data (stored states, records read back) is what _prepare would copy unchanged: encode it as is.
        return canonical_bytes_of_plain(value if is_plain(value, 0) else _prepare(value, 0))
    except UnicodeEncodeError as exc:  # lone surrogates survive json.dumps but are not UTF-8
        raise CanonicalError("string is not valid Unicode (lone surrogate)", code="audit.canonical.bad_string") from exc


def canonical_bytes_of_plain(value: JsonValue) -> bytes:
    """``canonical_bytes`` for data that is already plain JSON as ``json.loads`` returns it (str keys, finite
    numbers, no other types): the same bytes without the preparing walk. Anything else must go through
    ``canonical_bytes``."""
    return _ENCODE(value).encode("utf-8")


# json.dumps's encoder with the canonical settings, made once. check_circular=False: plain JSON data as json.loads
# returns it (or as _prepare builds it, a fresh bounded tree) has no cycles, and the flag does not change the bytes.
_ENCODE = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False,
                           check_circular=False).encode


def canonical_text(value: Any) -> str:
    return canonical_bytes(value).decode("utf-8")


def sha256_hex(data: bytes) -> str:
    """``"sha256:<64 hex>"`` of raw bytes."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def sha256_of(value: Any) -> str:
    """``"sha256:<64 hex>"`` of the canonical JSON of ``value``."""
    return sha256_hex(canonical_bytes(value))


_PLAIN = frozenset({str, int, bool, type(None)})


def is_plain(value: Any, depth: int) -> bool:
    """``value``, standing ``depth`` levels inside the value being encoded, is JSON data as ``json.loads`` returns
    it (exact types, str keys, finite floats) and its containers stay below the depth limit: ``_prepare`` would
    return an equal copy of it. False where ``_prepare`` must decide (it converts, or raises)."""
    kind = type(value)
    if kind in _PLAIN:
        return True
    if kind is float:
        return math.isfinite(value)
    if depth >= MAX_DEPTH - 1:  # near the limit: _prepare decides (and raises where it must)
        return False
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str:
                return False
            kind = type(item)
            if kind not in _PLAIN and not (kind is float and math.isfinite(item)) and not is_plain(item, depth + 1):
                return False
        return True
    if kind is list:
        for item in value:
            kind = type(item)
            if kind not in _PLAIN and not (kind is float and math.isfinite(item)) and not is_plain(item, depth + 1):
                return False
        return True
    return False


def _prepare(value: Any, depth: int) -> JsonValue:
    if depth > MAX_DEPTH:
        raise CanonicalError(f"value nested deeper than {MAX_DEPTH} levels", code="audit.canonical.too_deep")
    # Fast path for data that is already plain JSON (records read back from a store or a file).
    kind = type(value)
    if kind in _PLAIN:
        return value  # type: ignore[no-any-return]
    # Plain leaves are taken inline rather than through a call each (the walk is most of the cost of sealing and
    # of reading an export back); a leaf one level too deep still goes through the call, which rejects it.
    deeper = depth + 1
    inline = deeper <= MAX_DEPTH
    if kind is dict:
        out: dict[str, JsonValue] = {}
        for key, item in value.items():
            if type(key) is not str:
                return _prepare_other(value, depth)  # starts over: the same items, in the same order
            out[key] = item if inline and type(item) in _PLAIN else _prepare(item, deeper)
        return out
    if kind is list:
        return [item if inline and type(item) in _PLAIN else _prepare(item, deeper) for item in value]
    return _prepare_other(value, depth)


def _prepare_other(value: Any, depth: int) -> JsonValue:
    # Order matters: bool is an int, StrEnum is a str, datetime is a date.
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, Enum):
        return _prepare(value.value, depth + 1)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise CanonicalError(f"non-finite number {value!r} is not JSON", code="audit.canonical.non_finite")
        return float(value)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise CanonicalError(f"non-finite decimal {value!r} is not JSON", code="audit.canonical.non_finite")
        return str(value)
    if isinstance(value, datetime):
        if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
            raise CanonicalError("naive datetime: a timezone is required", code="audit.canonical.naive_datetime")
        return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, BaseModel):
        return _prepare(value.model_dump(mode="python"), depth + 1)
    if isinstance(value, Mapping):
        out: dict[str, JsonValue] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise CanonicalError(f"object key {key!r} is not a string", code="audit.canonical.bad_key")
            plain = str(key)
            if plain in out:  # e.g. a StrEnum key and an equal plain string
                raise CanonicalError(f"duplicate object key {plain!r}", code="audit.canonical.duplicate_key")
            out[plain] = _prepare(item, depth + 1)
        return out
    if isinstance(value, list | tuple):
        return [_prepare(item, depth + 1) for item in value]
    raise CanonicalError(
        f"type {type(value).__name__} has no canonical JSON form", code="audit.canonical.unsupported_type"
    )
