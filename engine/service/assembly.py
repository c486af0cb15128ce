"""Wiring: published goal specs + rule bundle + proposer + answerers + durable store -> a served catalog.

Every runtime commits through a ``CommitHook`` (idempotency entry and turn response in the turn's own
transaction) and answers through a ``RecordingAnswerer`` (so the response carries the quoted citations).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.goals.models import PublishedGoalSpec
from engine.leads.notifier import LeadNotifier
from engine.ports import Answerer, Proposer
from engine.rules_bundle import RuleBundle
from engine.service.catalog import Catalog, ServedGoal
from engine.service.turns import CommitHook, RecordingAnswerer
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
    notifier: LeadNotifier | None = None,
) -> Catalog:
    from engine.turn import TurnRuntime

    hook = CommitHook(store, notifier)
    served = []
    for source in goals:
        runtime = TurnRuntime(
            spec=source.spec,
            bundle=bundle,
            proposer=proposer,
            answerer=RecordingAnswerer(source.answerer) if source.answerer is not None else None,
            store=hook,
            audit_key=audit_key,
        )
        served.append(ServedGoal(runtime=runtime, aliases=source.aliases))
    return Catalog(bundle=bundle, goals=served)
