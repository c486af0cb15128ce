"""The redactor's fast paths (inline leaves, key cache, early returns, the finder's short cuts) give exactly what
the plain definition gives: every key and string through ``redact_text``, every int through the phone test,
containers copied, unsupported types and too-deep values refused. Sealed audit bytes depend on this."""

from __future__ import annotations

import hashlib
import hmac
import unicodedata
from collections.abc import Mapping
from enum import Enum, IntEnum
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.errors import RedactionError
from audit.redaction import Redactor
from audit.redaction.tokens import _TOKEN_TAG, canonical_contact
from engine.text import normalize
from tests.audit.factory import KEY

R = Redactor(KEY)
EXEMPT = sorted(R.policy.phone_exempt_keys)


def reference(value: Any, phones: bool = True, depth: int = 0) -> Any:
    """The walk as first written: no fast paths, no caches."""
    if depth > 64:
        raise RedactionError("too deep", code="audit.redaction.too_deep")
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return R.redact_text(str(value), phones=phones)
    if isinstance(value, Enum):
        return reference(value.value, phones, depth + 1)
    if isinstance(value, int):
        digits = len(str(abs(value)))
        low, high = R.policy.phone.min_digits, R.policy.phone.max_digits
        return R.token("phone", str(value)) if phones and low <= digits <= high else value
    if isinstance(value, float):
        return value
    if isinstance(value, Mapping):
        out: dict[Any, Any] = {}
        for key, item in value.items():
            new_key = R.redact_text(key) if isinstance(key, str) else key
            if new_key in out:
                raise RedactionError("collision", code="audit.redaction.key_collision")
            out[new_key] = reference(item, key not in R.policy.phone_exempt_keys, depth + 1)
        return out
    if isinstance(value, list | tuple):
        return [reference(item, phones, depth + 1) for item in value]
    raise RedactionError("unsupported", code="audit.redaction.unsupported_type")


def outcome(fn: Any, value: Any) -> tuple[str, Any]:
    try:
        return "ok", fn(value)
    except RedactionError as exc:
        return "error", exc.code


_digits = st.text(alphabet="0123456789", min_size=1, max_size=16)
_texty = st.one_of(
    st.text(max_size=30),
    st.builds(lambda a, d, b: a + d + b, st.text(alphabet="ab -.+()/:T@", max_size=6), _digits,
              st.text(alphabet="ab -.:Z€EUR", max_size=6)),
    st.sampled_from(["alex@example.com", "+49 30 1234567", "2026-12-02T04:26:58.123456Z",
                     "sha256:" + "0123456789" * 6 + "abcd", "asked 1 time(s) before", "ＡＬＥＸ＠ＥＸＡＭＰＬＥ.COM",
                     "600 000 005 EUR", "ab\u200b12345678"]),
)
_ints = st.one_of(st.integers(-10, 10), st.integers(-(10**17), 10**17),
                  st.sampled_from([10**6 - 1, 10**6, 10**15 - 1, 10**15, -(10**6), -(10**15)]))
_keys = st.one_of(_texty, st.sampled_from(EXEMPT), st.integers(0, 10**8))
_leaves = st.one_of(st.none(), st.booleans(), st.floats(allow_nan=False), _ints, _texty)
_values = st.recursive(
    _leaves,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_keys, inner, max_size=4),
                            st.tuples(inner, inner)),
    max_leaves=30,
)


@settings(max_examples=400, deadline=None)
@given(_values)
def test_walk_equals_the_plain_definition(value: Any) -> None:
    assert outcome(lambda v: R.redact(v, strict=True), value) == outcome(reference, value)


class Colour(Enum):
    RED = "call 600 000 005"


class Size(IntEnum):
    BIG = 600000005


@pytest.mark.parametrize("value", [
    {"a": Colour.RED, "b": [Size.BIG, 600000005, -600000005, 999999, 1000000]},
    {"conversation_id": 600000005, "hash": "call 600000005", "x": {"hash": ["600000005"]}},
    {"k@example.com": 1, "phone 600 000 005": 2},
])
def test_enums_exempt_keys_and_key_redaction(value: Any) -> None:
    assert outcome(lambda v: R.redact(v, strict=True), value) == outcome(reference, value)


@pytest.mark.parametrize("depth", [62, 63, 64, 65, 66])
def test_depth_limit_is_where_it_was(depth: int) -> None:
    leaves: list[Any] = ["x", 1, None, 1.5, [], {}]
    for leaf in leaves:
        value: Any = leaf
        for level in range(depth):
            value = {"k": value} if level % 2 else [value]
        assert outcome(lambda v: R.redact(v, strict=True), value) == outcome(reference, value)


def test_unsupported_types_are_still_refused() -> None:
    for bad in ({"a": {1, 2}}, {"a": [b"x"]}, {"a": object()}, {(1, 2): "x"}):
        assert outcome(lambda v: R.redact(v, strict=True), bad)[0] == "error"


def test_phone_like_int_bounds() -> None:
    low, high = R.policy.phone.min_digits, R.policy.phone.max_digits
    detector = R._detector
    for n in [0, 1, 9, 10, 10 ** (low - 1) - 1, 10 ** (low - 1), 10**high - 1, 10**high, 10 ** (high + 3)]:
        for value in (n, -n):
            assert detector.phone_like_int(value) == (low <= len(str(abs(value))) <= high)


@given(st.text(max_size=40), st.sampled_from(["phone", "email"]))
def test_tokens_equal_their_definition(value: str, kind: Any) -> None:
    text = normalize(value)
    digits = "".join(str(unicodedata.decimal(ch)) for ch in text if unicodedata.decimal(ch, None) is not None)
    plain = text.casefold() if kind == "email" else ("+" if text.lstrip().startswith("+") else "") + digits
    assert canonical_contact(kind, value) == plain
    payload = _TOKEN_TAG + kind.encode() + b"\x00" + plain.encode("utf-8", "surrogatepass")
    digest = hmac.new(KEY, payload, hashlib.sha256).hexdigest()[:8]
    if plain.encode("utf-8", "surrogatepass") == plain.encode("utf-8", "replace"):  # no lone surrogate
        expected = f"{kind}:hmac8:{digest.translate(str.maketrans('0123456789abcdef', 'abcdefghijklmnop'))}"
        assert R.token(kind, value) == expected


def test_strings_remembered_across_records_redact_as_fresh_and_stay_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from audit.redaction import walker

    monkeypatch.setattr(walker, "_SEEN_MAX_CHARS", 200)
    redactor = Redactor(KEY)
    records = [{"messages": [f"call me on 600 000 {n:03d}", "mail alex@example.com"], "hash": "600000005",
                "conversation_id": f"c {n} 600000005"} for n in range(40)]
    for record in records + records:  # the second pass is answered from what the first remembered
        assert redactor.redact(record) == reference(record)
        # past the bound the memory starts afresh: never more than the bound plus one record's strings
        assert redactor._seen_chars <= 200 + _remembered_chars(redactor, record)
    # the phone flag is part of what is remembered: the same text under an exempt key keeps its digits
    exempt = EXEMPT[0]
    assert redactor.redact({"x": "600000005"})["x"] != "600000005"
    assert redactor.redact({exempt: "600000005"})[exempt] == "600000005"
    long_text = "call 600 000 005 " * 300  # longer than what is remembered: redacted every time, not kept
    assert redactor.redact([long_text]) == reference([long_text])
    assert all(len(text) <= walker._SEEN_MAX_TEXT for text, _ in redactor._seen)


def _remembered_chars(redactor: Redactor, record: dict[str, Any]) -> int:
    texts = [text for value in record.values() for text in (value if isinstance(value, list) else [value])]
    return sum(len(text) + len(redactor.redact_text(text)) for text in texts)
