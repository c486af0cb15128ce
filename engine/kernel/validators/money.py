"""Money criteria: the proposer's value is a normalised amount expression; magnitudes below the criterion's
plausible minimum ("around three hundred" for a house budget) are ambiguous and rejected.

Value grammar: ``[<=|>=|<|>|~] AMOUNT [- AMOUNT] [CUR]``, e.g. ``<=350000 EUR``, ``200000-300000 EUR``.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from engine.kernel.validators.result import ValidationResult

VALIDATOR = "money/1"
_VALUE = re.compile(
    r"^\s*(?P<rel><=|>=|<|>|~)?\s*(?P<a>\d+(?:\.\d+)?)\s*(?:-\s*(?P<b>\d+(?:\.\d+)?))?\s*(?P<cur>[A-Z]{3})?\s*$"
)
_HAS_NUMBER = re.compile(r"\d")


def validate_money(
    value: str, span_text: str, currency: str | None, min_amount: Decimal, number_words: list[str]
) -> ValidationResult:
    match = _VALUE.match(value)
    if match is None:
        return ValidationResult.reject("money.unparseable", VALIDATOR)
    try:
        amounts = [Decimal(match["a"])] + ([Decimal(match["b"])] if match["b"] else [])
    except InvalidOperation:
        return ValidationResult.reject("money.unparseable", VALIDATOR)
    cur = match["cur"]
    if cur and currency and cur != currency:
        return ValidationResult.reject("money.currency_mismatch", VALIDATOR)
    folded_span = span_text.casefold()
    if not _HAS_NUMBER.search(span_text) and not any(w in folded_span for w in number_words):
        return ValidationResult.reject("money.no_amount_in_span", VALIDATOR)
    if any(a < min_amount for a in amounts):
        return ValidationResult.reject("money.magnitude_ambiguous", VALIDATOR)
    if len(amounts) == 2 and amounts[0] > amounts[1]:
        return ValidationResult.reject("money.range_inverted", VALIDATOR)
    rel = match["rel"] or ""
    body = "-".join(format(a.normalize(), "f") for a in amounts)
    normalized = f"{rel}{body} {cur or currency or ''}".strip()
    return ValidationResult(ok=True, code="money.ok", validator=VALIDATOR, normalized=normalized)
