"""Grounded synthesis G_RAG(u_t, D_t) (paper eq. 6). The offline default is extractive: the answer is made of
sentences of the usable retrieved passages, each citing its passage. Other synthesizers (an LLM) plug in behind
the same protocol; whatever they return is re-checked claim by claim before it reaches the visitor.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from engine.kernel.turn_context import TurnContext
from engine.retrieval.analysis import AnalyzerSet, QueryWord, TermStats, split_sentences
from engine.retrieval.grounding import Claim, query_coverage
from engine.retrieval.models import ScoredPassage
from engine.retrieval.retrieval_rules import GroundingSettings
from engine.text import normalize


class Synthesizer(Protocol):
    name: str

    def synthesize(self, message: str, evidence: Sequence[ScoredPassage], language: str,
                   context: TurnContext | None = None) -> list[Claim]:
        """``context``: the turn's deadline and ledger (a synthesizer that calls a model records the call there)."""
        ...


def _bullet_lines(text: str) -> set[str]:
    """Sentences that were list items in the passage body (rendered as a list again)."""
    out: set[str] = set()
    for raw in normalize(text).splitlines():
        stripped = raw.strip()
        if stripped[:2] in ("- ", "* ", "+ ", "• "):
            out.update(split_sentences(stripped))
    return out


class ExtractiveSynthesizer:
    """Picks whole sentences: all of a short passage (a Q&A answer), else the best-matching ones in order."""

    name = "extractive/1"

    def __init__(self, analyzers: AnalyzerSet, stats: TermStats, settings: GroundingSettings) -> None:
        self.analyzers = analyzers
        self.stats = stats
        self.settings = settings

    def _pick(self, words: Sequence[QueryWord], hit: ScoredPassage) -> list[str]:
        sentences = split_sentences(hit.passage.text)
        limit = self.settings.max_sentences_per_passage
        if len(sentences) <= limit:
            return sentences
        analyzer = self.analyzers.for_language(hit.passage.language)
        scored = [
            (query_coverage(words, frozenset(analyzer.terms(s)), self.stats), -i, s) for i, s in enumerate(sentences)
        ]
        best = sorted(scored, reverse=True)[:limit]
        keep = {s for cov, _, s in best if cov > 0} or {best[0][2]}
        return [s for s in sentences if s in keep]

    def synthesize(self, message: str, evidence: Sequence[ScoredPassage], language: str,
                   context: TurnContext | None = None) -> list[Claim]:
        words = self.analyzers.query_words(message)
        claims: list[Claim] = []
        for hit in evidence:
            bullets = _bullet_lines(hit.passage.text)
            claims.extend(Claim(text=s, passage_id=hit.passage.id, bullet=s in bullets) for s in self._pick(words, hit))
        return claims


def render(claims: Sequence[Claim]) -> str:
    """Answer text: sentences separated by spaces, list items on their own lines."""
    parts: list[str] = []
    for claim in claims:
        if claim.bullet:
            parts.append(f"\n- {claim.text}")
        else:
            parts.append(("\n" if parts and parts[-1].startswith("\n- ") else " ") + claim.text)
    return "".join(parts).strip()
