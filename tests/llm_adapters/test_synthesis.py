"""LLM synthesis behind the retrieval protocol: invented claims are dropped, failures fall back to extraction."""

from __future__ import annotations

from pathlib import Path

from engine.kernel.ports import Citation, GroundedAnswer
from engine.retrieval.answerer import GroundedAnswerer
from engine.retrieval.factory import build_answerer
from llm_adapters.errors import LLMError
from llm_adapters.protocol import CallRecord, RoleResult, SynthesisRequest
from llm_adapters.synthesis import LLMSynthesizer
from tests.retrieval.project_rules import project_rules

CORPUS = Path(__file__).resolve().parents[2] / "demos" / "real_estate" / "corpus"
CALL = CallRecord(purpose="synthesize", adapter="fake", model="m", prompt_id="s", prompt_version="1",
                  prompt_hash="sha256:" + "0" * 64, latency_ms=1.0)


class _Adapter:
    name = "fake"
    version = "1"

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.requests: list[SynthesisRequest] = []

    def synthesize(self, request: SynthesisRequest) -> RoleResult[GroundedAnswer]:
        self.requests.append(request)
        if self.fail:
            raise LLMError("no tool call", code="llm.output_invalid")
        nie = next(p for p in request.passages if "NIE" in p.text)
        supported = next(s for s in nie.text.replace("\n", " ").split(". ") if "NIE" in s).strip().rstrip(".") + "."
        text = f"{supported} Every buyer also receives a free sports car from the agency."
        return RoleResult(GroundedAnswer(text=text, citations=[Citation(source=nie.source, passage_id=nie.passage_id,
                                                                         quote="NIE")],
                                         supported=True, is_question=True), CALL)


def _answerer() -> GroundedAnswerer:
    return build_answerer(CORPUS, rules=project_rules())


def test_unsupported_llm_claims_are_dropped() -> None:
    answerer = _answerer()
    answerer.synthesizer = LLMSynthesizer(_Adapter(), answerer.synthesizer)  # type: ignore[arg-type]
    answer = answerer.answer("As a foreign buyer, what documents do I need to buy a home in Spain?", "en")
    assert answer.supported and "NIE" in answer.text
    assert "sports car" not in answer.text


def test_llm_failure_falls_back_to_extractive_answer() -> None:
    answerer = _answerer()
    adapter = _Adapter(fail=True)
    answerer.synthesizer = LLMSynthesizer(adapter, answerer.synthesizer)  # type: ignore[arg-type]
    answer = answerer.answer("As a foreign buyer, what documents do I need to buy a home in Spain?", "en")
    assert adapter.requests and answer.supported and "NIE" in answer.text
