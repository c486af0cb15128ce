"""Money evidence: amounts with currency or budget context, qualifiers (up to, around, at least) and ranges.

Values: '350000 EUR', '<=350000 EUR', '>=200000 EUR', '~300000 EUR', '200000-300000 EUR'. Magnitude is not
judged here: 'around three hundred' becomes '~300 EUR' and the money validator rejects it as ambiguous.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from llm_adapters.offline.analysis import Analysis, Sentence
from llm_adapters.offline.evidence import Evidence, ExtractionContext
from llm_adapters.offline.numbers import NumberMention, find_numbers
from llm_adapters.offline.terms import replaced, term_pattern

_QUALIFIERS = (("money_upper", "<="), ("money_lower", ">="), ("money_approx", "~"))
_DASH = re.compile(r"^\s*[-–]\s*$")


def _format(amount: Decimal) -> str:
    normalized = amount.normalize()
    return f"{normalized:f}"


def _currency_pattern(terms: tuple[str, ...]) -> str:
    parts = []
    for term in sorted(terms, key=len, reverse=True):
        escaped = re.escape(term)
        parts.append(escaped if not term[-1].isalnum() else rf"{escaped}(?![\w])")
    return "|".join(parts)


def _currency(analysis: Analysis, mention: NumberMention) -> tuple[str | None, int]:
    """ISO code written right after (or right before) the amount, and the end of the amount expression."""
    text = analysis.masked
    for iso, terms in analysis.rules.currencies.items():
        pattern = _currency_pattern(terms)
        after = re.match(rf"\s*(?:{pattern})", text[mention.end:])
        if after is not None:
            return iso, mention.end + after.end()
        before = re.search(rf"(?:{pattern})\s*$", text[max(0, mention.start - 6):mention.start])
        if before is not None:
            return iso, mention.end
    return None, mention.end


def _unit_follows(ctx: ExtractionContext, end: int, sentence: Sentence) -> bool:
    after = ctx.analysis.masked[end:sentence.end]
    if any(p.match(after) for p in ctx.analysis.rules.cue("number_unit_after")):
        return True
    return any(term_pattern(term).match(after.lstrip(" -")) for vocab in ctx.unit_terms for term, _ in vocab.terms)


def _qualifier(analysis: Analysis, start: int, end: int) -> str:
    best: tuple[int, int, str] | None = None
    for cue, symbol in _QUALIFIERS:
        for s, e in analysis.cue_matches(cue, start, end):
            key = (e, -s, symbol)
            if best is None or key[:2] > best[:2]:
                best = key
    return best[2] if best else ""


@dataclass(frozen=True)
class _Amount:
    mention: NumberMention
    currency: str | None
    end: int  # end of the amount expression, currency included
    sentence: Sentence


def extract_money(ctx: ExtractionContext) -> list[Evidence]:
    analysis = ctx.analysis
    settings = analysis.rules.settings
    default_currency = ctx.params.get("currency")
    amounts: list[_Amount] = []
    for mention in find_numbers(analysis):
        sentence = analysis.sentence_at(mention.start)
        if sentence is None or mention.article_only or not ctx.allowed(sentence.is_question, "money"):
            continue
        currency, end = _currency(analysis, mention)
        if currency is None and _unit_follows(ctx, mention.end, sentence):
            continue
        if currency is None and mention.digits >= settings.phone_min_digits and not mention.scaled:
            continue  # a long bare digit run is a telephone number, not an amount
        if analysis.blocked(mention.start):
            continue
        amounts.append(_Amount(mention, currency, end, sentence))
    evidence: list[Evidence] = []
    i = 0
    while i < len(amounts):
        first = amounts[i]
        second = amounts[i + 1] if i + 1 < len(amounts) else None
        clause_start, _ = analysis.clause_at(first.mention.start)
        sentence = first.sentence
        budget = analysis.any_cue("budget", sentence.start, sentence.end)
        phone_cued = analysis.any_cue("phone", clause_start, first.mention.start)
        is_range = second is not None and second.sentence == sentence and (
            _DASH.match(analysis.masked[first.end:second.mention.start]) is not None
            or (any(p.search(analysis.masked[sentence.start:first.mention.start])
                    for p in analysis.rules.cue("range_lead"))
                and any(p.match(analysis.masked[first.end:second.mention.start])
                        for p in analysis.rules.cue("range_connector"))))
        if is_range and second is not None:
            low, high = first.mention.value, second.mention.value
            if not first.mention.scaled and second.mention.scaled and low * second.mention.scale <= high:
                low = low * second.mention.scale  # "200-300k": the scale is written once
            currency = first.currency or second.currency
            scaled = first.mention.scaled or second.mention.scaled
            qualifier, body = "", f"{_format(low)}-{_format(high)}"
            i += 2
        else:
            currency, scaled = first.currency, first.mention.scaled
            qualifier = _qualifier(analysis, clause_start, first.mention.start)
            body = _format(first.mention.value)
            i += 1
        strong = currency is not None or budget
        if phone_cued and currency is None:
            continue
        # A scaled amount reads as money once it is bounded: a qualifier ('up to 300k') or a range
        # ('between 300 and 350 thousand') both state a price limit; a bare '300 thousand' does not.
        bounded = bool(qualifier) or is_range
        if not (strong or (scaled and bounded) or ctx.lenient):
            continue
        unit = currency or default_currency
        value = f"{qualifier}{body}{' ' + unit if unit else ''}"
        evidence.append(Evidence(
            value=value, pos=first.mention.start, sentences=((sentence.start, sentence.end),),
            old=replaced(analysis, sentence, first.mention.start, first.end, ctx.correcting),
            rank=2 if strong else (1 if scaled else 0),
        ))
    return evidence
