from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.kernel.goal_models import Criterion
from engine.kernel.validators import validate_value
from engine.kernel.validators.scalar import validate_quantity
from engine.rules.loader import RuleBundle

CONTACT = Criterion(kind="contact", description="email or phone", params={"default_region": "ES"})
MONEY = Criterion(kind="money", description="budget", params={"currency": "EUR", "min_amount": 10000})


@pytest.mark.parametrize(
    ("value", "span", "ok", "code"),
    [
        ("alex@example.com", "contact me at alex@example.com", True, "contact.email_ok"),
        ("buyer@invalid", "my email is buyer@invalid", False, "contact.email_invalid"),
        ("600000005", "my number is 600000005", True, "contact.phone_ok"),
        ("600 000 005", "call 600 000 005", True, "contact.phone_ok"),
        ("12", "my telephone number is 12", False, "contact.phone_invalid"),
        ("other@example.com", "contact me at alex@example.com", False, "contact.value_not_in_span"),
        ("+44 7700 900123", "ring me on +44 7700 900123", True, "contact.phone_ok"),  # possible, written with +44
        ("123456789", "my number is 123456789", False, "contact.phone_invalid"),  # national, not an ES range
    ],
)
def test_contact(bundle: RuleBundle, value: str, span: str, ok: bool, code: str) -> None:
    result = validate_value(CONTACT, value, span, bundle)
    assert (result.ok, result.code) == (ok, code)


def test_contact_channel_restriction(bundle: RuleBundle) -> None:
    email_only = Criterion(kind="contact", description="email", params={"channels": ["email"]})
    assert validate_value(email_only, "600000005", "600000005", bundle).code == "contact.channel_not_allowed"


@pytest.mark.parametrize(
    ("value", "span", "ok", "code", "normalized"),
    [
        ("<=350000 EUR", "below 350.000 EUR", True, "money.ok", "<=350000 EUR"),
        ("200000-300000 EUR", "between 200k and 300k", True, "money.ok", "200000-300000 EUR"),
        ("~300 EUR", "around three hundred", False, "money.magnitude_ambiguous", None),
        ("~300000 EUR", "around three hundred thousand euros", True, "money.ok", "~300000 EUR"),
        ("300000 USD", "300000 dollars", False, "money.currency_mismatch", None),
        ("lots", "lots of money", False, "money.unparseable", None),
        ("300000-200000 EUR", "300000 to 200000", False, "money.range_inverted", None),
        ("350000 EUR", "my budget is big", False, "money.no_amount_in_span", None),
    ],
)
def test_money(bundle: RuleBundle, value: str, span: str, ok: bool, code: str, normalized: str | None) -> None:
    result = validate_value(MONEY, value, span, bundle)
    assert (result.ok, result.code) == (ok, code)
    if ok:
        assert result.normalized == normalized


def test_place_must_be_in_span(bundle: RuleBundle) -> None:
    place = Criterion(kind="place", description="area")
    assert validate_value(place, "Mojácar", "I want to live in Mojácar", bundle).ok
    assert validate_value(place, "Mojacar", "I want to live in Mojácar", bundle).ok  # accent-insensitive
    assert validate_value(place, "Vera", "I want to live in Mojácar", bundle).code == "place.value_not_in_span"
    assert validate_value(place, "1", "1", bundle).code == "place.too_short"


def test_free_text_records_proposer_judgement(bundle: RuleBundle) -> None:
    free = Criterion(kind="free_text", description="anything")
    result = validate_value(free, "quiet street", "a quiet street please", bundle)
    assert result.ok and result.judgement == "proposer"


def test_quantity_and_datetime(bundle: RuleBundle) -> None:
    qty = Criterion(kind="quantity", description="people", params={"min": 1, "max": 20})
    assert validate_value(qty, "4", "we are 4", bundle).ok
    assert validate_value(qty, "40", "we are 40", bundle).code == "quantity.out_of_range"
    when = Criterion(kind="datetime", description="date", params={"granularity": "datetime"})
    assert validate_value(when, "2026-12-01T10:00", "on 1 December at 10", bundle).ok
    assert validate_value(when, "2026-12-01", "on 1 December", bundle).code == "datetime.granularity_partial"
    assert validate_value(when, "tomorrow", "tomorrow", bundle).code == "datetime.unparseable"


PEOPLE = Criterion(kind="quantity", description="guests", params={"min": 1, "max": 500})


@pytest.mark.parametrize(
    ("criterion", "value", "ok", "code", "normalized"),
    [
        (PEOPLE, "170", True, "quantity.ok", "170"),
        (PEOPLE, "150-200", True, "quantity.ok", "150-200"),
        (PEOPLE, " 150 - 200 ", True, "quantity.ok", "150-200"),
        (PEOPLE, "200-150", False, "quantity.range_inverted", None),
        (PEOPLE, "150-600", False, "quantity.out_of_range", None),
        (PEOPLE, "0", False, "quantity.out_of_range", None),
        (PEOPLE, "2.5", False, "quantity.not_integer", None),
        (PEOPLE, "2.0", True, "quantity.ok", "2"),
        (PEOPLE, "about 20", False, "quantity.unparseable", None),
        (PEOPLE, "1e2", False, "quantity.unparseable", None),
        (PEOPLE, "-5", False, "quantity.unparseable", None),
        (Criterion(kind="quantity", description="hours", params={"integer": False}), "2.5", True, "quantity.ok", "2.5"),
    ],
)
def test_quantity_counts_and_ranges(
    bundle: RuleBundle, criterion: Criterion, value: str, ok: bool, code: str, normalized: str | None
) -> None:
    result = validate_value(criterion, value, f"we are {value}", bundle)
    assert (result.ok, result.code) == (ok, code)
    if ok:
        assert result.normalized == normalized


@given(st.integers(min_value=0, max_value=10_000), st.integers(min_value=0, max_value=10_000))
def test_quantity_range_accepted_exactly_when_ordered_and_in_bounds(low: int, high: int) -> None:
    result = validate_quantity(f"{low}-{high}", "", Decimal(1), Decimal(5000))
    assert result.ok == (1 <= low <= high <= 5000)


def test_free_text_max_length_param(bundle: RuleBundle) -> None:
    short = Criterion(kind="free_text", description="notes", params={"max_length": 10})
    assert validate_value(short, "a quiet room", "a quiet room please", bundle).code == "free_text.length"
    assert validate_value(short, "quiet room", "a quiet room please", bundle).ok
