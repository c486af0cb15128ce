"""Compile the temporal language data (rules/temporal/<lang>.json) into regexes, once per rules object.

Every term list becomes one whole-word alternation (longest term first) over folded text, plus a table from the
matched text's key back to its value ("tuesdays" -> "tue"). Nothing here knows a word of any language.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.text import fold
from llm_adapters.offline.memo import memo
from llm_adapters.offline.offline_rules import OfflineRules

_FLAGS = re.IGNORECASE | re.UNICODE
_KEY = re.compile(r"[\W_]+")


def key(text: str) -> str:
    """Lookup key of a matched phrase: letters and digits only ('apres-midi', 'apres midi' -> 'apresmidi')."""
    return _KEY.sub("", text)


def _clean(term: str) -> str:
    decomposed = unicodedata.normalize("NFKD", fold(term))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).strip()


def _term_regex(term: str) -> str:
    out: list[str] = []
    for index, char in enumerate(term):
        if char == "-" and (index == 0 or index == len(term) - 1):
            out.append("[-‐‑–]")  # a lone or edge hyphen is itself, never optional (it must not match nothing)
        elif char.isspace():
            if not out or out[-1] != r"\s+":
                out.append(r"\s+")
        elif char == "-":
            out.append(r"[-‐‑–\s]?")
        elif char in "'’":
            out.append(r"['’\"]\s*")
        elif char == ".":
            out.append(r"\.?")
        else:
            out.append(re.escape(char))
    return "".join(out)


def alternation(terms: Iterable[str]) -> str:
    """A non-capturing whole-word alternation of ``terms`` (already folded), longest first; '' if empty."""
    unique = sorted({_clean(t) for t in terms if _clean(t)}, key=lambda t: (-len(t), t))
    if not unique:
        return ""
    return "(?:" + "|".join(_term_regex(t) for t in unique) + ")"


def bounded(body: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w]){body}(?![\w])", _FLAGS)


@dataclass(frozen=True)
class Lexicon:
    """One term category: its alternation and key -> value table."""

    regex: str
    values: dict[str, str]

    def value(self, text: str) -> str | None:
        return self.values.get(key(text))

    @property
    def empty(self) -> bool:
        return not self.regex

    @staticmethod
    def build(table: Mapping[str, Iterable[str]]) -> Lexicon:
        values: dict[str, str] = {}
        for value, terms in table.items():
            for term in terms:
                cleaned = _clean(term)
                if cleaned:
                    values.setdefault(key(cleaned), str(value))
        return Lexicon(alternation(t for terms in table.values() for t in terms), values)

    @staticmethod
    def flat(terms: Iterable[str], value: str = "1") -> Lexicon:
        return Lexicon.build({value: list(terms)})


@dataclass(frozen=True)
class LanguageGrammar:
    language: str
    dateparser_language: str | None
    date_order: str
    region_orders: dict[str, str]
    lex: dict[str, Lexicon]
    patterns: dict[str, re.Pattern[str]]
    single_days: dict[str, tuple[str, ...]]  # key of a one-occurrence day-set term -> days
    recurring_days: dict[str, tuple[str, ...]]
    day_parts: dict[str, tuple[int, str]]  # key of 'tonight' -> (offset, part)
    known_words: frozenset[str]  # every word of this language's data: what may follow a bare 'at 5'
    unit_singular: dict[str, str]  # duration unit -> key of its first (singular) term
    unit_plural: dict[str, str]  # duration unit -> key of its last term
    prefilter: re.Pattern[str]

    def order_for(self, region: str | None) -> str:
        return self.region_orders.get(region or "", self.date_order)


@dataclass(frozen=True)
class TemporalSettings:
    part_hours: dict[str, tuple[int, int]] = field(default_factory=dict)
    bare_hour_pm_below: int = 0
    month_parts: dict[str, tuple[int, int]] = field(default_factory=dict)
    seasons: dict[str, tuple[str, str]] = field(default_factory=dict)
    max_mentions: int = 24
    max_dateparser_calls: int = 0
    max_gap: int = 24
    default_upcoming_count: int = 3
    part_hour_slack: int = 4


@dataclass(frozen=True)
class TemporalGrammar:
    languages: dict[str, LanguageGrammar]
    settings: TemporalSettings


_CATEGORIES_BY_VALUE = ("months", "weekdays", "weekdays_plural", "relative_days", "parts_of_day",
                        "parts_of_day_plural", "ordinals", "hours", "quarters", "holidays", "meridiem",
                        "minutes_before_hour",
                        "minutes_after_hour", "clock_words", "duration_units", "counts", "period_units", "seasons",
                        "month_parts")
_CATEGORIES_FLAT = ("next", "next_after", "this", "recurring", "ordinal_suffixes", "day_leads", "time_leads",
                    "hour_suffixes", "range_leads", "range_connectors", "pair_connectors", "list_connectors", "glue",
                    "within_leads", "upcoming_leads", "before_leads", "after_leads", "asap", "end_of", "year_leads",
                    "proposal_questions", "proposal_tags", "start_terms", "end_terms", "start_markers", "end_markers",
                    "not_date_after_ordinal", "alternative_connectors", "within_after", "negation_before",
                    "negation_after", "point_leads")
# Message words that give a date its role, not temporal words: a bare number before them is no clock time.
_ROLE_MARKERS = ("start_markers", "end_markers")


# Words that never make a sentence temporal on their own: the prefilter skips sentences without any other word.
_NOT_ANCHORS = frozenset({
    "glue", "list_connectors", "pair_connectors", "range_leads", "time_leads", "day_leads", "this", "ordinal_suffixes",
    "counts", "within_leads", "year_leads", "before_leads", "after_leads", "recurring", "next", "proposal_questions",
    "proposal_tags",
    "start_terms", "end_terms", "range_connectors", "hour_suffixes", "meridiem", "not_date_after_ordinal",
    "month_unit", "alternative_connectors", "within_after", "negation_before", "negation_after", "point_leads",
    *_ROLE_MARKERS,
})


def _opt(lex: Lexicon, name: str) -> str:
    """A named group for ``lex`` that never matches when the category is empty."""
    return f"(?P<{name}>{lex.regex})" if lex.regex else f"(?P<{name}>(?!))"


def _compile_language(language: str, data: Mapping[str, Any]) -> LanguageGrammar:
    lex: dict[str, Lexicon] = {}
    for name in _CATEGORIES_BY_VALUE:
        lex[name] = Lexicon.build(data.get(name, {}))
    for name in _CATEGORIES_FLAT:
        lex[name] = Lexicon.flat(data.get(name, []))
    single: dict[str, tuple[str, ...]] = {}
    recurring: dict[str, tuple[str, ...]] = {}
    for entry in data.get("day_sets", []):
        days = tuple(entry["days"])
        for term in entry.get("single", []):
            single[key(_clean(term))] = days
        for term in entry.get("recurring", []):
            recurring[key(_clean(term))] = days
    lex["day_set_single"] = Lexicon(alternation(t for e in data.get("day_sets", []) for t in e.get("single", [])), {})
    lex["day_set_recurring"] = Lexicon(
        alternation(t for e in data.get("day_sets", []) for t in e.get("recurring", [])), {})
    day_parts: dict[str, tuple[int, str]] = {}
    for entry in data.get("relative_day_parts", []):
        for term in entry["terms"]:
            day_parts[key(_clean(term))] = (int(entry["offset"]), str(entry["part"]))
    lex["month_unit"] = Lexicon(alternation(data.get("period_units", {}).get("month", [])), {})
    lex["relative_day_parts"] = Lexicon(
        alternation(t for e in data.get("relative_day_parts", []) for t in e["terms"]), {})
    patterns = _patterns(lex)
    words: set[str] = set()
    for name, value in data.items():
        if name in _ROLE_MARKERS or name == "proposal_tags":  # message words around a date, not temporal words
            continue
        for term in _strings(value):
            words.update(re.findall(r"\w+", _clean(term)))
    alternatives = [lex[n].regex for n in lex if lex[n].regex and n not in _NOT_ANCHORS]
    prefilter = re.compile(r"\d|(?<![\w])(?:" + "|".join(alternatives) + r")(?![\w])", _FLAGS) if alternatives \
        else re.compile(r"\d")
    order = data.get("date_order", {})
    return LanguageGrammar(
        language=language,
        dateparser_language=data.get("dateparser_language"),
        date_order=str(order.get("default", "dmy")),
        region_orders={str(k): str(v) for k, v in order.get("regions", {}).items()},
        lex=lex, patterns=patterns, single_days=single, recurring_days=recurring, day_parts=day_parts,
        known_words=frozenset(words), prefilter=prefilter,
        unit_singular={u: key(_clean(t[0])) for u, t in data.get("duration_units", {}).items() if t},
        unit_plural={u: key(_clean(t[-1])) for u, t in data.get("duration_units", {}).items() if t},
    )


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


def _patterns(lex: dict[str, Lexicon]) -> dict[str, re.Pattern[str]]:
    """The composite expressions; each is matched as a whole word on folded text."""
    glue = lex["glue"].regex or "(?!)"
    sep = rf"(?:\s*[,.\-/]?\s*(?:{glue}\s+)*)"  # '14th of June', '14 de junio', 'June 14', 'juin, 2027'
    # A comma parts a month from a year ('juin, 2027'), never a day from its month: 'Sunday 11 April, 25 guests'.
    day_sep = rf"(?:\s*[.\-/]?\s*(?:{glue}\s+)*)"
    year = r"(?P<year>(?:19|20)\d{2})(?!\d)"
    suffix = lex["ordinal_suffixes"].regex or "(?!)"
    # A day number is never the minutes of a clock time ('at evening 5:30 on March 14th' is not the 30th).
    day = (rf"(?:(?<!\d[:.])(?P<day>(?:[12]\d|3[01]|0?[1-9]))(?!\d)(?:{suffix}(?![\w]))?"
           rf"|{_opt(lex['ordinals'], 'dayword')})")
    month = _opt(lex["months"], "month")
    day2 = day.replace("?P<day>", "?P<day2>").replace("?P<dayword>", "?P<dayword2>")
    hour_words = lex["hours"].regex or "(?!)"
    hour = rf"(?P<h>(?:[01]?\d|2[0-4])(?!\d)|{hour_words})"
    minute_sep = r"(?::(?P<m>[0-5]\d)(?!\d)|\.(?P<md>[0-5]\d)(?!\d))"
    hour_suffix = lex["hour_suffixes"].regex or "(?!)"
    counts = lex["counts"].regex or "(?!)"
    count = rf"(?P<count>\d{{1,3}}(?!\d)|{counts}|[^\W\d_]+(?:-[^\W\d_]+)?)"
    units = _opt(lex["duration_units"], "unit")
    nxt = lex["next"].regex or "(?!)"
    this = lex["this"].regex or "(?!)"
    after = lex["next_after"].regex or "(?!)"
    mod_before = rf"(?:(?P<next>{nxt})|(?P<this>{this}))"
    b = r"(?<![\w])"
    e = r"(?![\w])"

    def c(body: str) -> re.Pattern[str]:
        return re.compile(b + body + e, _FLAGS)

    return {
        "date_dm": c(rf"{day}{day_sep}{month}(?:{sep}{year})?"),
        "date_md": c(rf"{month}{day_sep}{day}(?!\s*(?::|[.]\d|{lex['meridiem'].regex or '(?!)'}))(?:{sep}{year})?"),
        "month": c(rf"(?:(?P<lead>{lex['year_leads'].regex or '(?!)'})\s+(?:{glue}\s+)*)?{month}(?:{sep}{year})?"),
        "quarter": c(rf"{_opt(lex['quarters'], 'q')}(?:{sep}{year})?"),
        "holiday": c(_opt(lex["holidays"], "hol")),
        "iso_date": re.compile(r"(?<![\w/.,-])(?P<y>\d{4})-(?P<a>\d{1,2})-(?P<b>\d{1,2})(?![\w/-])"),
        "numeric_date": re.compile(
            r"(?<![\w/.,:+-])(?P<a>\d{1,2})(?P<s>[/.-])(?P<b>\d{1,2})(?:(?P=s)(?P<y>\d{4}|\d{2}))?(?![\w/:+]|[.,-]\d)"),
        "ordinal": c(rf"(?:(?P<lead>{lex['day_leads'].regex or '(?!)'})\s+)?"
                     rf"(?:(?P<day>(?:[12]\d|3[01]|0?[1-9]))(?P<suf>{suffix})|{_opt(lex['ordinals'], 'dayword')})"),
        "day_lead": c(rf"(?:{lex['day_leads'].regex or '(?!)'})\s+(?P<day>(?:[12]\d|3[01]|0?[1-9]))(?![\d:.,])"),
        "weekday": c(rf"(?:{mod_before}\s+(?:{glue}\s+)*)?{_opt(lex['weekdays'], 'wd')}(?:\s+(?P<after>{after}))?"),
        "weekday_plural": c(_opt(lex["weekdays_plural"], "wd")),
        "day_set_single": c(rf"(?:{mod_before}\s+)?(?:{lex['day_set_single'].regex or '(?!)'})"
                            rf"(?:\s+(?P<after>{after}))?"),
        "day_set_recurring": c(lex["day_set_recurring"].regex or "(?!)"),
        "relative_day": c(_opt(lex["relative_days"], "rel")),
        "relative_day_part": c(lex["relative_day_parts"].regex or "(?!)"),
        "part": c(_opt(lex["parts_of_day"], "part")),
        "part_plural": c(_opt(lex["parts_of_day_plural"], "part")),
        "clock": re.compile(
            rf"(?<![\w+:/.,])(?:(?P<lead>{lex['time_leads'].regex or '(?!)'})\s+)?"
            rf"(?:(?P<pre>{lex['minutes_before_hour'].regex or '(?!)'})\s+)?"
            rf"{hour}{minute_sep}?"
            rf"(?:\s*(?P<suf>{hour_suffix})(?:\s*(?P<m2>[0-5]\d)(?!\d))?)?"
            rf"(?:\s*(?P<mer>{lex['meridiem'].regex or '(?!)'}))?"
            rf"(?:\s+(?P<post>{lex['minutes_after_hour'].regex or '(?!)'}))?(?![\w:/]|[.,]\d)", _FLAGS),
        "clock_word": c(rf"(?:(?:{lex['time_leads'].regex or '(?!)'})\s+)?{_opt(lex['clock_words'], 'cw')}"),
        "asap": c(lex["asap"].regex or "(?!)"),
        "within": c(rf"(?P<wl>{lex['within_leads'].regex or '(?!)'})\s+(?:{glue}\s+)*{count}\s+{units}"
                    rf"|{count.replace('?P<count>', '?P<count2>')}\s+{units.replace('?P<unit>', '?P<unit2>')}"
                    rf"\s+(?:{lex['within_after'].regex or '(?!)'})"),
        "negated_before": re.compile(
            rf"(?<![\w])(?:{lex['negation_before'].regex or '(?!)'})(?:\s+[\w'’]+){{0,2}}\s*$", _FLAGS),
        "negated_after": re.compile(rf"\s*,?\s*(?:{lex['negation_after'].regex or '(?!)'})(?![\w])", _FLAGS),
        "glue_before": re.compile(rf"(?<![\w])(?:{glue})\s+$", _FLAGS),  # 'the' / 'on' / 'le' just before
        "time_lead_inside": re.compile(rf"(?<![\w])(?:{lex['time_leads'].regex or '(?!)'})(?![\w])", _FLAGS),
        "upcoming": c(rf"(?:{lex['upcoming_leads'].regex or '(?!)'})\s+(?:{count}\s+)?(?:{after}\s+)?{units}"),
        "period": c(rf"(?:{mod_before}\s+(?:{glue}\s+)*{_opt(lex['period_units'], 'pu')}"
                    rf"|(?:{glue}\s+)*{_opt(lex['period_units'], 'pu2')}\s+(?P<after>{after}))"),
        "season": c(rf"(?:{mod_before}\s+(?:{glue}\s+)*)?{_opt(lex['seasons'], 'season')}(?:\s+(?P<after>{after}))?"
                    rf"(?:{sep}{year})?"),
        "month_part": c(rf"{_opt(lex['month_parts'], 'mp')}\s*[-\s]?\s*(?:{glue}\s+)*{month}(?:{sep}{year})?"),
        "end_of": c(rf"(?:{lex['end_of'].regex or '(?!)'})\s*(?:{glue}\s+)*(?:{mod_before}\s+(?:{glue}\s+)*)?"
                    rf"{_opt(lex['period_units'], 'pu')}"),
        "year": c(rf"(?:{lex['year_leads'].regex or '(?!)'})\s+{year}"),
        "num": re.compile(r"(?<![\w.,:/+-])(?P<n>[12]\d|3[01]|0?[1-9])(?![\w:/]|[.,]\d)"),
        "hour_word": c(rf"(?P<hw>{hour_words})"),
        "date_this_month": c(rf"{day}{sep}{mod_before}\s+(?:{glue}\s+)*(?:{lex['month_unit'].regex or '(?!)'})"),
        "not_date_after": re.compile(rf"\s*(?:{lex['not_date_after_ordinal'].regex or '(?!)'})(?![\w])", _FLAGS),
        "range_lead": c(lex["range_leads"].regex or "(?!)"),
        "range_connector": re.compile(
            rf"(?:(?<![\w]){lex['range_connectors'].regex or '(?!)'}(?![\w])|[-–—](?=\s*\w))", _FLAGS),
        "pair_connector": c(lex["pair_connectors"].regex or "(?!)"),
        "list_connector": c(lex["list_connectors"].regex or "(?!)"),
        "alternative_connector": c(lex["alternative_connectors"].regex or "(?!)"),
        "before": c(lex["before_leads"].regex or "(?!)"),
        "after": c(lex["after_leads"].regex or "(?!)"),
        "recurring": c(lex["recurring"].regex or "(?!)"),
        "day2": c(day2),
    }


def _settings(data: Mapping[str, Any]) -> TemporalSettings:
    raw = data.get("settings", {})
    defaults = TemporalSettings()
    return TemporalSettings(
        part_hours={k: (int(v[0]), int(v[1])) for k, v in raw.get("part_hours", {}).items()},
        bare_hour_pm_below=int(raw.get("bare_hour_pm_below", defaults.bare_hour_pm_below)),
        month_parts={k: (int(v[0]), int(v[1])) for k, v in raw.get("month_parts", {}).items()},
        seasons={k: (str(v[0]), str(v[1])) for k, v in raw.get("seasons", {}).items()},
        max_mentions=int(raw.get("max_mentions", defaults.max_mentions)),
        max_dateparser_calls=int(raw.get("max_dateparser_calls", defaults.max_dateparser_calls)),
        max_gap=int(raw.get("max_gap", defaults.max_gap)),
        default_upcoming_count=int(raw.get("default_upcoming_count", defaults.default_upcoming_count)),
        part_hour_slack=int(raw.get("part_hour_slack", defaults.part_hour_slack)),
    )


@functools.lru_cache(maxsize=64)
def _language_cached(language: str, serialised: str) -> LanguageGrammar:
    return _compile_language(language, json.loads(serialised))


def _compile(rules: OfflineRules) -> TemporalGrammar:
    """Per-language grammars are shared by content: the per-language subsets of one rule set reuse them."""
    family = rules.family("temporal")
    languages = {lang: _language_cached(lang, json.dumps(data, sort_keys=True))
                 for lang, data in sorted(family.items()) if lang != "common"}
    return TemporalGrammar(languages=languages, settings=_settings(family.get("common", {})))


def grammar(rules: OfflineRules) -> TemporalGrammar:
    """The compiled temporal grammar of ``rules``, built on first use and kept on the rules object (no global
    table, no finalizers)."""
    return memo(rules, "temporal_grammar", lambda: _compile(rules))
