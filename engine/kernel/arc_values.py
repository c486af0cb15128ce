"""Recorded values as a visitor reads them in the closing summary: amounts in the conversation's locale, options
by their name in the visitor's language, and the visitor's own words where a normalised value is not readable."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal, InvalidOperation

from babel import Locale
from babel.dates import format_date
from babel.numbers import format_currency

from engine.kernel.company_data import criterion_vocabulary
from engine.kernel.goal_models import GoalSpec, Objective
from engine.kernel.values import DECLINED_PREFIX
from engine.rules.loader import RuleBundle, Vocabulary

# The money validator's normalised grammar (engine/kernel/validators/money.py): [rel]A[-B] CUR
_MONEY = re.compile(r"^(?P<rel><=|>=|<|>|~)?(?P<a>\d+(?:\.\d+)?)(?:-(?P<b>\d+(?:\.\d+)?))?\s*(?P<cur>[A-Z]{3})?$")
_REL = {"<=": "≤ ", ">=": "≥ ", "<": "< ", ">": "> ", "~": "~"}
_MAX_WORDS = 80  # a longer span is a whole message, not a readable value


def display_value(objective: Objective, value: str, words: str, language: str, spec: GoalSpec,
                  bundle: RuleBundle) -> str:
    kind = objective.criterion.kind.value
    if kind == "money":
        return _money(value, language) or value
    if kind in ("enumeration", "features"):
        vocabulary = criterion_vocabulary(objective.criterion, spec, bundle)
        return _options(value, vocabulary, language, spec.default_language, _declined_wording(bundle, language,
                                                                                              spec.default_language))
    if kind == "quantity":
        unit = _unit(objective, language, spec.default_language)
        return f"{value} {unit}".strip()
    if kind == "datetime":
        day = _day(value, language)
        if day is not None:
            return day  # a calendar date reads best in the visitor's language, never as their whole sentence
        if words and len(words) <= _MAX_WORDS:
            return words  # the visitor's own phrasing reads better than the value grammar
    return value


_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2}))?$")


def _day(value: str, language: str) -> str | None:
    """'2027-05-16' -> 'Sunday, 16 May 2027' in the visitor's language; a time of day is kept beside it."""
    match = _DATE.match(value.strip())
    if match is None:
        return None
    try:
        shown = str(format_date(date.fromisoformat(match[1]), format="full", locale=language))
    except (ValueError, LookupError):
        return None
    return f"{shown} {match[2]}" if match[2] else shown


def _money(value: str, language: str) -> str | None:
    match = _MONEY.match(value.strip())
    if match is None or match["cur"] is None:
        return None
    try:
        amounts = [Decimal(x) for x in (match["a"], match["b"]) if x is not None]
        shown = [_amount(a, match["cur"], language) for a in amounts]
    except (InvalidOperation, ValueError, LookupError):
        return None
    return _REL.get(match["rel"] or "", "") + " – ".join(shown)


def _amount(amount: Decimal, currency: str, language: str) -> str:
    """The locale's own currency pattern ('€280,000' in English, '280.000 €' in Spanish, '280 000 €' in French),
    whole amounts without cents and others with the currency's usual two."""
    pattern = Locale.parse(language).currency_formats["standard"].pattern.split(";")[0]
    if amount == amount.to_integral_value():
        pattern = pattern.replace(".00", "")
    return str(format_currency(amount, currency, format=pattern, locale=language, currency_digits=False))


def option_label(vocabulary: Vocabulary | None, option: str, language: str, fallback: str) -> str:
    """How the visitor's language names a vocabulary option: its first term, else the option id."""
    terms = vocabulary.options.get(option, {}) if vocabulary is not None else {}
    names = terms.get(language) or terms.get(fallback) or []
    return str(names[0]) if names else option


_DECLINED_DEFAULT = "{option}: no"


def _declined_wording(bundle: RuleBundle, language: str, fallback: str) -> str:
    """How the summary shows a declined yes/no feature (rules/arc/<lang>.json closing.declined, spec/adr/0009)."""
    for lang in (language, fallback, "en"):
        if bundle.has(f"arc/{lang}"):
            wording = bundle.file(f"arc/{lang}").get("closing", {}).get("declined")
            if wording:
                return str(wording)
    return _DECLINED_DEFAULT


def _options(value: str, vocabulary: Vocabulary | None, language: str, fallback: str,
             declined: str = _DECLINED_DEFAULT) -> str:
    shown = []
    for item in (part.strip() for part in value.split(";")):
        if not item:
            continue
        if item.startswith(DECLINED_PREFIX):  # never shown as the feature claimed (SPEC D-13)
            option = item.removeprefix(DECLINED_PREFIX).strip()
            shown.append(declined.replace("{option}", option_label(vocabulary, option, language, fallback)))
            continue
        option, _, detail = item.partition("=")
        label = option_label(vocabulary, option, language, fallback)
        shown.append(f"{label}: {detail}" if detail else label)
    return ", ".join(shown) if shown else value


def _unit(objective: Objective, language: str, fallback: str) -> str:
    terms = objective.criterion.params.get("unit_terms")
    if isinstance(terms, dict):
        names = terms.get(language) or terms.get(fallback)
        if isinstance(names, list) and names:
            return str(names[0])
    return str(objective.criterion.params.get("unit", ""))
