"""LLM roles inside the turn runtime: offline fallback for proposing, LLM rubric with offline fallback."""

from __future__ import annotations

from typing import Any

from engine.demos import load_demo
from engine.kernel.ports import Proposal, ProposerInput
from engine.kernel.turn import TurnRuntime
from engine.rules.loader import DEFAULT_RULES_DIR, load_bundle
from engine.storage.memory import InMemoryStore
from llm_adapters.errors import LLMError
from llm_adapters.offline import OfflineProposer
from llm_adapters.protocol import CallRecord, RoleResult, UtilityRequest
from llm_adapters.runtime_roles import FallbackProposer, LLMTurnRater
from llm_adapters.schemas import ObjectiveUtility, RubricScore, UtilityRatings

CALL = {"purpose": "propose", "adapter": "fake", "model": "m", "prompt_id": "p", "status": "llm.timeout",
        "error_code": "llm.timeout", "latency_ms": 1.0}


class _Adapter:
    name = "fake-llm"
    version = "1"

    def __init__(self, levels: dict[str, tuple[float, float, float, float]] | None = None,
                 fail_rating: bool = False) -> None:
        self.levels = levels or {}
        self.fail_rating = fail_rating

    def propose(self, request: ProposerInput) -> Proposal:
        raise LLMError("timed out", code="llm.timeout", call=CALL)

    def rate_utility(self, request: UtilityRequest) -> RoleResult[UtilityRatings]:
        if self.fail_rating:
            raise LLMError("bad output", code="llm.output_invalid", call={**CALL, "purpose": "rate_utility"})
        ratings = [
            ObjectiveUtility(objective=oid, relevance=RubricScore(level=r, rationale="r"),
                             burden=RubricScore(level=b, rationale="b"), repetition=RubricScore(level=d, rationale="d"),
                             privacy=RubricScore(level=p, rationale="p"))
            for oid, (r, b, d, p) in self.levels.items() if oid in request.candidates
        ]
        call = CallRecord(purpose="rate_utility", adapter="fake", model="m", prompt_id="rate", prompt_version="1",
                          prompt_hash="sha256:" + "0" * 64, latency_ms=1.0)
        return RoleResult(output=UtilityRatings(ratings=ratings), call=call)


def _runtime(adapter: Any, rate: bool) -> TurnRuntime:
    bundle = load_bundle(DEFAULT_RULES_DIR, require_published=False)
    offline = OfflineProposer.from_bundle(bundle)
    return TurnRuntime(spec=load_demo("real-estate").spec, bundle=bundle, proposer=FallbackProposer(adapter, offline),
                       answerer=None, store=InMemoryStore(), audit_key=b"k" * 32,
                       rater=LLMTurnRater(adapter) if rate else None)


def test_failed_llm_proposal_falls_back_to_offline_and_is_recorded() -> None:
    runtime = _runtime(_Adapter(), rate=False)
    cid = runtime.start().conversation_id
    result = runtime.handle(cid, "My budget is below 350.000 EUR")
    assert result.state == "1000"
    assert "proposer.fallback_offline: llm.timeout" in result.record["notes"]
    assert result.record["llm_calls"][0]["error_code"] == "llm.timeout"


def test_llm_rubric_drives_the_choice_and_invalid_ratings_fall_back() -> None:
    # the LLM judges the location question a burden right now (R=0, B=1): the next open objective is asked
    runtime = _runtime(_Adapter({"location": (0.0, 1.0, 0.0, 0.0), "requirements": (1.0, 0.0, 0.0, 0.0),
                                 "contact": (1.0, 0.0, 0.0, 0.5)}), rate=True)
    cid = runtime.start().conversation_id
    result = runtime.handle(cid, "My budget is below 350.000 EUR")
    assert result.action == "ASK(requirements)"
    assert any(c["purpose"] == "rate_utility" for c in result.record["llm_calls"])
    location = next(u for u in result.record["utilities"] if u["action"] == "ASK(location)")
    assert location["R"]["value"] == 0.0 and not location["feasible"]

    failing = _runtime(_Adapter(fail_rating=True), rate=True)
    cid = failing.start().conversation_id
    result = failing.handle(cid, "My budget is below 350.000 EUR")
    assert result.action == "ASK(location)"  # offline rubric
    assert "rubric.fallback_offline: llm.output_invalid" in result.record["notes"]


def test_an_objective_the_llm_did_not_rate_falls_back_with_a_typed_reason() -> None:
    # the model rates location only; requirements and contact keep the offline rubric and the note names the code
    runtime = _runtime(_Adapter({"location": (1.0, 0.0, 0.0, 0.0)}), rate=True)
    cid = runtime.start().conversation_id
    result = runtime.handle(cid, "My budget is below 350.000 EUR")
    notes = result.record["notes"]
    assert "rubric.fallback_offline: rubric.not_rated requirements" in notes
    assert "rubric.fallback_offline: rubric.not_rated contact" in notes
    assert not any("not_rated location" in note for note in notes)
