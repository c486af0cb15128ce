"""The record's utilities are floats of exact rationals: the fast conversion gives float()'s value exactly."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from engine.kernel.turn_record import _real


@given(st.fractions(), st.integers(-(10**30), 10**30))
def test_real_is_float(value: Fraction, whole: int) -> None:
    for x in (value, Fraction(whole), Fraction(whole, 3**40 + 1)):
        assert _real(x) == float(x) and type(_real(x)) is float
    assert _real(whole) == float(whole)  # type: ignore[arg-type]
