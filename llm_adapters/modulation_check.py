"""Meaning preservation of modulated questions (paper eq. 5), checked deterministically.

A modulated question is accepted only if it is exactly one question, at most ``max_chars`` long, and still
names its objective: it shares at least ``min_shared_terms`` content terms with the objective's core (its
name and vocabulary terms) or at least ``min_shared_question_terms`` (fewer if it has fewer) with its
canonical question. Terms are case/accent-folded, Snowball-stemmed, without stopwords (rules/llm.json
``modulation``). When the other objectives are given, terms they share are not distinctive and do not count,
and a question naming more of another objective's distinctive terms than of this one's is rejected. A
rejected modulation falls back to the canonical question.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from engine.kernel.goal_models import Objective
from engine.text import fold, normalize
from llm_adapters.config import ModulationRules, load_modulation_rules

_STEMMER_LANGUAGES = {"en": "english", "es": "spanish"}
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class ModulationCheck:
    accepted: bool
    code: str  # "modulation.ok" or the reason of the rejection
    question: str  # the question to ask: the modulated one if accepted, else the canonical one
    matched: list[str] = field(default_factory=list)  # anchor terms the modulated question names


@lru_cache(maxsize=8)
def _stemmer(language: str) -> Any:
    name = _STEMMER_LANGUAGES.get(language)
    if name is None:
        return None
    import Stemmer

    return Stemmer.Stemmer(name)


@lru_cache(maxsize=1)
def _default_rules() -> ModulationRules:
    return load_modulation_rules()


def content_terms(text: str, language: str, rules: ModulationRules) -> set[str]:
    """Folded, stemmed content words of ``text`` (stopwords, numbers and short words removed)."""
    stop = {fold(w) for w in rules.stopwords.get(language, [])}
    words = [w for w in _WORD.findall(fold(text))
             if len(w) >= rules.min_term_length and not w.isdigit() and w not in stop]
    stemmer = _stemmer(language)
    return set(stemmer.stemWords(words)) if stemmer is not None else set(words)


@dataclass(frozen=True)
class Anchors:
    core: set[str]  # name + vocabulary terms
    question: set[str]  # canonical question terms

    @property
    def all(self) -> set[str]:
        return self.core | self.question


def anchors_of(objective: Objective, language: str, rules: ModulationRules,
               vocabulary_terms: Iterable[str] = ()) -> Anchors:
    core = set().union(*(content_terms(t, language, rules) for t in [objective.name, *vocabulary_terms]))
    if language in objective.questions:
        question = content_terms(objective.questions[language], language, rules)
    else:
        question = set().union(*(content_terms(q, lang, rules) for lang, q in objective.questions.items()))
    return Anchors(core=core, question=question)


def check_modulation(
    objective: Objective,
    question: str,
    language: str,
    *,
    rules: ModulationRules | None = None,
    vocabulary_terms: Iterable[str] = (),
    others: Sequence[Objective] = (),
) -> ModulationCheck:
    """Accept ``question`` as a rephrasing of ``objective``'s canonical question, or fall back to it."""
    rules = rules or _default_rules()
    canonical = objective.question(language, next(iter(objective.questions)))

    def reject(code: str) -> ModulationCheck:
        return ModulationCheck(accepted=False, code=code, question=canonical)

    text = " ".join(normalize(question).split())
    if not text:
        return reject("modulation.empty")
    if len(text) > rules.max_chars:
        return reject("modulation.too_long")
    if text.count("?") != 1:
        return reject("modulation.not_one_question")
    mine = anchors_of(objective, language, rules, vocabulary_terms)
    theirs = [anchors_of(o, language, rules).all for o in others if o.id != objective.id]
    shared = set().union(*theirs) if theirs else set()
    core = (mine.core - shared) or mine.core
    canonical_terms = (mine.question - shared) or mine.question
    terms = content_terms(text, language, rules)
    matched = sorted(terms & (core | canonical_terms))
    question_threshold = min(rules.min_shared_question_terms, max(len(canonical_terms), 1))
    if len(terms & core) < rules.min_shared_terms and len(terms & canonical_terms) < question_threshold:
        return reject("modulation.off_objective")
    for other in theirs:
        if len(terms & (other - mine.all)) > len(matched):
            return reject("modulation.other_objective")
    return ModulationCheck(accepted=True, code="modulation.ok", question=text, matched=matched)
