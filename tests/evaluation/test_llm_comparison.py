"""``grace eval --llm``'s comparison: a weak (here: random) model behind the rules cannot corrupt state, and the
summary counts what the LLM path did. The model is a scripted OpenAI-compatible server streaming random proposals."""

from __future__ import annotations

import json
from typing import Any

import httpx2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.evaluation.comparison import guarantees, percentile, summarize
from engine.evaluation.dataset import parse_dataset
from engine.evaluation.guarantees import turn_violations
from engine.evaluation.runner import ConversationRun, run_dataset
from engine.evaluation.targets import candidate_targets
from llm_adapters.adapter import LLMAdapter
from llm_adapters.config import load_llm_settings
from llm_adapters.offline import OfflineProposer
from llm_adapters.openai_compat import openai_compat_backend
from llm_adapters.wiring import llm_roles
from tests.llm_adapters.llm_wire_harness import SSEBody, sse_from_completion
from tests.proposer.helpers import DEMO_SPECS, project_bundle

TURNS = ["My budget is below 350.000 EUR", "I want to live in Mojácar, the agent said Vera is nice.",
         "Write to me at ana@example.org"]
DATASET = parse_dataset({
    "name": "weak-model",
    "configs": {"real_estate": {"language": "en", "objectives": [
        {"id": "budget"}, {"id": "location"}, {"id": "requirements"}, {"id": "contact"}]}},
    "conversations": [{"id": "c1", "config": "real_estate", "turns": [
        {"turn": i + 1, "visitor": text, "reference": "0000", "scored": True} for i, text in enumerate(TURNS)]}],
})
OBJECTIVES = ["budget", "location", "requirements", "contact", "unknown_objective"]
QUOTES = st.one_of(st.sampled_from(["350.000 EUR", "Mojácar", "Vera", "ana@example.org", "three bedrooms",
                                    "What budget range do you have in mind"]), st.text(min_size=1, max_size=20))
COMMAND = st.fixed_dictionaries({
    "type": st.sampled_from(["complete", "correct", "refuse", "uncertain", "stop", "resume"]),
    "objective": st.sampled_from(OBJECTIVES), "quote": QUOTES,
    "value": st.sampled_from(["350000 EUR", "Mojácar", "Vera", "ana@example.org", "yes", "-1"]),
    "turn": st.sampled_from([None, 1, 2, 3, 9])})


class WeakModel:
    """Streams scripted proposals for the propose role and unusable JSON for every other role."""

    def __init__(self, proposals: list[list[dict[str, Any]]]) -> None:
        self.proposals = list(proposals)
        self.requests = 0

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        if "input" in body:
            return httpx2.Response(200, json={"count": len(body["input"].split())})
        self.requests += 1
        proposing = "commands" in body["response_format"]["schema"].get("properties", {})  # EvidenceProposal
        commands = self.proposals.pop(0) if proposing and self.proposals else None
        content = json.dumps({"commands": commands}) if commands is not None else "{\"nothing\": true}"
        completion = {"id": "x", "model": "weak", "choices": [{"finish_reason": "stop",
                                                               "message": {"role": "assistant", "content": content}}]}
        return httpx2.Response(200, headers={"content-type": "text/event-stream"},
                               stream=SSEBody(sse_from_completion(completion)))


def _run(proposals: list[list[dict[str, Any]]]) -> tuple[list[ConversationRun], list[ConversationRun]]:
    bundle = project_bundle()
    demos = candidate_targets(list(DEMO_SPECS.values()), bundle, with_answerer=False)
    proposer = OfflineProposer.from_bundle(bundle)
    llm_settings = load_llm_settings(bundle.file("llm"), provider="llamacpp").with_overrides(max_reasks=0,
                                                                                              transport_retries=0)
    backend = openai_compat_backend(llm_settings, http_client=httpx2.Client(transport=httpx2.MockTransport(
        WeakModel(proposals))), environ={})
    adapter = LLMAdapter(backend, llm_settings)
    offline = run_dataset(DATASET, demos, bundle=bundle, proposer=proposer)
    weak = run_dataset(DATASET, demos, bundle=bundle, proposer=proposer,
                       roles=llm_roles(adapter))
    return offline, weak


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(COMMAND, max_size=4), min_size=len(TURNS), max_size=len(TURNS)))
def test_a_random_model_cannot_break_the_guarantees(proposals: list[list[dict[str, Any]]]) -> None:
    offline, weak = _run(proposals)
    base, model = summarize("offline", offline), summarize("weak", weak)
    checks = {g.name: g for g in guarantees(base, model)}
    assert checks["monotonic consistency 100%"].held
    assert checks["no completion without an accepted visitor span"].held, model.violations
    assert checks["every rejected candidate has its reason code"].held
    assert all(code for code in model.rejected)
    # every role that produced nothing usable fell back, once per turn, with the reason
    assert model.fallback_turns("rate_utility") + model.fallback_turns("modulate") > 0
    assert model.calls > 0 and len(model.output_tokens) == len(TURNS)


def test_the_summary_counts_fallbacks_rejections_and_tokens() -> None:
    proposals = [[{"type": "complete", "objective": "budget", "quote": "350.000 EUR", "value": "350000 EUR"}],
                 [{"type": "complete", "objective": "location", "quote": "Vera", "value": "Vera"},
                  {"type": "complete", "objective": "contact", "quote": "not said", "value": "x@y.org"}],
                 []]
    offline, weak = _run(proposals)
    model = summarize("weak", weak)
    assert model.turns == len(TURNS) and model.violations == ()
    assert model.fallback_turns("propose") == 0  # every proposal was valid JSON
    assert sum(model.rejected.values()) >= 1 and all("." in code for code in model.rejected)
    assert set(model.prompt_tokens) >= {"propose"} and min(model.prompt_tokens["propose"]) > 0
    assert summarize("offline", offline).calls == 0


def test_violations_are_found_in_records() -> None:
    record = {"turn": 2, "state_before": {"bits": [0, 0]}, "state_after": {"bits": [1, 0]}, "candidates": [
        {"command": {"type": "complete", "objective": "a"}, "accepted": True, "reason_code": "accepted",
         "witness": {"turn": 2, "start": 0, "end": 50}},
        {"command": {"type": "refuse", "objective": "b"}, "accepted": False, "reason_code": None}]}
    problems = turn_violations(record, ["a", "b"], {1: "hello", 2: "my budget"})
    assert "t2: accepted complete(a) without a visitor span" in problems  # span past the message's end
    assert "t2: a completed without an accepted visitor span" in problems
    assert "t2: rejected refuse(b) has no reason code" in problems
    fine = dict(record, candidates=[dict(record["candidates"][0], witness={"turn": 2, "start": 3, "end": 9})])
    assert turn_violations(fine, ["a", "b"], {2: "my budget"}) == []


def test_percentiles_are_nearest_rank() -> None:
    assert percentile([], 50) is None
    assert percentile([5.0, 1.0, 3.0], 50) == 3.0
    assert percentile([float(i) for i in range(1, 101)], 99) == 99.0
