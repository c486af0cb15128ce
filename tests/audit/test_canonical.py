"""Canonical JSON: exact bytes, stability under key order and round trips, and refusal of non-JSON values."""

from __future__ import annotations

import json
import random
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal
from enum import Enum, IntEnum, StrEnum
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from audit.canonical import canonical_bytes, canonical_text, sha256_hex, sha256_of, to_json_value
from audit.errors import CanonicalError

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


class Colour(StrEnum):
    RED = "red"


class Level(IntEnum):
    HIGH = 3


class Plain(Enum):
    X = ("a", 1)


class _Tagged(str):
    """A str subclass that is a distinct dict key from the equal plain string."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(("tagged", str(self)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Tagged) and str.__eq__(self, other)


class Model(BaseModel):
    name: str
    when: datetime
    amount: Decimal


def test_golden_bytes() -> None:
    """The encoding is frozen: these bytes must never change (every stored hash depends on them)."""
    value = {
        "z": [1, 1.0, -0.0, 1e-07, 12345678901234567890, True, None],
        "a": {"é": 'ñ\u2028"\\\n', "b": Decimal("350000.00")},
        "m": datetime(2026, 3, 1, 12, 30, 0, 5, tzinfo=timezone(timedelta(hours=2))),
        "d": date(2026, 3, 1),
    }
    expected = (
        '{"a":{"b":"350000.00","é":"ñ\u2028\\"\\\\\\n"},"d":"2026-03-01",'
        '"m":"2026-03-01T10:30:00.000005Z","z":[1,1.0,-0.0,1e-07,12345678901234567890,true,null]}'
    )
    assert canonical_text(value) == expected
    assert canonical_bytes(value) == expected.encode("utf-8")


def test_sha256_helpers() -> None:
    assert sha256_hex(b"abc") == "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert sha256_of({"b": 1, "a": 2}) == sha256_hex(b'{"a":2,"b":1}')


def test_utf8_not_escaped_and_no_whitespace() -> None:
    out = canonical_bytes({"k": "Almería €", "l": [1, 2]})
    assert out == '{"k":"Almería €","l":[1,2]}'.encode()
    assert b" " not in canonical_bytes({"a": [1, {"b": 2}]})


def test_enums_models_and_tuples() -> None:
    model = Model(name="x", when=datetime(2026, 1, 1, tzinfo=UTC), amount=Decimal("1.50"))
    value = {"c": Colour.RED, "l": Level.HIGH, "p": Plain.X, "m": model, "t": (1, 2)}
    assert to_json_value(value) == {
        "c": "red",
        "l": 3,
        "p": ["a", 1],
        "m": {"name": "x", "when": "2026-01-01T00:00:00Z", "amount": "1.50"},
        "t": [1, 2],
    }
    assert type(to_json_value(Colour.RED)) is str


@pytest.mark.parametrize(
    ("value", "code"),
    [
        (float("nan"), "audit.canonical.non_finite"),
        (float("inf"), "audit.canonical.non_finite"),
        ({"x": [float("-inf")]}, "audit.canonical.non_finite"),
        (Decimal("NaN"), "audit.canonical.non_finite"),
        (Decimal("Infinity"), "audit.canonical.non_finite"),
        (datetime(2026, 1, 1), "audit.canonical.naive_datetime"),
        ({1: "a"}, "audit.canonical.bad_key"),
        ({_Tagged("red"): 1, "red": 2}, "audit.canonical.duplicate_key"),
        ({"a", "b"}, "audit.canonical.unsupported_type"),
        (b"bytes", "audit.canonical.unsupported_type"),
        (object(), "audit.canonical.unsupported_type"),
        ("\ud800", "audit.canonical.bad_string"),
    ],
)
def test_rejects_non_json(value: Any, code: str) -> None:
    with pytest.raises(CanonicalError) as info:
        canonical_bytes(value)
    assert info.value.code == code


def test_rejects_cycles_and_deep_nesting() -> None:
    cyclic: list[Any] = []
    cyclic.append(cyclic)
    with pytest.raises(CanonicalError) as info:
        canonical_bytes(cyclic)
    assert info.value.code == "audit.canonical.too_deep"


def test_datetime_normalised_to_utc() -> None:
    madrid = timezone(timedelta(hours=1))
    a = datetime(2026, 3, 1, 11, 0, tzinfo=madrid)
    b = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
    assert canonical_bytes(a) == canonical_bytes(b) == b'"2026-03-01T10:00:00Z"'


@settings(max_examples=150, deadline=None)
@given(json_values)
def test_round_trip_is_stable(value: Any) -> None:
    once = canonical_bytes(value)
    again = canonical_bytes(json.loads(once))
    assert once == again
    assert json.loads(once) == json.loads(again)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text(max_size=6), json_scalars, min_size=1, max_size=8), st.randoms(use_true_random=False))
def test_key_order_does_not_matter(mapping: dict[str, Any], rnd: random.Random) -> None:
    items = list(mapping.items())
    rnd.shuffle(items)
    assert canonical_bytes(dict(items)) == canonical_bytes(mapping)
    assert sha256_of(dict(items)) == sha256_of(mapping)


@settings(max_examples=100, deadline=None)
@given(json_values, json_values)
def test_distinct_values_have_distinct_bytes(a: Any, b: Any) -> None:
    """Canonical bytes are injective on JSON data (compared through a type-preserving view)."""
    if canonical_bytes(a) == canonical_bytes(b):
        assert _typed(a) == _typed(b)


def _typed(value: Any) -> Any:
    # 1 == 1.0 == True in Python; canonical JSON keeps them apart, so compare with types attached.
    if isinstance(value, dict):
        return ("dict", {k: _typed(v) for k, v in value.items()})
    if isinstance(value, list):
        return ("list", [_typed(v) for v in value])
    if isinstance(value, float):
        return ("float", repr(value))
    return (type(value).__name__, value)
