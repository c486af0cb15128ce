"""Permitted-data check (Algorithm 1, step 4): no objective may ask for a prohibited data category.

``check_governance`` is pure: it scans each objective's name, canonical questions and criterion description
for the keywords of every category in rules/governance.json and returns one issue per (objective, category).

A category protects data about the visitor as a person. Context is judged by the rule data (``context`` in
rules/governance.json): a keyword right beside a word naming an animal, a vehicle, a product, a business or a
document ("their dog's symptoms", "the medical practice", "health insurance") is about that subject, not the
visitor, and is set aside (and reported). So is one whose phrase (between the nearest commas, parentheses or
full stops) names such a subject and no person ("whether the tree shows signs of disease"), and one whose
sentence names a being with health of its own (``sentence_subject_groups``: an animal, a plant) while its phrase
names no person and no person's possessive ("the dog's name ..., any symptoms they've noticed"). Anything else
keeps it prohibited, so the check still fails closed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from engine.compiler.compiler_rules import GovernanceContext, GovernanceRules, load_governance_rules
from engine.compiler.errors import PROHIBITED_CATEGORY
from engine.compiler.matching import Match
from engine.kernel.goal_models import GoalSpec
from engine.text import fold

_WORD = re.compile(r"\w+")
_POSSESSIVE = re.compile(r"^(\w+?)(?:'s|’s|s'|s’)$")
_SNIPPET_WORDS = 6  # words either side of a keyword quoted in a refusal
_LIST_HEAD_WORDS = 4  # words before a parenthesised list that say what its options are


@dataclass(frozen=True)
class Judged:
    """A keyword found in a text, and why it is (or is not) about the visitor as a person."""

    match: Match
    text: str  # the folded text it was found in
    subject: str | None = None  # the word naming another subject ("dog"), when set aside
    group: str | None = None  # that word's group ("animal")

    @property
    def about_visitor(self) -> bool:
        return self.subject is None

    def phrase(self) -> str:
        """The words around the keyword, as quoted in a refusal or a note."""
        before = self.text[: self.match.start].split()[-_SNIPPET_WORDS:]
        after = self.text[self.match.end:].split()[:_SNIPPET_WORDS]
        return " ".join([*before, self.text[self.match.start:self.match.end], *after]).strip(" ,.;:")

    def reason(self) -> str:
        if self.subject is not None:
            return f"'{self.match.keyword}' is about {self.group} data ('{self.subject}'), not about the visitor"
        return (f"'{self.match.keyword}' asks about the visitor as a person (its phrase names a person, or no "
                "animal, plant, vehicle, product, business or document is named beside it or in its phrase)")


def _neighbour(text: str, match: Match, connectors: set[str]) -> list[str]:
    """The word right before the keyword and the first word after it past connectors (folded, possessive cut)."""
    before = _WORD.findall(text[: match.start].replace("'s ", " ").replace("’s ", " "))
    words = before[-1:]
    after = _WORD.findall(text[match.end:])
    for word in after[:4]:
        if word not in connectors:
            words.append(word)
            break
    possessive = re.search(r"(\w+)(?:'s|’s|s'|s’)\s*$", text[: match.start])
    if possessive:
        words.append(possessive.group(1))
    # A listed option ("which service they need (check-up, brakes, diagnosis)") is judged by what the list is of.
    opening = text.rfind("(", 0, match.start)
    if opening >= 0 and ")" not in text[opening:match.start]:
        words += _WORD.findall(text[:opening])[-_LIST_HEAD_WORDS:]
    return words


_PHRASE_EDGE = re.compile(r"[,;:.!?()\n]")
_SENTENCE_EDGE = re.compile(r"[.!?;\n]")


def _bounds(text: str, start: int, end: int, edge: re.Pattern[str]) -> tuple[int, int]:
    before = [m.end() for m in edge.finditer(text, 0, start)]
    after = edge.search(text, end)
    return (before[-1] if before else 0), (after.start() if after else len(text))


def _subject_in(words: list[str], context: GovernanceContext, label: str, groups: set[str] | None = None
                ) -> tuple[str, str] | None:
    for word in words:
        stem = _POSSESSIVE.sub(r"\1", word)
        group = context.subject_group(word) or context.subject_group(stem)
        if group is not None and (groups is None or group in groups) and context.applies(group, label) \
                and not context.head_only(word, group) and not context.head_only(stem, group):
            return word, group
    return None


def _attribute_of(text: str, match: Match, context: GovernanceContext, connectors: set[str]
                      ) -> tuple[str, str] | None:
    """The first word before the keyword past connectors, or the word right after it, when it names an attribute
    (``attribute_groups``) of what the keyword names ("la nationalité du passeport", "the passport expiry date":
    the document's nationality or expiry, not its number)."""
    before = [w for w in _WORD.findall(text[: match.start]) if w not in connectors][-1:]
    after = _WORD.findall(text[match.end:])[:1]  # a compound: "the passport expiry date"
    for word in [*before, *after]:
        group = context.subject_group(word)
        if group is not None and context.applies(group, match.label, before=True):
            return word, group
    return None


def _by_phrase(text: str, match: Match, context: GovernanceContext) -> tuple[str, str] | None:
    """The subject the keyword's phrase or sentence is about, when it is not a person (see the module doc)."""
    start, end = _bounds(text, match.start, match.end, _PHRASE_EDGE)
    phrase = _WORD.findall(text[start:match.start]) + _WORD.findall(text[match.end:end])
    if set(phrase) & context.persons():
        return None
    found = _subject_in(phrase, context, match.label)
    if found is not None or set(phrase) & context.possessives():
        return found
    s_start, s_end = _bounds(text, match.start, match.end, _SENTENCE_EDGE)
    sentence = _WORD.findall(text[s_start:s_end].replace("'s ", " ").replace("’s ", " "))
    return _subject_in(sentence, context, match.label, set(context.sentence_subject_groups))


def judge(texts: Iterable[str], rules: GovernanceRules) -> list[Judged]:
    """Every prohibited-category keyword found in ``texts``, each judged by its context."""
    index = rules.keyword_index()
    context = rules.context
    connectors = context.connector_words() if context is not None else set()
    found: list[Judged] = []
    for text in texts:
        folded = fold(text)
        for match in index.longest_first(folded):
            subject = group = None
            if context is not None:
                after = _WORD.findall(folded[match.end:])[:1]
                for word in _neighbour(folded, match, connectors):
                    stem = _POSSESSIVE.sub(r"\1", word)
                    group = context.subject_group(word) or context.subject_group(stem)
                    if group is not None and word not in after and \
                            (context.head_only(word, group) or context.head_only(stem, group)):
                        group = None  # "food allergies": a head group counts only as what the keyword qualifies
                    if group is not None and context.applies(group, match.label):
                        subject = word
                        break
                    group = None
                if subject is None and (other := _attribute_of(folded, match, context, connectors)) is not None:
                    subject, group = other
                if subject is None and (other := _by_phrase(folded, match, context)) is not None:
                    subject, group = other
            found.append(Judged(match, folded, subject, group))
    return found


def find_prohibited(texts: Iterable[str], rules: GovernanceRules) -> list[Match]:
    """Every prohibited-category keyword about the visitor found in ``texts`` (first hit per category), in
    category order."""
    return [j.match for j in prohibited(texts, rules)]


def prohibited(texts: Iterable[str], rules: GovernanceRules, ignore: frozenset[str] | set[str] = frozenset()
               ) -> list[Judged]:
    """Like ``find_prohibited``, with the phrase and the judgement of each hit (``ignore``: keywords already
    judged to be about another subject where the texts come from)."""
    hits: dict[str, Judged] = {}
    for judged in judge(texts, rules):
        if judged.about_visitor and judged.match.keyword not in ignore:
            hits.setdefault(judged.match.label, judged)
    order = [c.id for c in rules.categories]
    return sorted(hits.values(), key=lambda j: order.index(j.match.label))


def set_aside(texts: Iterable[str], rules: GovernanceRules) -> list[Judged]:
    """Keywords judged to be about another subject (for the reviewer's notes)."""
    return [j for j in judge(texts, rules) if not j.about_visitor]


def category_label(rules: GovernanceRules, category_id: str, language: str = "en") -> str:
    category = next(c for c in rules.categories if c.id == category_id)
    return category.label.get(language) or category.label["en"]


@lru_cache(maxsize=4)
def _rules_from_json(canonical: str) -> GovernanceRules:
    return load_governance_rules(json.loads(canonical))


def _as_rules(governance_rules: GovernanceRules | Mapping[str, Any]) -> GovernanceRules:
    """Typed rules; a mapping (``bundle.file('governance')``) is parsed once per distinct content."""
    if isinstance(governance_rules, GovernanceRules):
        return governance_rules
    return _rules_from_json(json.dumps(governance_rules, sort_keys=True, ensure_ascii=False))


def check_governance(
    spec: GoalSpec, governance_rules: GovernanceRules | Mapping[str, Any]
) -> list[tuple[str, str]]:
    """Issues ``(goalspec.prohibited_category, message)``, one per objective and category; empty = permitted."""
    rules = _as_rules(governance_rules)
    # Objective texts are written from the intent: a keyword the intent uses only about another subject (a car's
    # "diagnosis" among the workshop's services) keeps that reading in them; one used about the visitor anywhere
    # in the intent does not.
    in_intent = judge([spec.manager_intent], rules) if spec.manager_intent else []
    about_visitor = {j.match.keyword for j in in_intent if j.about_visitor}
    set_aside_keywords = {j.match.keyword for j in in_intent if not j.about_visitor} - about_visitor
    issues: list[tuple[str, str]] = []
    for objective in spec.ordered():
        texts = [objective.name, objective.criterion.description, *objective.questions.values()]
        for judged in prohibited(texts, rules, ignore=set_aside_keywords):
            if rules.exempt(judged.match.label, spec.id):
                continue
            issues.append((
                PROHIBITED_CATEGORY,
                f"objective '{objective.id}' asks for a prohibited data category: {judged.match.label} "
                f"({category_label(rules, judged.match.label)}; matched '{judged.match.keyword}' in "
                f"'{judged.phrase()}': {judged.reason()})",
            ))
    return issues
