"""Money evidence: amounts with currency or budget context, qualifiers (up to, around, at least) and ranges.

Values: '350000 EUR', '<=350000 EUR', '>=200000 EUR', '~300000 EUR', '200000-300000 EUR'. Magnitude is not
judged here: 'around three hundred' becomes '~300 EUR' and the money validator rejects it as ambiguous.

Dates, times and telephone numbers are never amounts, nor are counts with a unit ('170 guests', '3 bedrooms');
among several amounts the one with a currency, or nearest after a budget cue, is preferred. Every cue is
looked up in a per-message index, so the work is linear in the message length.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from engine.kernel.company_data import locale_value
from engine.kernel.goal_models import CriterionKind
from llm_adapters.offline.analysis import Analysis, Sentence
from llm_adapters.offline.cues import names_objective, objective_cues
from llm_adapters.offline.evidence import Evidence, ExtractionContext
from llm_adapters.offline.excluded import excluded_spans
from llm_adapters.offline.memo import memo
from llm_adapters.offline.numbers import NumberMention, find_numbers, parse_digits
from llm_adapters.offline.offline_rules import OfflineRules, VocabularyData
from llm_adapters.offline.quantity_data import alternation, unit_terms
from llm_adapters.offline.terms import replaced, term_pattern
from llm_adapters.offline.text_index import TextIndex, text_index

_QUALIFIERS = (("money_upper", "<="), ("money_lower", ">="), ("money_approx", "~"))
_DASH = re.compile(r"^\s*[-–]\s*$")
_WINDOW = 80  # characters around an amount where its currency, unit, qualifier or range words stand
_RANGE_GAP = 24  # longest text between the two ends of a range


def _format(amount: Decimal) -> str:
    normalized = amount.normalize()
    return f"{normalized:f}"


def _currency_pattern(terms: tuple[str, ...]) -> str:
    parts = []
    for term in sorted(terms, key=len, reverse=True):
        escaped = re.escape(term)
        parts.append(escaped if not term[-1].isalnum() else rf"{escaped}(?![\w])")
    return "|".join(parts)


def _currency_patterns(rules: OfflineRules) -> list[tuple[str, re.Pattern[str], re.Pattern[str]]]:
    def build() -> list[tuple[str, re.Pattern[str], re.Pattern[str]]]:
        compiled = []
        for iso, terms in rules.currencies.items():
            words = tuple(t for t in terms if not _letter_sign(t))
            if not words:
                continue
            body = _currency_pattern(words)
            compiled.append((iso, re.compile(rf"\s*(?:{body})"), re.compile(rf"(?<![^\W_])(?:{body})\s*$")))
        return compiled
    return memo(rules, "currency_patterns", build)


def _letter_sign(term: str) -> bool:
    """A one-letter sign written before the amount ('R900' in rand): read only for the spec's own currency,
    since the same letter is a word or a code elsewhere ('195/65 R15')."""
    return len(term) == 1 and term.isalpha()


def _letter_signs(rules: OfflineRules) -> dict[str, re.Pattern[str]]:
    def build() -> dict[str, re.Pattern[str]]:
        out = {}
        for iso, terms in rules.currencies.items():
            signs = [t for t in terms if _letter_sign(t)]
            if signs:
                out[iso] = re.compile(rf"(?<![^\W_])(?:{'|'.join(map(re.escape, signs))})\s?$")
        return out
    return memo(rules, "currency_letter_signs", build)


def warm_money(rules: OfflineRules) -> None:
    """Compile the currency patterns of ``rules`` now rather than on the first amount a visitor writes."""
    _currency_patterns(rules)


def currency_at(analysis: Analysis, start: int, end: int, prefer: str | None = None) -> tuple[str | None, int]:
    """ISO code written right after (or right before) the number at [start, end), and the end of the amount
    expression. A sign several currencies share ('$', 'dollars': every language's rules list it under each
    currency written so) reads as ``prefer`` (the spec's own currency) when that is one of them; otherwise the
    longest written term wins ('dollars canadiens' over 'dollars'), then the first currency listed."""
    text = analysis.masked
    found: list[tuple[int, str, int]] = []  # (length of the written term, iso, end of the expression)
    for iso, after, before in _currency_patterns(analysis.rules):
        written = after.match(text, end, min(len(text), end + _WINDOW))
        if written is not None:
            found.append((written.end() - end, iso, written.end()))
            continue
        sign = before.search(text, max(0, start - 6), start)
        if sign is not None:
            found.append((start - sign.start(), iso, end))
    letter = _letter_signs(analysis.rules).get(prefer) if prefer is not None else None
    if letter is not None and prefer is not None:
        sign = letter.search(text, max(0, start - 2), start)
        if sign is not None:
            found.append((start - sign.start(), prefer, end))
    if not found:
        return None, end
    if prefer is not None:
        longest = max(length for length, _, _ in found)
        for length, iso, stop in found:
            if iso == prefer and length == longest:
                return iso, stop
    length, iso, stop = max(found, key=lambda f: f[0])  # max keeps the first of equal lengths
    return iso, stop


def _count_units(ctx: ExtractionContext) -> re.Pattern[str] | None:
    """Unit nouns of the spec's quantity objectives: '170 guests' is a count, never an amount."""
    if ctx.spec is None:
        return None
    terms = tuple(sorted({t for o in ctx.spec.objectives if o.criterion.kind is CriterionKind.QUANTITY
                          for t in unit_terms(o)}))
    return _count_pattern(terms)


@lru_cache(maxsize=256)
def _count_pattern(terms: tuple[str, ...]) -> re.Pattern[str] | None:
    body = alternation(terms)
    return re.compile(rf"^[\s\-]*(?:[^\W\d_]+[\s\-]+)?{body}(?:e?s|x)?(?![^\W_])") if body else None


def _unit_follows(ctx: ExtractionContext, end: int, sentence: Sentence, counts: re.Pattern[str] | None) -> bool:
    after = ctx.analysis.masked[end:min(sentence.end, end + _WINDOW)]
    if any(p.match(after) for p in ctx.analysis.rules.cue("number_unit_after")):
        return True
    if counts is not None and counts.match(after):
        return True
    features = _feature_units(ctx)
    return features is not None and features.match(after) is not None


def _feature_units(ctx: ExtractionContext) -> re.Pattern[str] | None:
    """One pattern for every features vocabulary term ('3 bedrooms')."""
    return _feature_pattern(ctx.unit_terms)


@lru_cache(maxsize=64)
def _feature_pattern(vocabularies: tuple[VocabularyData, ...]) -> re.Pattern[str] | None:
    """Compiled once per set of vocabularies (a large alternation: never once per message)."""
    bodies = [term_pattern(term).pattern for vocab in vocabularies for term, _ in vocab.terms]
    return re.compile(r"^[\s\-]*(?:" + "|".join(bodies) + ")") if bodies else None


def _qualifier(index: TextIndex, start: int, end: int) -> str:
    best: tuple[int, int, str] | None = None
    for cue, symbol in _QUALIFIERS:
        found = index.last_cue_before(cue, start, end)
        if found is not None:
            key = (found[1], -found[0], symbol)
            if best is None or key[:2] > best[:2]:
                best = key
    return best[2] if best else ""


def _bounded(sentence: Sentence, start: int, end: int) -> Sentence:
    """The sentence cut to a window around a value: context checks stay linear in the message."""
    return Sentence(start=max(sentence.start, start - _WINDOW), end=min(sentence.end, end + _WINDOW),
                    is_question=sentence.is_question, clauses=())


@dataclass(frozen=True)
class _Amount:
    mention: NumberMention
    currency: str | None
    end: int  # end of the amount expression, currency included
    sentence: Sentence


def _amounts(ctx: ExtractionContext, index: TextIndex) -> list[_Amount]:
    analysis = ctx.analysis
    settings = analysis.rules.settings
    excluded = excluded_spans(ctx)
    counts = _count_units(ctx)
    default_currency = locale_value(ctx.spec, ctx.objective.criterion, "currency", "currency")
    amounts: list[_Amount] = []
    for mention in _with_letter_signed(analysis, find_numbers(analysis), default_currency):
        sentence = index.sentence_at(mention.start)
        if sentence is None or mention.article_only or not ctx.allowed(
                sentence.is_question, "money", proposes_figure=sentence.proposes_figure):
            continue
        currency, end = currency_at(analysis, mention.start, mention.end, default_currency)
        if currency is None and excluded.overlaps(mention.start, mention.end):
            continue  # a date, a time or a telephone number
        if currency is None and _unit_follows(ctx, mention.end, sentence, counts):
            continue
        if currency is None and mention.digits >= settings.phone_min_digits and not mention.scaled:
            continue  # a long bare digit run is a telephone number, not an amount
        if index.blocked(mention.start):
            continue
        amounts.append(_Amount(mention, currency, end, sentence))
    return amounts


_SIGNED_DIGITS = re.compile(r"\s?(\d{1,3}(?:[.,\u00a0\u202f ]\d{3})+(?!\d)|\d+(?:[.,]\d+)?)(?![^\W\d_]{3})")


def _with_letter_signed(analysis: Analysis, mentions: list[NumberMention], currency: str | None) -> list[NumberMention]:
    """The numbers of the message plus those glued to a one-letter sign of the spec's own currency ('R900',
    'R350pp'), which the digit pattern leaves out because a letter touches them."""
    letters = [t for t in analysis.rules.currencies.get(currency or "", ()) if _letter_sign(t)]
    if not letters:
        return mentions
    text = analysis.masked
    extra: list[NumberMention] = []
    for match in re.finditer(rf"(?<![^\W_])(?:{'|'.join(map(re.escape, letters))})(?=\s?\d)", text):
        digits = _SIGNED_DIGITS.match(text, match.end())
        if digits is None or any(m.start < digits.end(1) and digits.start(1) < m.end for m in mentions):
            continue
        value = parse_digits(digits.group(1))
        if value is not None:
            extra.append(NumberMention(start=digits.start(1), end=digits.end(1), value=value, scale=Decimal(1),
                                       written=False, digits=sum(c.isdigit() for c in digits.group(1))))
    return sorted([*mentions, *extra], key=lambda m: m.start) if extra else mentions


def _is_range(analysis: Analysis, first: _Amount, second: _Amount | None) -> bool:
    if second is None or second.sentence != first.sentence or second.mention.start - first.end > _RANGE_GAP:
        return False
    between = analysis.masked[first.end:second.mention.start]
    if _DASH.match(between) is not None:
        return True
    if not any(p.match(between) for p in analysis.rules.cue("range_connector")):
        return False
    low, high = first.mention, second.mention
    if not low.scaled and high.scaled and low.value * high.scale <= high.value:
        return True  # "15 to 20k": the scale written once binds both ends, no "between" needed
    lead = analysis.masked[max(first.sentence.start, first.mention.start - _WINDOW):first.mention.start]
    return any(p.search(lead) for p in analysis.rules.cue("range_lead"))


def _near_budget(index: TextIndex, amount: _Amount, previous_end: int) -> bool:
    """The amount is the first one after a budget cue of its sentence, or shares a clause with one."""
    clause_start, clause_end = index.clause_at(amount.mention.start)
    if index.any_cue("budget", clause_start, clause_end):
        return True
    cue = index.last_cue_before("budget", amount.sentence.start, amount.mention.start)
    return cue is not None and cue[1] >= previous_end


def _named_sentences(ctx: ExtractionContext) -> frozenset[int]:
    """Starts of the sentences that name this objective by its own cue terms ('al mes', 'monthly'): there a
    number is an amount as surely as after 'budget'."""
    analysis = ctx.analysis
    return memo(analysis, f"money_named:{ctx.objective.id}", lambda: frozenset(
        s.start for s in analysis.sentences if names_objective(analysis.words(s.start, s.end), ctx.objective)))


@lru_cache(maxsize=256)
def _own_cue_pattern(terms: frozenset[str]) -> re.Pattern[str] | None:
    body = alternation(terms)
    return re.compile(rf"(?<![^\W_]){body}") if body else None


def _nearest_to_own_cues(ctx: ExtractionContext, amounts: list[_Amount]) -> set[int]:
    """Per sentence, the amount nearest to one of the objective's own cue terms ('máximo 6 mil al mes')."""
    pattern = _own_cue_pattern(objective_cues(ctx.objective))
    if pattern is None:
        return set()
    spans = [m.span() for m in pattern.finditer(ctx.analysis.masked)]
    starts = [s for s, _ in spans]
    best: dict[int, tuple[int, int]] = {}  # sentence start -> (distance, amount start)
    for amount in amounts:
        start, end, sentence = amount.mention.start, amount.end, amount.sentence
        i = bisect.bisect_left(starts, start)
        distances = []
        if i > 0 and sentence.start <= spans[i - 1][0] and spans[i - 1][1] <= start:
            distances.append(start - spans[i - 1][1])  # the nearest cue before the amount
        if i < len(spans) and end <= spans[i][0] and spans[i][1] <= sentence.end:
            distances.append(spans[i][0] - end)  # the nearest cue after it
        if not distances:
            continue
        key = (min(distances), start)
        if amount.sentence.start not in best or key < best[amount.sentence.start]:
            best[amount.sentence.start] = key
    return {start for _, start in best.values()}


def extract_money(ctx: ExtractionContext) -> list[Evidence]:
    analysis = ctx.analysis
    index = text_index(analysis)
    default_currency = locale_value(ctx.spec, ctx.objective.criterion, "currency", "currency")
    amounts = _amounts(ctx, index)
    named = _named_sentences(ctx) if amounts else frozenset()
    nearest = _nearest_to_own_cues(ctx, amounts) if named else set()
    evidence: list[Evidence] = []
    previous_end = 0
    i = 0
    while i < len(amounts):
        first = amounts[i]
        second = amounts[i + 1] if i + 1 < len(amounts) else None
        clause_start, _ = index.clause_at(first.mention.start)
        sentence = first.sentence
        budget = index.any_cue("budget", sentence.start, sentence.end) or sentence.start in named
        phone_cued = index.any_cue("phone", clause_start, first.mention.start)
        is_range = _is_range(analysis, first, second)
        if is_range and second is not None:
            low, high = first.mention.value, second.mention.value
            if not first.mention.scaled and second.mention.scaled and low * second.mention.scale <= high:
                low = low * second.mention.scale  # "200-300k": the scale is written once
            currency = first.currency or second.currency
            scaled = first.mention.scaled or second.mention.scaled
            qualifier, body, end = "", f"{_format(low)}-{_format(high)}", second.end
            i += 2
        else:
            currency, scaled = first.currency, first.mention.scaled
            qualifier = _qualifier(index, clause_start, first.mention.start)
            body, end = _format(first.mention.value), first.end
            i += 1
        near = (budget and _near_budget(index, first, previous_end)) or first.mention.start in nearest
        previous_end = end
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
        rank = 2 + (currency is not None) + near if strong else (1 if scaled else 0)
        evidence.append(Evidence(
            value=value, pos=first.mention.start, sentences=((sentence.start, sentence.end),),
            old=replaced(analysis, _bounded(sentence, first.mention.start, end), first.mention.start, first.end,
                         ctx.correcting),
            rank=rank,
        ))
    return evidence
