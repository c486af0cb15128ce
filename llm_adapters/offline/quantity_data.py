"""Compile the quantity language data (rules/quantity/<lang>.json) of the message's languages into regexes and
word sets, once per rules object. Nothing here knows a word of any language."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from engine.kernel.goal_models import Objective
from engine.text import fold
from llm_adapters.offline.memo import memo
from llm_adapters.offline.offline_rules import OfflineRules

_FLAGS = re.IGNORECASE | re.UNICODE
NEVER = re.compile(r"(?!x)x")  # matches nothing: a language without this kind of word


def phrase_regex(term: str) -> str:
    """One folded phrase as a regex body: a space matches any white space, a hyphen also a space or nothing."""
    out: list[str] = []
    for char in fold(term).strip():
        if char.isspace():
            if not out or out[-1] != r"\s+":
                out.append(r"\s+")
        elif char == "-":
            out.append(r"[-‐‑–\s]?")
        elif char in "'’":
            out.append(r"['’]")
        else:
            out.append(re.escape(char))
    return "".join(out)


def alternation(terms: Iterable[str]) -> str:
    """Non-capturing alternation of phrases, longest first; '' when there are none."""
    unique = sorted({fold(t).strip() for t in terms if fold(t).strip()}, key=lambda t: (-len(t), t))
    return "(?:" + "|".join(phrase_regex(t) for t in unique) + ")" if unique else ""


def unit_terms(objective: Objective) -> list[str]:
    """The folded nouns that count a quantity objective: ``params.unit_terms`` (all languages) and ``unit``."""
    params = objective.criterion.params
    raw = params.get("unit_terms")
    terms = [str(t) for lang_terms in raw.values() for t in lang_terms] if isinstance(raw, dict) else []
    unit = params.get("unit")
    if isinstance(unit, str) and unit.strip():
        terms.append(unit.replace("_", " "))
    return [fold(t).strip() for t in terms if fold(t).strip()]


def _words(data: dict[str, Any], *path: str) -> list[str]:
    node: Any = data
    for part in path:
        node = node.get(part, {}) if isinstance(node, dict) else {}
    return [str(w) for w in node] if isinstance(node, list) else []


@dataclass(frozen=True)
class QuantityWords:
    """The quantity words of every language active for one message (code-switching: all apply at once)."""

    approx_before: str  # alternation bodies ('' when empty)
    approx_after: str
    range_lead: re.Pattern[str]  # at the end of the text before the first number
    range_connector: re.Pattern[str]  # the whole text between the two numbers
    count_cue_any: re.Pattern[str]  # head-count cues anywhere: a match ends right before the number it introduces
    group_cue_any: re.Pattern[str]  # cues naming a head count whatever follows the number ('a group of')
    after_approx: re.Pattern[str]  # at the start of the text after a number
    ordinal_suffix: re.Pattern[str]  # right after the digits
    articles: frozenset[str]
    person_nouns: tuple[str, ...]
    self_words: frozenset[str]
    members: frozenset[str]
    members_plural: frozenset[str]
    determiners: frozenset[str]
    joiners: frozenset[str]
    fixed: dict[str, Decimal]
    multiples: dict[str, Decimal]  # members born together: 'twins': 2, 'jumeaux': 2
    age_units: frozenset[str]  # 'years', 'ans': a number before one is an age, not a count
    age_verbs: frozenset[str]  # 'is', 'a', 'tiene': between a member and its age
    one_pronoun_before: re.Pattern[str]  # at the end of the text before a written 'one': 'that one'
    age_before: re.Pattern[str]  # at the end of the text before an age: "she's", 'turning', 'cumple'
    item_count_before: re.Pattern[str]  # at the end of the text before a count of things: 'needs', 'set of'
    item_count_after: re.Pattern[str]  # at the start of the text after a count of things: 'of them'
    age_ordinal_before: re.Pattern[str]  # at the end of the text before a birthday ordinal: "my son's 7th"
    none_before: re.Pattern[str]  # at the end of the text before a unit noun: none of them ('no', 'sin', 'aucune')
    none_after: re.Pattern[str]  # the unit noun's whole clause after it: none of them ('cámaras no, ...')
    one_pronoun_after: re.Pattern[str]  # at the start of the text after it: 'one of', 'one-way'
    collectives: dict[str, Decimal]  # 'dozen': 12, 'vingtaine': 20
    collective_pattern: re.Pattern[str]
    fixed_pattern: re.Pattern[str]
    longest_member: int  # words in the longest member / joiner phrase


def _end_pattern(body: str, approx: str) -> re.Pattern[str]:
    if not body:
        return NEVER
    optional = rf"(?:{approx}[\s\-]+)?" if approx else ""
    return re.compile(rf"(?<![^\W_]){body}[\s:]+{optional}$", _FLAGS)


def _end_word_pattern(body: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![^\W_]){body}\s+$", _FLAGS) if body else NEVER


def _any_pattern(body: str, approx: str) -> re.Pattern[str]:
    if not body:
        return NEVER
    optional = rf"(?:{approx}[\s\-]+)?" if approx else ""
    return re.compile(rf"(?<![^\W_]){body}[\s:]+{optional}", _FLAGS)


def _compile(rules: OfflineRules) -> QuantityWords:
    family = rules.family("quantity")
    docs = [family[lang] for lang in sorted(family)]

    def collect(*path: str) -> list[str]:
        return [w for doc in docs for w in _words(doc, *path)]

    approx_before = alternation(collect("approximators_before"))
    approx_after = alternation(collect("approximators_after"))
    connectors = alternation(collect("range_connectors"))
    connector_body = rf"(?:[-–—]|{connectors})" if connectors else r"[-–—]"
    suffixes = alternation(collect("ordinal_suffixes"))
    fixed: dict[str, Decimal] = {}
    for doc in docs:
        raw = doc.get("composition", {}).get("fixed", {})
        fixed.update({fold(k).strip(): Decimal(int(v)) for k, v in raw.items()})
    fixed_body = alternation(fixed)
    collectives: dict[str, Decimal] = {}
    for doc in docs:
        collectives.update({fold(k).strip(): Decimal(int(v)) for k, v in doc.get("collectives", {}).items()})
    collective_body = alternation(collectives)
    multiples: dict[str, Decimal] = {}
    for doc in docs:
        raw = doc.get("composition", {}).get("multiples", {})
        multiples.update({fold(k).strip(): Decimal(int(v)) for k, v in raw.items()})
    member_phrases = collect("composition", "members") + collect("composition", "members_plural") + list(multiples)
    joiners = collect("composition", "joiners")
    return QuantityWords(
        approx_before=approx_before,
        approx_after=approx_after,
        range_lead=_end_pattern(alternation(collect("range_leads")), approx_before),
        range_connector=re.compile(rf"^\s*{connector_body}\s*(?:{approx_before}\s+)?$", _FLAGS)
        if approx_before else re.compile(rf"^\s*{connector_body}\s*$", _FLAGS),
        count_cue_any=_any_pattern(alternation(collect("count_cues")), approx_before),
        group_cue_any=_any_pattern(alternation(collect("group_cues")), approx_before),
        after_approx=re.compile(rf"^[\s\-]*{approx_after}(?![^\W_])", _FLAGS) if approx_after else NEVER,
        ordinal_suffix=re.compile(rf"^{suffixes}(?![^\W_])", _FLAGS) if suffixes else NEVER,
        articles=frozenset(fold(w) for w in collect("articles")),
        person_nouns=tuple(dict.fromkeys(fold(w).strip() for w in collect("person_nouns"))),
        self_words=frozenset(fold(w) for w in collect("composition", "self")),
        members=frozenset(fold(w) for w in collect("composition", "members")),
        members_plural=frozenset(fold(w) for w in collect("composition", "members_plural")),
        determiners=frozenset(fold(w) for w in collect("composition", "determiners")),
        joiners=frozenset(fold(w) for w in joiners),
        fixed=fixed,
        multiples=multiples,
        age_units=frozenset(fold(w).strip() for w in collect("composition", "age_units")),
        age_verbs=frozenset(fold(w).strip() for w in collect("composition", "age_verbs")),
        one_pronoun_before=_end_word_pattern(alternation(collect("one_pronoun_before"))),
        age_before=_end_word_pattern(alternation(collect("age_before"))),
        item_count_before=_end_word_pattern(alternation(collect("item_count_before"))),
        none_before=_end_word_pattern(alternation(collect("none_before"))),
        none_after=re.compile(rf"^[\s:]*{nones}\s*(?:$|[,.;!?)])", _FLAGS)
        if (nones := alternation(collect("none_after"))) else NEVER,
        item_count_after=re.compile(rf"^[\s\-]*{items}(?![^\W_])", _FLAGS)
        if (items := alternation(collect("item_count_after"))) else NEVER,
        age_ordinal_before=_end_word_pattern(alternation(collect("age_ordinal_before"))),
        one_pronoun_after=re.compile(rf"^[\s\-]*{after}(?![^\W_])", _FLAGS)
        if (after := alternation(collect("one_pronoun_after"))) else NEVER,
        collectives=collectives,
        collective_pattern=re.compile(rf"(?<![^\W_]){collective_body}(?![^\W_])", _FLAGS)
        if collective_body else NEVER,
        fixed_pattern=re.compile(rf"(?<![^\W_]){fixed_body}(?![^\W_])", _FLAGS) if fixed_body else NEVER,
        longest_member=max((len(p.split()) for p in member_phrases + joiners + collect("composition", "age_verbs")),
                           default=1),
    )


def quantity_words(rules: OfflineRules) -> QuantityWords:
    return memo(rules, "quantity_words", lambda: _compile(rules))
