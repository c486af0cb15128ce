"""LLM roles for a runtime about to be built: LLM roles first, offline fallbacks per role.

``llm_roles(adapter)`` is a ``RoleChoice``: builders (``engine.runtimes.offline_runtime``, the evaluation
runner) apply it before they construct the ``TurnRuntime``, so a runtime never changes roles once built.
"""

from __future__ import annotations

import copy
from typing import Any

from engine.kernel.goal_models import PublishedGoalSpec
from engine.kernel.turn import RoleChoice, TurnRoles, TurnRuntime
from engine.retrieval.answerer import GroundedAnswerer
from engine.rules.loader import RuleBundle
from llm_adapters.adapter import LLMAdapter
from llm_adapters.config import LLMSettings, load_llm_settings, load_modulation_rules
from llm_adapters.errors import LLMConfigError
from llm_adapters.factory import adapter_from_settings
from llm_adapters.modulator import make_modulator
from llm_adapters.runtime_roles import FallbackProposer, LLMTurnRater
from llm_adapters.synthesis import LLMSynthesizer


def llm_settings(bundle: RuleBundle, provider: str, **overrides: Any) -> LLMSettings:
    """Settings from the verified, pinned ``bundle`` (its llm.json), never from the rules/ folder on disk;
    ``overrides`` (e.g. ``base_url``, ``model``) replace single fields for a local run."""
    settings = load_llm_settings(bundle.file("llm"), provider=provider)
    present = {k: v for k, v in overrides.items() if v is not None}
    return settings.with_overrides(**present) if present else settings


def llm_roles(adapter: LLMAdapter) -> RoleChoice:
    """Proposer, rubric rater, question modulator and answer synthesis from ``adapter``; every role keeps its
    offline counterpart as the fallback, and every fallback is noted in the turn's audit record."""

    def choose(spec: PublishedGoalSpec, bundle: RuleBundle, offline: TurnRoles) -> TurnRoles:
        answerer = offline.answerer
        if isinstance(answerer, GroundedAnswerer):  # corpus answers: LLM synthesis, still claim-checked (eq. 8)
            # A copy: answerers are shared between runtimes (an evaluation's offline baseline keeps its own).
            own = copy.copy(answerer)
            own.synthesizer = LLMSynthesizer(adapter, answerer.synthesizer)
            answerer = own
        modulator = make_modulator(adapter, spec, rules=load_modulation_rules(bundle.file("llm")))
        return TurnRoles(proposer=FallbackProposer(adapter, offline.proposer), answerer=answerer,
                         modulator=modulator, rater=LLMTurnRater(adapter))

    return choose


def provider_roles(provider: str, **overrides: Any) -> RoleChoice:
    """The LLM roles of ``provider`` (rules/llm.json of the bundle the runtime is built on). The API key comes
    from the environment variable the provider's settings name; it is never logged."""

    def choose(spec: PublishedGoalSpec, bundle: RuleBundle, offline: TurnRoles) -> TurnRoles:
        adapter = adapter_from_settings(llm_settings(bundle, provider, **overrides))
        return llm_roles(adapter)(spec, bundle, offline)

    return choose


def attach_adapter(runtime: TurnRuntime, adapter: LLMAdapter) -> TurnRuntime:
    """A new runtime on ``runtime``'s spec, bundle and store with the LLM roles of ``adapter`` (``runtime``
    itself is left as it was)."""
    return TurnRuntime.with_roles(spec=runtime.spec, bundle=runtime.bundle, roles=runtime.roles,
                                  store=runtime.store, audit_key=runtime.audit_key, choose=llm_roles(adapter),
                                  company_texts=runtime.company_texts)


def use_llm(runtime: TurnRuntime, provider: str, **overrides: Any) -> TurnRuntime:
    """``attach_adapter`` with the adapter of ``provider`` configured by ``runtime``'s pinned bundle."""
    return attach_adapter(runtime, adapter_from_settings(llm_settings(runtime.bundle, provider, **overrides)))


def evaluation_roles(bundle: RuleBundle, provider: str, **overrides: Any) -> tuple[RoleChoice, str]:
    """For an evaluation run: one adapter (one HTTP client) shared by every conversation's runtime, and a label
    naming the provider and model. Settings come from ``bundle``'s llm.json."""
    settings = llm_settings(bundle, provider, **overrides)
    check_reachable(settings)
    return llm_roles(adapter_from_settings(settings)), f"{provider}:{settings.provider.model}"


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
