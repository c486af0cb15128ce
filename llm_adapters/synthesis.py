"""LLM grounded synthesis (paper eq. 6) behind engine.retrieval's Synthesizer protocol.

The model writes the answer from the retrieved passages only; its sentences become claims citing the passage
they overlap most, and the answerer's deterministic claim check (eq. 8) still drops anything unsupported. Any
model failure falls back to the extractive synthesizer, so the visitor always gets a grounded answer or the
explicit unavailable-information message.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import structlog

from engine.kernel.turn_context import TurnContext
from engine.retrieval.analysis import split_sentences
from engine.retrieval.grounding import Claim
from engine.retrieval.models import ScoredPassage
from engine.retrieval.synthesis import Synthesizer
from llm_adapters.errors import LLMError
from llm_adapters.protocol import LLMRoles, Passage, SynthesisRequest

log = structlog.get_logger("grace.llm")
_WORD = re.compile(r"\w+", re.UNICODE)


def _words(text: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(text) if len(w) > 2}


class LLMSynthesizer:
    def __init__(self, adapter: LLMRoles, fallback: Synthesizer) -> None:
        self.adapter = adapter
        self.fallback = fallback
        self.name = f"llm:{adapter.name}/{adapter.version}"

    def synthesize(self, message: str, evidence: Sequence[ScoredPassage], language: str,
                   context: TurnContext | None = None) -> list[Claim]:
        """``context``: the turn's deadline and ledger (this call and any fallback join the turn's record);
        outside a turn (None) the call has no deadline and is recorded nowhere."""
        ledger = context if context is not None else TurnContext()
        passages = [Passage(passage_id=h.passage.id, source=h.passage.source, text=h.passage.text) for h in evidence]
        try:
            result = self.adapter.synthesize(SynthesisRequest(message=message, language=language, passages=passages,
                                                              context=context))
        except LLMError as exc:
            log.warning("llm.synthesize.fallback_extractive", code=exc.code)
            if exc.call:
                ledger.record_call(exc.call)
            ledger.record_note(f"synthesis.fallback_extractive: {exc.code}")
            return self.fallback.synthesize(message, evidence, language, context)
        ledger.record_call(result.call.to_record())
        answer = result.output
        if not answer.supported or not answer.text.strip():
            return []
        cited = {c.passage_id for c in answer.citations} or {h.passage.id for h in evidence}
        texts = {h.passage.id: _words(h.passage.text) for h in evidence if h.passage.id in cited}
        claims = []
        for sentence in split_sentences(answer.text):
            words = _words(sentence)
            best = max(texts, key=lambda pid: len(words & texts[pid]), default=None)
            if best is not None:
                claims.append(Claim(text=sentence, passage_id=best))
        return claims
