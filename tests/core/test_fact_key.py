"""The acceptance memo's key (``_fact_key``) tells apart every two facts the rules could tell apart: other fields,
other values, and values equal across types (``1`` and ``True``); facts with a non-scalar value get no key."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from engine.kernel.decision.fast.acceptance_memo import _fact_key

_value = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.text(max_size=2))
_facts = st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), _value, max_size=4)


def _same(x: dict[str, Any], y: dict[str, Any]) -> bool:
    """The plain definition: the same fields, each with an equal value of the same type."""
    return x.keys() == y.keys() and all(type(x[k]) is type(y[k]) and x[k] == y[k] for k in x)


@given(_facts, _facts)
def test_equal_keys_only_for_the_same_fact(x: dict[str, Any], y: dict[str, Any]) -> None:
    if _fact_key(x) == _fact_key(y):
        assert _same(x, y)
    if list(x.items()) == list(y.items()) and _same(x, y):
        assert _fact_key(x) == _fact_key(y)


def test_one_and_true_and_other_fields_differ() -> None:
    assert _fact_key({"a": 1}) != _fact_key({"a": True})
    assert _fact_key({"a": True}) != _fact_key({"b": True})
    assert _fact_key({"a": 0, "b": 1}) != _fact_key({"a": 1, "b": 0})


def test_non_scalar_values_get_no_key() -> None:
    assert _fact_key({"a": 1.0}) is None
    assert _fact_key({"a": [1]}) is None
