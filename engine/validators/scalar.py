"""Quantity and free-text criteria (datetime criteria: engine.validators.temporal)."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from engine.text import fold
from engine.validators.result import ValidationResult

QUANTITY = "quantity/1"
FREE_TEXT = "free_text/1"
_DIGIT = re.compile(r"\d")


def validate_quantity(value: str, span_text: str, minimum: Decimal, maximum: Decimal) -> ValidationResult:
    try:
        number = Decimal(value.strip())
    except InvalidOperation:
        return ValidationResult.reject("quantity.unparseable", QUANTITY)
    if not number.is_finite() or not minimum <= number <= maximum:
        return ValidationResult.reject("quantity.out_of_range", QUANTITY)
    return ValidationResult(ok=True, code="quantity.ok", validator=QUANTITY, normalized=str(number))


def validate_free_text(value: str, span_text: str, min_length: int, max_length: int) -> ValidationResult:
    text = value.strip()
    if not min_length <= len(text) <= max_length:
        return ValidationResult.reject("free_text.length", FREE_TEXT)
    if fold(text) not in fold(span_text):
        return ValidationResult.reject("free_text.value_not_in_span", FREE_TEXT)
    return ValidationResult(ok=True, code="free_text.ok", validator=FREE_TEXT, normalized=text, judgement="proposer")
