"""The grounded answerer: ``engine.ports.Answerer`` over a company corpus (paper eqs. 6-8).

One call reads only the current visitor message (turn-local). Its output is a ``GroundedAnswer``: company
evidence with citations, never visitor evidence. Steps: question detection → TopK retrieval (eq. 7) → relevance
gate → synthesis (eq. 6) → per-claim support check (eq. 8) → answer, or the explicit unavailable-information
message of the visitor's language when nothing usable supports an answer.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import structlog

from engine.ports import Citation, GroundedAnswer
from engine.retrieval.analysis import AnalyzerSet
from engine.retrieval.filters import FieldFilter
from engine.retrieval.grounding import ClaimCheck, check_claim, query_coverage, relevance, unknown_names
from engine.retrieval.index import Retriever
from engine.retrieval.models import ScoredPassage
from engine.retrieval.questions import is_question, question_sentences
from engine.retrieval.rules import RetrievalRules
from engine.retrieval.synthesis import Synthesizer, render
from engine.text import normalize

log = structlog.get_logger("grace.retrieval")


@dataclass
class AnswerTrace:
    """Why an answer looks the way it does (for audit records and the benchmark)."""

    is_question: bool = False
    hits: list[ScoredPassage] = field(default_factory=list)
    coverage: dict[str, float] = field(default_factory=dict)
    relevance: dict[str, float] = field(default_factory=dict)
    unknown_names: list[str] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)  # passage ids that passed the relevance gate
    checks: list[ClaimCheck] = field(default_factory=list)
    ms: float = 0.0


class GroundedAnswerer:
    def __init__(
        self,
        retriever: Retriever,
        rules: RetrievalRules,
        analyzers: AnalyzerSet,
        synthesizer: Synthesizer,
        filters: Sequence[FieldFilter] = (),
    ) -> None:
        self.retriever = retriever
        self.rules = rules
        self.analyzers = analyzers
        self.synthesizer = synthesizer
        self.filters = tuple(filters)
        self._stopwords = frozenset().union(*(a.stopwords for a in analyzers.by_language.values()))

    def answer(self, message: str, language: str) -> GroundedAnswer:
        return self.answer_with_trace(message, language)[0]

    def _unavailable(self, language: str) -> GroundedAnswer:
        text = self.rules.language(language).unavailable_message
        return GroundedAnswer(text=text, citations=[], supported=False, is_question=True)

    def _evidence(
        self, message: str, hits: list[ScoredPassage], language: str, trace: AnswerTrace
    ) -> list[ScoredPassage]:
        settings = self.rules.grounding
        asked = question_sentences(message, self.rules.languages)
        if settings.reject_unknown_names:
            trace.unknown_names = unknown_names(" ".join(asked), self.retriever.vocabulary, self._stopwords)
            if trace.unknown_names:
                return []
        # Coverage is taken over the whole message and over its question sentences alone, whichever is higher:
        # "My budget is 450.000 EUR. Do you have parking?" asks only about parking.
        views = [self.analyzers.query_words(message)]
        if asked:
            views.append(self.analyzers.query_words(" ".join(asked)))
        scored: list[tuple[float, ScoredPassage]] = []
        for hit in hits:
            terms = self.retriever.passage_terms[hit.passage.id]
            coverage = max(query_coverage(words, terms, self.retriever.term_stats) for words in views)
            trace.coverage[hit.passage.id] = round(coverage, 4)
            score = relevance(hit, coverage, settings)
            trace.relevance[hit.passage.id] = round(score, 4)
            if score >= settings.min_relevance:
                scored.append((score, hit))
        same_language = [pair for pair in scored if pair[1].passage.language == language]
        if same_language or not settings.cross_language_fallback:
            scored = same_language
        if not scored:
            return []
        scored.sort(key=lambda pair: -pair[0])
        best = scored[0][0]
        return [hit for score, hit in scored if score >= best - settings.secondary_margin][: settings.max_passages]

    def answer_with_trace(self, message: str, language: str) -> tuple[GroundedAnswer, AnswerTrace]:
        started = time.perf_counter()
        self.rules.language(language)  # unknown language: fail closed before doing anything
        text = normalize(message)
        trace = AnswerTrace(is_question=is_question(text, self.rules))
        if not trace.is_question:
            result = GroundedAnswer(text="", supported=False, is_question=False)
            return self._done(result, trace, started, len(text))
        trace.hits = self.retriever.search(text, self.rules.retrieval.top_k, self.filters)
        evidence = self._evidence(text, trace.hits, language, trace)
        trace.evidence = [h.passage.id for h in evidence]
        if not evidence:
            return self._done(self._unavailable(language), trace, started, len(text))
        claims = self.synthesizer.synthesize(text, evidence, language)
        by_id = {h.passage.id: h.passage for h in evidence}
        trace.checks = [check_claim(c, by_id, self.analyzers, self.rules.grounding) for c in claims]
        kept = [c.claim for c in trace.checks if c.supported]
        if not kept:
            return self._done(self._unavailable(language), trace, started, len(text))
        citations = [Citation(source=by_id[c.passage_id].source, passage_id=c.passage_id, quote=c.text) for c in kept]
        result = GroundedAnswer(text=render(kept), citations=citations, supported=True, is_question=True)
        return self._done(result, trace, started, len(text))

    def _done(
        self, result: GroundedAnswer, trace: AnswerTrace, started: float, chars: int
    ) -> tuple[GroundedAnswer, AnswerTrace]:
        trace.ms = (time.perf_counter() - started) * 1000
        # The visitor's words are not logged (they may hold personal data): only sizes and decisions.
        log.info(
            "retrieval.answer.done",
            chars=chars,
            is_question=result.is_question,
            supported=result.supported,
            evidence=trace.evidence,
            dropped_claims=sum(1 for c in trace.checks if not c.supported),
            ms=round(trace.ms, 2),
        )
        return result, trace
