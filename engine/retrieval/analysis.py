"""Text analysis shared by lexical retrieval, the relevance gate and the claim-support check.

Tokens are accent- and case-folded (``engine.text.fold``) so that "mármol" and "marmol" match; numbers written
with thousands separators ("350.000", "350,000") become one digit string so prices compare exactly.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import Stemmer

from engine.retrieval.retrieval_rules import LanguageRules, RetrievalRules
from engine.text import fold, normalize

# A grouped number (1.234.567 / 1,234), a plain or decimal number, or a word (letters, inner apostrophe).
# A digit run glued to letters ("3d", "4k", "5g") is one word: splitting it would lose what it names.
_TOKEN = re.compile(
    r"\d{1,3}(?:[.,]\d{3})+(?![\d])|\d+[^\W\d_]+(?![.,]?\d)|\d+(?:[.,]\d+)?|[^\W\d_]+(?:['’][^\W\d_]+)?"
)
_GROUPED = re.compile(r"^\d{1,3}(?:[.,]\d{3})+$")
# Sentence ends: . ! ? followed by space; bullet lines are separate sentences (handled by line splitting).
# a run of dots is a leader ("Torno ...... 245 €") or an ellipsis, not a sentence end: the price stays on its line
_SENTENCE_END = re.compile(r"(?<=[.!?])(?<!\.\.)\s+")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")


def tokens(text: str) -> list[str]:
    """Folded surface tokens in order, numbers canonicalised (thousand separators removed)."""
    out: list[str] = []
    for match in _TOKEN.finditer(fold(text)):
        token = match.group(0).replace("’", "'")
        if _GROUPED.match(token):
            token = token.replace(".", "").replace(",", "")
        out.append(token)
    return out


def is_number(token: str) -> bool:
    return token[:1].isdigit() and not any(ch.isalpha() for ch in token)


@lru_cache(maxsize=16)
def _stemmer(algorithm: str) -> Stemmer.Stemmer:
    return Stemmer.Stemmer(algorithm)


@dataclass(frozen=True)
class Analyzer:
    """Per-language analysis: fold, drop stopwords, Snowball-stem. Numbers pass through unstemmed."""

    language: str
    stemmer_name: str
    stopwords: frozenset[str]
    negations: frozenset[str]

    @classmethod
    def from_rules(cls, language: str, rules: LanguageRules) -> Analyzer:
        return cls(
            language=language,
            stemmer_name=rules.stemmer,
            stopwords=frozenset(fold(w) for w in rules.stopwords),
            negations=frozenset(fold(w) for w in rules.negations),
        )

    def terms(self, text: str) -> list[str]:
        """Content terms: stemmed non-stopword words plus numbers, in order (duplicates kept)."""
        words = tokens(text)
        stemmer = _stemmer(self.stemmer_name)
        out: list[str] = []
        for word in words:
            if is_number(word):
                out.append(word)
            elif word not in self.stopwords and len(word) > 1:
                out.append(stemmer.stemWord(word))
        return out

    def stem(self, word: str) -> str:
        """The index term of one folded word (numbers unchanged), stopword or not."""
        return word if is_number(word) else _stemmer(self.stemmer_name).stemWord(word)

    def negation_terms(self, text: str) -> set[str]:
        return {word for word in tokens(text) if word in self.negations}


@dataclass(frozen=True)
class AnalyzerSet:
    """The analyzers of every language the rules know. Queries are analysed with all of them, since
    visitors switch language mid-conversation (paper B10, S22) and retrieval must not depend on the label."""

    by_language: dict[str, Analyzer]

    @classmethod
    def from_rules(cls, rules: RetrievalRules) -> AnalyzerSet:
        return cls({code: Analyzer.from_rules(code, lang) for code, lang in rules.languages.items()})

    def for_language(self, language: str) -> Analyzer:
        analyzer = self.by_language.get(language)
        if analyzer is None:
            from engine.retrieval.errors import RetrievalRulesError

            raise RetrievalRulesError(
                f"language {language!r} has no retrieval rules", code="retrieval.language.unsupported"
            )
        return analyzer

    def query_words(self, text: str) -> list[QueryWord]:
        """Distinct content words of a query, each with its stem under every language's analyzer.

        A word that is a stopword in any language is dropped: a Spanish "con" must not become an English
        content term.
        """
        stop = frozenset().union(*(a.stopwords for a in self.by_language.values()))
        seen: dict[str, QueryWord] = {}
        for word in tokens(text):
            if word in seen or word in stop or (len(word) < 2 and not is_number(word)):
                continue
            if is_number(word):
                variants = frozenset({word})
            else:
                variants = frozenset(_stemmer(a.stemmer_name).stemWord(word) for a in self.by_language.values())
            seen[word] = QueryWord(surface=word, variants=variants)
        return list(seen.values())

    def query_terms(self, text: str) -> list[str]:
        """Distinct index terms to look up for a query (all variants of all content words)."""
        out: dict[str, None] = {}
        for word in self.query_words(text):
            for variant in sorted(word.variants):
                out.setdefault(variant, None)
        return list(out)


@dataclass(frozen=True)
class QueryWord:
    surface: str
    variants: frozenset[str]


@dataclass
class TermStats:
    """Document frequencies of passage terms, for IDF weights in the relevance gate."""

    num_docs: int = 0
    doc_freq: dict[str, int] = field(default_factory=dict)

    @classmethod
    def build(cls, documents: Sequence[Iterable[str]]) -> TermStats:
        stats = cls(num_docs=len(documents))
        for terms in documents:
            for term in set(terms):
                stats.doc_freq[term] = stats.doc_freq.get(term, 0) + 1
        return stats

    def idf(self, term: str) -> float:
        """BM25-style IDF, always positive. A term absent from the corpus gets the largest weight: a question
        about something the corpus never mentions is the typical unanswerable question."""
        n = self.doc_freq.get(term, 0)
        return math.log(1.0 + (self.num_docs - n + 0.5) / (n + 0.5))


def split_sentences(text: str) -> list[str]:
    """Sentences of a passage body: every non-empty line, then sentence punctuation inside a line.

    Bullet markers are kept off the sentence text; the caller decides how to render list items.
    """
    out: list[str] = []
    for raw_line in normalize(text).splitlines():
        line = _BULLET.sub("", raw_line).strip()
        if not line:
            continue
        out.extend(part.strip() for part in _SENTENCE_END.split(line) if part.strip())
    return out


def is_bullet(line: str) -> bool:
    return bool(_BULLET.match(line))
