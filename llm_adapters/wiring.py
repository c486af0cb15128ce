"""Put an LLM adapter into a running configuration: LLM roles first, offline fallbacks per role."""

from __future__ import annotations

from engine.retrieval.answerer import GroundedAnswerer
from engine.turn import TurnRuntime
from llm_adapters.config import load_llm_settings, load_modulation_rules
from llm_adapters.factory import adapter_from_settings
from llm_adapters.modulator import make_modulator
from llm_adapters.runtime_roles import FallbackProposer, LLMTurnRater
from llm_adapters.synthesis import LLMSynthesizer


def use_llm(runtime: TurnRuntime, provider: str) -> TurnRuntime:
    """Proposer, rubric rater, question modulator and answer synthesis from ``provider`` (rules/llm.json).

    Every role keeps its offline counterpart as the fallback.

    The API key comes from the environment variable the provider's settings name; it is never logged.
    Settings and modulation rules come from the runtime's verified, pinned bundle (its llm.json), never from
    the rules/ folder on disk.
    """
    llm_rules = runtime.bundle.file("llm")
    adapter = adapter_from_settings(load_llm_settings(llm_rules, provider=provider))
    runtime.proposer = FallbackProposer(adapter, runtime.proposer)
    runtime.rater = LLMTurnRater(adapter)
    runtime.modulator = make_modulator(adapter, runtime.spec, rules=load_modulation_rules(llm_rules))
    answerer = runtime.answerer
    if isinstance(answerer, GroundedAnswerer):  # corpus answers: LLM synthesis, still claim-checked (eq. 8)
        answerer.synthesizer = LLMSynthesizer(adapter, answerer.synthesizer)
    return runtime
