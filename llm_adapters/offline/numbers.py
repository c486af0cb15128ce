"""Numbers in visitor text: digit notations (350.000, 350,000, 1.2M, €350k, 350 mil) and written-out numbers
in any configured language ("three hundred thousand", "trescientos cincuenta mil", "half a million")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from llm_adapters.offline.analysis import Analysis
from llm_adapters.offline.memo import memo
from llm_adapters.offline.offline_rules import NumberWords, OfflineRules

_THOUSANDS = re.compile(r"\d{1,3}(?:[., \u00a0\u202f]\d{3})+")
_NON_DIGIT = re.compile(r"\D")
_TOKEN = re.compile(r"[^\W\d_]+")
_GAP = re.compile(r"[\s\-]*")
_LAST_WORD = re.compile(r"([^\W_]+)[\s\-]*$")
_COUNT_WINDOW = 40  # characters before a term where its count can be written


@dataclass(frozen=True)
class NumberMention:
    start: int  # folded offsets of the whole expression (number plus any scale word or suffix)
    end: int
    value: Decimal
    scale: Decimal  # 1 when no scale word/suffix was attached
    written: bool  # spelled out in words
    digits: int  # digits written (0 for words): phone numbers are long digit runs
    article_only: bool = False  # "a"/"un" alone: an article, not a number

    @property
    def scaled(self) -> bool:
        return self.scale != 1


def parse_digits(raw: str) -> Decimal | None:
    """'350.000' and '350,000' group thousands; '1.2' and '1,5' are decimals."""
    try:
        if _THOUSANDS.fullmatch(raw):
            return Decimal(_NON_DIGIT.sub("", raw))
        return Decimal(raw.replace(",", "."))
    except InvalidOperation:
        return None


def _suffix_pattern(rules: OfflineRules) -> re.Pattern[str]:
    words = set(rules.settings.scale_suffixes) | set(rules.numbers.scales)
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"\s*({alternatives})(?![\w²³])")


def _scale_of(rules: OfflineRules, word: str) -> Decimal:
    return rules.settings.scale_suffixes.get(word) or rules.numbers.scales.get(word, Decimal(1))


def _digit_mentions(analysis: Analysis) -> list[NumberMention]:
    rules = analysis.rules
    suffix = memo(rules, "scale_suffix_pattern", lambda: _suffix_pattern(rules))
    text = analysis.masked
    mentions = []
    for match in rules.digit_number.finditer(text):
        value = parse_digits(match.group())
        if value is None:
            continue
        end = match.end()
        scale = Decimal(1)
        tail = suffix.match(text, end)
        if tail is not None:
            scale = _scale_of(rules, tail.group(1))
            end = tail.end()
        mentions.append(NumberMention(
            start=match.start(), end=end, value=value * scale, scale=scale, written=False,
            digits=len(_NON_DIGIT.sub("", match.group())),
        ))
    return mentions


def words_value(numbers: NumberWords, tokens: list[str]) -> tuple[Decimal, Decimal] | None:
    """Value and scale of a run of number words; None when the run holds no number.

    A multiplier of 100 or more multiplies everything said since the last scale ('trois cents' -> 300, 'two
    hundred'); a smaller one multiplies only the units said right before it and adds otherwise ('quatre vingt
    dix' -> 90, 'deux cent quatre vingts' -> 280, 'cent vingt' -> 120, 'vingt' -> 20)."""
    total = Decimal(0)
    current = Decimal(0)
    small = Decimal(0)  # units said since the last multiplier or hundred
    fraction: Decimal | None = None
    scale = Decimal(1)
    seen = False
    for token in tokens:
        if token in numbers.units:
            current += numbers.units[token]
            small += numbers.units[token]
            seen = True
        elif token in numbers.hundreds:
            current += numbers.hundreds[token]
            small = Decimal(0)
            seen = True
        elif token in numbers.multipliers:
            factor = numbers.multipliers[token]
            if factor >= 100:
                current = (current or Decimal(1)) * factor
            elif small and small < factor:
                current += small * factor - small
            else:
                current += factor
            small = Decimal(0)
            seen = True
        elif token in numbers.scales:
            base = current or fraction or Decimal(1)
            total += base * numbers.scales[token]
            scale = max(scale, numbers.scales[token])
            current, small, fraction, seen = Decimal(0), Decimal(0), None, True
        elif token in numbers.fractions:
            fraction = numbers.fractions[token]
    if not seen:
        return None
    return total + current, scale


def _word_mentions(analysis: Analysis) -> list[NumberMention]:
    numbers = analysis.rules.numbers
    text = analysis.masked
    tokens = [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(text)]
    mentions: list[NumberMention] = []
    i = 0
    while i < len(tokens):
        first = tokens[i][2]
        starts_run = numbers.is_number_word(first) or (
            first in numbers.articles and i + 1 < len(tokens)
            and (tokens[i + 1][2] in numbers.multipliers or tokens[i + 1][2] in numbers.scales))
        if not starts_run:
            i += 1
            continue
        j = i + 1
        while j < len(tokens) and _GAP.fullmatch(text[tokens[j - 1][1]:tokens[j][0]]):
            word = tokens[j][2]
            if numbers.is_number_word(word) or word in numbers.articles or word in numbers.connectors:
                j += 1
            else:
                break
        run = tokens[i:j]
        while run and (run[-1][2] in numbers.connectors or (run[-1][2] in numbers.articles
                                                            and run[-1][2] not in numbers.units)):
            run = run[:-1]
        words = [t[2] for t in run]
        parsed = words_value(numbers, words) if run else None
        if parsed is not None:
            value, scale = parsed
            article_only = all(w in numbers.articles for w in words)
            mentions.append(NumberMention(
                start=run[0][0], end=run[-1][1], value=value, scale=scale, written=True, digits=0,
                article_only=article_only,
            ))
        i = max(j, i + 1)
    return mentions


def digit_mentions(analysis: Analysis) -> list[NumberMention]:
    """Numbers written with digits, in text order (computed once per message)."""
    return memo(analysis, "digit_mentions", lambda: _digit_mentions(analysis))


def find_numbers(analysis: Analysis) -> list[NumberMention]:
    """Every number in the message, in text order; digit mentions win where the two overlap (computed once
    per message: every money objective reads the same list)."""
    return memo(analysis, "find_numbers", lambda: _find_numbers(analysis))


def _find_numbers(analysis: Analysis) -> list[NumberMention]:
    digit = digit_mentions(analysis)
    written = _word_mentions(analysis)
    merged: list[NumberMention] = []
    i = 0
    for mention in written:  # both lists are in text order: one merge pass drops overlapped word mentions
        while i < len(digit) and digit[i].end <= mention.start:
            i += 1
        if i < len(digit) and digit[i].start < mention.end and mention.start < digit[i].end:
            continue
        merged.append(mention)
    return sorted(digit + merged, key=lambda m: m.start)


def count_before(analysis: Analysis, start: int, floor: int) -> Decimal | None:
    """The count written right before a term ('three bedrooms', '3-bedroom', 'tres dormitorios')."""
    numbers = analysis.rules.numbers
    before = analysis.masked[max(floor, start - _COUNT_WINDOW):start]  # bounded: linear in the message
    match = _LAST_WORD.search(before)
    if match is None:
        return None
    word = match.group(1)
    if word.isdigit():
        return Decimal(word)
    if word in numbers.articles:
        return None
    parsed = words_value(numbers, [word])
    return parsed[0] if parsed is not None else None
