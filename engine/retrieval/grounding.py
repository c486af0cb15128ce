"""Grounding checks: is every claim of an answer supported by a retrieved passage (paper eq. 8:
c ∈ Claims(r_t) ⇒ ∃ d ∈ D_t : d ⊨ c), and which capitalised names a question uses that the corpus lacks.
Whether a passage can answer at all is decided in answerability.py.

Both are deterministic. ``d ⊨ c`` is approximated conservatively: the claim is a sentence of ``d`` verbatim, or
(for synthesizers that rephrase) nearly all its content terms occur in ``d``, every number it states occurs in
``d`` and it adds no negation that ``d`` lacks. A claim that fails is dropped, never repaired.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from engine.retrieval.analysis import AnalyzerSet, QueryWord, TermStats, is_number, split_sentences, tokens
from engine.retrieval.models import Passage
from engine.retrieval.names import is_acronym, is_ordinary
from engine.retrieval.retrieval_rules import GroundingSettings
from engine.text import fold

_SENTENCE_SPLIT = re.compile(r"[.!?¿¡:;\n]+")
_CASED_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")


class Claim(BaseModel):
    """One sentence of an answer and the passage it cites."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str
    passage_id: str
    bullet: bool = False


@dataclass(frozen=True)
class ClaimCheck:
    claim: Claim
    supported: bool
    reason: str  # "verbatim" | "terms" | stable failure reason


def query_coverage(words: Sequence[QueryWord], terms: frozenset[str], stats: TermStats) -> float:
    """IDF-weighted share of the query's content words found in ``terms`` (0 when the query has none).

    A word's weight is the IDF of its most frequent in-corpus variant, or the unseen-term IDF if no variant
    occurs anywhere: an unmatched rare concept ("schools") outweighs matched common ones ("properties").
    """
    total = matched = 0.0
    for word in words:
        if is_number(word.surface):
            continue  # a number in a question is a constraint (a budget), not a topic the passage must name
        known = [stats.idf(v) for v in word.variants if stats.doc_freq.get(v, 0) > 0]
        weight = min(known) if known else stats.idf("\x00unseen")
        total += weight
        if word.variants & terms:
            matched += weight
    return matched / total if total > 0 else 0.0


def unknown_names(
    question: str,
    vocabulary: frozenset[str],
    stopwords: frozenset[str],
    ordinary: frozenset[str] = frozenset(),
) -> list[str]:
    """Capitalised words inside a question (not sentence-initial) that the corpus never mentions.

    "Do you have properties in Marbella?" names a place the corpus does not know: retrieval will still find
    passages about properties, but none of them can answer the question. Acronyms ("SSO", "IVA") and ordinary
    capitalised words (``ordinary``: months, weekdays, countries, regions, languages) are not unknown names.
    """
    found: list[str] = []
    for sentence in _SENTENCE_SPLIT.split(question):
        words = _CASED_WORD.findall(sentence)
        for word in words[1:]:
            if len(word) < 2 or not word[0].isupper() or is_acronym(word):
                continue
            folded = fold(word)
            if folded in stopwords or folded in vocabulary or is_ordinary(folded, ordinary):
                continue
            found.append(word)
    return found


def _claim_terms_supported(claim: Claim, passage: Passage, analyzers: AnalyzerSet, threshold: float) -> str | None:
    analyzer = analyzers.for_language(passage.language)
    claim_terms = analyzer.terms(claim.text)
    if not claim_terms:
        return "claim.no_content"
    passage_terms = set(analyzer.terms(passage.indexed_text()))
    passage_tokens = set(tokens(passage.indexed_text()))
    if any(t not in passage_tokens for t in tokens(claim.text) if is_number(t)):
        return "claim.number_unsupported"
    if not analyzer.negation_terms(claim.text) <= analyzer.negation_terms(passage.indexed_text()):
        return "claim.negation_unsupported"
    support = sum(1 for t in claim_terms if t in passage_terms) / len(claim_terms)
    return None if support >= threshold else "claim.terms_unsupported"


def check_claim(
    claim: Claim, evidence: dict[str, Passage], analyzers: AnalyzerSet, settings: GroundingSettings
) -> ClaimCheck:
    passage = evidence.get(claim.passage_id)
    if passage is None:
        return ClaimCheck(claim, False, "claim.citation_not_retrieved")
    wanted = fold(claim.text).strip()
    if any(fold(sentence).strip() == wanted for sentence in split_sentences(passage.text)):
        return ClaimCheck(claim, True, "verbatim")
    failure = _claim_terms_supported(claim, passage, analyzers, settings.min_claim_support)
    return ClaimCheck(claim, failure is None, failure or "terms")
