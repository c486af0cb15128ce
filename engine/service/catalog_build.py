"""Wiring: published goal specs + rule bundle + proposer + answerers + durable store -> a served catalog.

Every runtime commits straight to the durable store; the HTTP layer passes idempotency keys to
``TurnRuntime.handle`` and reads the typed ``TurnOutcome`` it returns.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.kernel.goal_models import PublishedGoalSpec
from engine.kernel.ports import Answerer, Proposer
from engine.kernel.turn import TurnRuntime
from engine.rules.loader import RuleBundle
from engine.service.catalog import Catalog, ServedGoal
from engine.storage.base import DurableStore


@dataclass(frozen=True)
class GoalSource:
    spec: PublishedGoalSpec
    answerer: Answerer | None = None
    aliases: tuple[str, ...] = ()


def build_catalog(
    *,
    store: DurableStore,
    bundle: RuleBundle,
    proposer: Proposer,
    goals: list[GoalSource],
    audit_key: bytes,
) -> Catalog:
    served = []
    for source in goals:
        runtime = TurnRuntime(
            spec=source.spec,
            bundle=bundle,
            proposer=proposer,
            answerer=source.answerer,
            store=store,
            audit_key=audit_key,
        )
        served.append(ServedGoal(runtime=runtime, aliases=source.aliases))
    return Catalog(bundle=bundle, goals=served)
