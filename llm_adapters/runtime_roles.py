"""LLM roles plugged into the turn runtime, each with a deterministic offline fallback.

- ``FallbackProposer``: the LLM proposes; if the call fails (after its bounded re-asks and retries), the offline
  proposer stands in and the record notes it. The decision layer validates either way.
- ``LLMTurnRater``: the LLM rates R, B, D, P for the open objectives; the decider falls back to the offline rubric
  for anything missing or invalid (and records why).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import structlog

from engine.kernel.conversation import ConversationState
from engine.kernel.goal_models import PublishedGoalSpec
from engine.kernel.policy import Rubric
from engine.kernel.ports import GroundedAnswer, Proposal, Proposer, ProposerInput
from engine.kernel.turn_context import TurnContext
from llm_adapters.errors import LLMError
from llm_adapters.protocol import LLMRoles, UtilityRequest

log = structlog.get_logger("grace.llm")


class FallbackProposer:
    def __init__(self, primary: LLMRoles, fallback: Proposer) -> None:
        self.primary = primary
        self.fallback = fallback
        self.name = f"{primary.name}+{fallback.name}"
        self.version = f"{primary.version}/{fallback.version}"

    def propose(self, request: ProposerInput) -> Proposal:
        try:
            return self.primary.propose(request)
        except LLMError as exc:
            log.warning("llm.propose.fallback_offline", code=exc.code)
            offline = self.fallback.propose(request)
            calls = [dict(exc.call)] if exc.call else []
            return offline.model_copy(update={
                "calls": [*calls, *offline.calls],
                "notes": [*offline.notes, f"proposer.fallback_offline: {exc.code}"],
            })


class LLMTurnRater:
    """engine.kernel.ports.TurnRater backed by an adapter's ``rate_utility`` role."""

    def __init__(self, adapter: LLMRoles) -> None:
        self.adapter = adapter

    def for_turn(
        self, spec: PublishedGoalSpec, state: ConversationState, answer: GroundedAnswer, calls: list[dict[str, Any]],
        context: TurnContext | None = None,
    ) -> Callable[[list[str]], dict[str, Any]]:
        def rate(open_ids: list[str]) -> dict[str, Any]:
            request = UtilityRequest(
                spec=spec, language=state.language, turn=state.turn, candidates=open_ids,
                message=state.messages[-1], history=list(state.messages[:-1]), answer=answer,
                ask_counts=dict(state.ask_counts), refused=list(state.refused), stopped=state.stopped,
                context=context,
            )
            try:
                result = self.adapter.rate_utility(request)
            except LLMError as exc:
                if exc.call:
                    calls.append(dict(exc.call))
                raise
            calls.append(result.call.to_record())
            return {
                r.objective: Rubric(
                    relevance=Fraction(str(r.relevance.level)), burden=Fraction(str(r.burden.level)),
                    repetition=Fraction(str(r.repetition.level)), privacy=Fraction(str(r.privacy.level)),
                    rationale={"R": r.relevance.rationale, "B": r.burden.rationale,
                               "D": r.repetition.rationale, "P": r.privacy.rationale},
                )
                for r in result.output.ratings
            }

        return rate
