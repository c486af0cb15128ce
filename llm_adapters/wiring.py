"""Put an LLM adapter into a running configuration: LLM roles first, offline fallbacks per role."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from engine.retrieval.answerer import GroundedAnswerer
from engine.turn import TurnRuntime
from engine.turn_limits import record_call
from llm_adapters.adapter import LLMAdapter
from llm_adapters.config import LLMSettings, load_llm_settings, load_modulation_rules
from llm_adapters.errors import LLMConfigError
from llm_adapters.factory import adapter_from_settings
from llm_adapters.modulator import make_modulator
from llm_adapters.runtime_roles import FallbackProposer, LLMTurnRater
from llm_adapters.synthesis import LLMSynthesizer


def llm_settings(runtime: TurnRuntime, provider: str, **overrides: Any) -> LLMSettings:
    """Settings from the runtime's verified, pinned bundle (its llm.json), never from the rules/ folder on disk;
    ``overrides`` (e.g. ``base_url``, ``model``) replace single fields for a local run."""
    settings = load_llm_settings(runtime.bundle.file("llm"), provider=provider)
    present = {k: v for k, v in overrides.items() if v is not None}
    return settings.with_overrides(**present) if present else settings


def attach_adapter(runtime: TurnRuntime, adapter: LLMAdapter) -> TurnRuntime:
    """Proposer, rubric rater, question modulator and answer synthesis from ``adapter``; every role keeps its
    offline counterpart as the fallback, and every fallback is noted in the turn's audit record."""
    llm_rules = runtime.bundle.file("llm")
    runtime.proposer = FallbackProposer(adapter, runtime.proposer)
    runtime.rater = LLMTurnRater(adapter)
    runtime.modulator = make_modulator(adapter, runtime.spec, rules=load_modulation_rules(llm_rules),
                                       on_call=record_call)
    answerer = runtime.answerer
    if isinstance(answerer, GroundedAnswerer):  # corpus answers: LLM synthesis, still claim-checked (eq. 8)
        # A copy: answerers are shared between runtimes (an evaluation's offline baseline keeps its own).
        own = copy.copy(answerer)
        own.synthesizer = LLMSynthesizer(adapter, answerer.synthesizer)
        runtime.answerer = own
    return runtime


def use_llm(runtime: TurnRuntime, provider: str, **overrides: Any) -> TurnRuntime:
    """The LLM roles of ``provider`` (rules/llm.json). The API key comes from the environment variable the
    provider's settings name; it is never logged."""
    return attach_adapter(runtime, adapter_from_settings(llm_settings(runtime, provider, **overrides)))


def evaluation_roles(bundle: Any, provider: str, **overrides: Any) -> tuple[Callable[[TurnRuntime], object], str]:
    """For an evaluation run: one adapter (one HTTP client) shared by every conversation's runtime, and a label
    naming the provider and model. Settings come from ``bundle``'s llm.json."""
    settings = load_llm_settings(bundle.file("llm"), provider=provider)
    present = {k: v for k, v in overrides.items() if v is not None}
    if present:
        settings = settings.with_overrides(**present)
    check_reachable(settings)
    adapter = adapter_from_settings(settings)
    return (lambda runtime: attach_adapter(runtime, adapter)), f"{provider}:{settings.provider.model}"


def check_reachable(settings: LLMSettings) -> None:
    """A self-hosted server that does not answer would turn a whole evaluation into offline fallbacks: say so
    before the run instead (one GET of the models list)."""
    base = settings.provider.base_url
    if settings.provider.kind != "openai_compat" or not base:
        return
    import httpx2

    try:
        httpx2.get(base.rstrip("/") + "/models", timeout=settings.connect_timeout_s).raise_for_status()
    except httpx2.HTTPError as exc:
        raise LLMConfigError(f"provider {settings.provider_name}: no server answers at {base} "
                             f"({type(exc).__name__}); start it first", code="llm.server_unreachable") from None
