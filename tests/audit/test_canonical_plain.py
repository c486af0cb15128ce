"""``canonical_bytes`` encodes plain JSON data as it is (``is_plain``) instead of through ``_prepare``'s copy: the
same bytes, or the same error, as the preparing walk for any value (plain or not, near the depth limit, with
non-finite floats, subclasses, non-string keys, lone surrogates)."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import IntEnum
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit import canonical
from audit.canonical import MAX_DEPTH, canonical_bytes
from audit.errors import CanonicalError


class Level(IntEnum):
    HIGH = 600000005


def _reference(value: Any) -> tuple[str, Any]:
    """canonical_bytes as it was: every value through _prepare."""
    try:
        return "ok", canonical.canonical_bytes_of_plain(canonical._prepare(value, 0))
    except UnicodeEncodeError:
        return "error", "audit.canonical.bad_string"
    except CanonicalError as exc:
        return "error", exc.code


def _outcome(value: Any) -> tuple[str, Any]:
    try:
        return "ok", canonical_bytes(value)
    except CanonicalError as exc:
        return "error", exc.code


_leaf = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(), st.text(max_size=6),
                  st.sampled_from([Level.HIGH, datetime(2026, 1, 1, tzinfo=UTC), (1, 2), "x\ud800"]))
_values = st.recursive(
    _leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3) | st.integers(0, 3), inner,
                                                                  max_size=3),
    max_leaves=15,
)


@settings(max_examples=400, deadline=None)
@given(_values)
def test_canonical_bytes_equal_the_preparing_walk(value: Any) -> None:
    assert _outcome(value) == _reference(value)


@pytest.mark.parametrize("depth", range(MAX_DEPTH - 4, MAX_DEPTH + 3))
@pytest.mark.parametrize("leaf", ["x", 1.5, float("nan"), [], {}])
def test_depth_limit_is_where_it_was(depth: int, leaf: Any) -> None:
    value: Any = leaf
    for level in range(depth):
        value = {"k": value} if level % 2 else [value]
    assert _outcome(value) == _reference(value)
