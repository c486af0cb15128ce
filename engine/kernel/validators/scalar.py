"""Quantity and free-text criteria (datetime criteria: engine.kernel.validators.temporal)."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from engine.kernel.validators.result import ValidationResult
from engine.text import fold

QUANTITY = "quantity/1"
FREE_TEXT = "free_text/1"
_DIGIT = re.compile(r"\d")
# "170", "1.5", "150-200" (spaces allowed around the dash); signs, exponents and words are not counts
_QUANTITY = re.compile(r"^\s*(?P<a>\d+(?:\.\d+)?)\s*(?:[-–]\s*(?P<b>\d+(?:\.\d+)?))?\s*$")


def validate_quantity(
    value: str, span_text: str, minimum: Decimal, maximum: Decimal, integer: bool = True,
) -> ValidationResult:
    """A count ``N`` or a range ``A-B`` (spec/adr/0003 §3): every end within ``minimum``..``maximum``, A <= B,
    whole numbers unless the criterion says ``integer: false`` (no fractions of people)."""
    match = _QUANTITY.match(value)
    if match is None:
        return ValidationResult.reject("quantity.unparseable", QUANTITY)
    try:
        ends = [Decimal(match["a"])] + ([Decimal(match["b"])] if match["b"] else [])
    except InvalidOperation:  # pragma: no cover - the pattern admits only decimal numerals
        return ValidationResult.reject("quantity.unparseable", QUANTITY)
    if not all(minimum <= n <= maximum for n in ends):
        return ValidationResult.reject("quantity.out_of_range", QUANTITY)
    if integer and any(n != n.to_integral_value() for n in ends):
        return ValidationResult.reject("quantity.not_integer", QUANTITY)
    if len(ends) == 2 and ends[0] > ends[1]:
        return ValidationResult.reject("quantity.range_inverted", QUANTITY)
    normalized = "-".join(_number(n) for n in ends)
    return ValidationResult(ok=True, code="quantity.ok", validator=QUANTITY, normalized=normalized)


def _number(value: Decimal) -> str:
    return f"{value.normalize():f}"


def validate_free_text(value: str, span_text: str, min_length: int, max_length: int) -> ValidationResult:
    text = value.strip()
    if not min_length <= len(text) <= max_length:
        return ValidationResult.reject("free_text.length", FREE_TEXT)
    if fold(text) not in fold(span_text):
        return ValidationResult.reject("free_text.value_not_in_span", FREE_TEXT)
    return ValidationResult(ok=True, code="free_text.ok", validator=FREE_TEXT, normalized=text, judgement="proposer")
