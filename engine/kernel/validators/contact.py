"""Contact criteria: e-mail syntax (email-validator, no DNS) and telephone numbers (phonenumbers)."""

from __future__ import annotations

import re

import phonenumbers
from email_validator import EmailNotValidError, validate_email

from engine.kernel.validators.result import ValidationResult
from engine.text import fold

VALIDATOR = "contact/1"
CHANNEL_SEPARATOR = ";"  # several channels of one contact value: 'jane@example.com; +447700900123'
_DIGITS = re.compile(r"\D+")


def _digits(text: str) -> str:
    return _DIGITS.sub("", text)


_ASCENDING = "01234567890123456789"
_DESCENDING = "98765432109876543210"


def _placeholder(national: str) -> bool:
    """Digit runs nobody has as a number ('123456789', '000000000', '999999999'): never merely 'possible'."""
    return len(set(national)) <= 2 or national in _ASCENDING or national in _DESCENDING


_PERSONAL_TYPES = (phonenumbers.PhoneNumberType.FIXED_LINE, phonenumbers.PhoneNumberType.MOBILE)


def _full_length(number: phonenumbers.PhoneNumber) -> bool:
    """A number of a length a person's line can have in its region: a fixed line or a mobile, dialled in full.
    The library's plain 'possible' also takes local-only and short lengths, so a number given in part ('0791 123')
    passed as possible."""
    return any(
        phonenumbers.is_possible_number_for_type_with_reason(number, kind) == phonenumbers.ValidationResult.IS_POSSIBLE
        for kind in _PERSONAL_TYPES
    )


def contact_channels(value: str) -> list[str]:
    """The channels of one contact value: 'jane@example.com; +447700900123' holds two (spec/adr/0006)."""
    return [part.strip() for part in value.split(CHANNEL_SEPARATOR) if part.strip()]


def validate_contact(
    value: str, span_text: str, channels: list[str], region: str, phone_check: str = "valid"
) -> ValidationResult:
    """Every channel of the value must pass on its own; the normalised value lists each channel normalised."""
    parts = contact_channels(value)
    if len(parts) <= 1:
        return _validate_channel(value, span_text, channels, region, phone_check)
    results = [_validate_channel(part, span_text, channels, region, phone_check) for part in parts]
    failed = next((r for r in results if not r.ok), None)
    if failed is not None:
        return failed
    normalized = CHANNEL_SEPARATOR.join(f" {r.normalized}" for r in results).strip()
    return ValidationResult(ok=True, code="contact.channels_ok", validator=VALIDATOR, normalized=normalized)


def _validate_channel(
    value: str, span_text: str, channels: list[str], region: str, phone_check: str
) -> ValidationResult:
    value = value.strip()
    if "@" in value:
        if "email" not in channels:
            return ValidationResult.reject("contact.channel_not_allowed", VALIDATOR)
        if fold(value) not in fold(span_text):
            return ValidationResult.reject("contact.value_not_in_span", VALIDATOR)
        try:
            normalized = validate_email(value, check_deliverability=False).normalized
        except EmailNotValidError:
            return ValidationResult.reject("contact.email_invalid", VALIDATOR)
        return ValidationResult(ok=True, code="contact.email_ok", validator=VALIDATOR, normalized=normalized)
    if "phone" not in channels:
        return ValidationResult.reject("contact.channel_not_allowed", VALIDATOR)
    digits = _digits(value)
    if not digits or digits not in _digits(span_text):
        return ValidationResult.reject("contact.value_not_in_span", VALIDATOR)
    try:
        number = phonenumbers.parse(value, region)
    except phonenumbers.NumberParseException:
        return ValidationResult.reject("contact.phone_invalid", VALIDATOR)
    international = value.lstrip().startswith(("+", "00"))
    possible = _full_length(number) and not _placeholder(str(number.national_number))
    possible_ok = possible and (
        phone_check == "valid_or_possible"
        or (phone_check == "valid_or_possible_international" and international)
    )
    if not (phonenumbers.is_valid_number(number) or possible_ok):
        return ValidationResult.reject("contact.phone_invalid", VALIDATOR)
    normalized = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)
    return ValidationResult(ok=True, code="contact.phone_ok", validator=VALIDATOR, normalized=normalized)
