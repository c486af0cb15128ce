"""Dispatch a proposed value to the validator of its objective's criterion kind."""

from __future__ import annotations

from decimal import Decimal
from functools import lru_cache

from engine.kernel.company_data import criterion_vocabulary, locale_value
from engine.kernel.goal_models import Criterion, CriterionKind, GoalSpec
from engine.kernel.validators.availability import validate_availability
from engine.kernel.validators.contact import validate_contact
from engine.kernel.validators.money import validate_money
from engine.kernel.validators.result import ValidationResult
from engine.kernel.validators.scalar import validate_free_text, validate_quantity
from engine.kernel.validators.temporal import validate_datetime
from engine.kernel.validators.vocabulary import validate_enumeration, validate_features, validate_place
from engine.rules.loader import RuleBundle
from engine.text import fold


@lru_cache(maxsize=8)
def _folded_words(words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(fold(w) for w in words)


def _decline_words(by_language: object) -> frozenset[str]:
    """Every language's decline words (code-switching: all apply), folded."""
    if not isinstance(by_language, dict):
        return frozenset()
    return _folded_words(tuple(sorted(str(w) for words in by_language.values() for w in words)))


def validate_value(
    criterion: Criterion, value: str, span_text: str, bundle: RuleBundle, spec: GoalSpec | None = None,
) -> ValidationResult:
    """Pure and deterministic: same inputs, same result. Unknown kinds are rejected (fail closed).

    ``spec`` supplies the company data (its vocabularies and locale, spec/adr/0003)."""
    defaults = bundle.file("criteria")
    params = criterion.params
    vocabulary = criterion_vocabulary(criterion, spec, bundle)
    kind = criterion.kind
    if kind is CriterionKind.CONTACT:
        contact = defaults["contact"]
        return validate_contact(
            value,
            span_text,
            list(params.get("channels", contact["default_channels"])),
            str(locale_value(spec, criterion, "phone_region", "default_region") or contact["default_region"]),
            str(contact.get("phone_check", "valid")),
        )
    if kind is CriterionKind.MONEY:
        money = defaults["money"]
        return validate_money(
            value,
            span_text,
            locale_value(spec, criterion, "currency", "currency"),
            Decimal(str(params.get("min_amount", money["default_min_amount"]))),
            [str(w) for w in money["number_words"]],
        )
    if kind is CriterionKind.PLACE:
        return validate_place(value, span_text, vocabulary, int(defaults["place"]["min_length"]))
    if kind is CriterionKind.ENUMERATION:
        grounding = defaults.get("enumeration", {}).get("grounding_stemmers", [])  # absent before rules 1.9.0
        return validate_enumeration(value, span_text, vocabulary, tuple(str(s) for s in grounding))
    if kind is CriterionKind.FEATURES:
        declines = defaults.get("features", {}).get("decline_words", {})  # absent before rules 1.9.0: none
        return validate_features(value, span_text, vocabulary, _decline_words(declines))
    if kind is CriterionKind.QUANTITY:
        quantity = defaults["quantity"]
        return validate_quantity(
            value,
            span_text,
            Decimal(str(params.get("min", quantity["min"]))),
            Decimal(str(params.get("max", quantity["max"]))),
            bool(params.get("integer", True)),
        )
    if kind is CriterionKind.DATETIME:
        granularity = str(params.get("granularity", "date"))
        if granularity == "availability":  # spec/adr/0008: the spec says which parts suffice
            default = defaults.get("availability", {}).get("default_suffices")  # absent before rules 1.9.0
            return validate_availability(value, span_text, params.get("suffices", default))
        return validate_datetime(value, span_text, granularity)
    if kind is CriterionKind.FREE_TEXT:
        free = defaults["free_text"]
        max_length = min(int(params.get("max_length", free["max_length"])), int(free["max_length"]))
        return validate_free_text(value, span_text, int(free["min_length"]), max_length)
    return ValidationResult.reject("validator.unknown_kind", "none/0")  # pragma: no cover - enum is closed
