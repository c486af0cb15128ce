"""The published goal specs this service serves, each with its turn runtime, and the loaded rule bundle."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.kernel.conversation import ConversationState
from engine.kernel.goal_models import PublishedGoalSpec
from engine.rules.loader import RuleBundle
from engine.service.errors import ConflictError, NotFoundError
from engine.service.schemas import ObjectiveOut

if TYPE_CHECKING:
    from engine.kernel.turn import TurnRuntime


@dataclass(frozen=True)
class ServedGoal:
    runtime: TurnRuntime
    aliases: tuple[str, ...] = ()  # extra names, e.g. the demo name "real-estate"

    @property
    def published(self) -> PublishedGoalSpec:
        return self.runtime.spec

    def objectives(self) -> list[ObjectiveOut]:
        return [
            ObjectiveOut(
                id=o.id,
                name=o.name,
                order=o.order,
                kind=o.criterion.kind.value,
                description=o.criterion.description,
            )
            for o in self.published.spec.ordered()
        ]


@dataclass
class Catalog:
    bundle: RuleBundle | None
    goals: list[ServedGoal] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._by_ref: dict[str, ServedGoal] = {}
        self._by_name: dict[str, ServedGoal] = {}
        for goal in self.goals:
            self._add(goal)

    def _add(self, goal: ServedGoal) -> None:
        ref = goal.published.ref
        if ref in self._by_ref:
            raise ConflictError(f"goal spec {ref} is served twice", code="service.goal_duplicate")
        self._by_ref[ref] = goal
        # A bare id (or alias) names the latest published version.
        for name in (goal.published.spec.id, *goal.aliases):
            current = self._by_name.get(name)
            if current is None or current.published.version < goal.published.version:
                self._by_name[name] = goal

    def add(self, goals: Iterable[ServedGoal]) -> None:
        for goal in goals:
            self.goals.append(goal)
            self._add(goal)

    def resolve(self, goal: str) -> ServedGoal:
        found = self._by_ref.get(goal) or self._by_name.get(goal)
        if found is None:
            raise NotFoundError(f"no published goal spec {goal!r} is served here", code="goal.not_found")
        return found

    def for_state(self, state: ConversationState) -> ServedGoal:
        return self.for_ref(state.goal_ref)

    def for_ref(self, goal_ref: str) -> ServedGoal:
        """The goal a conversation pinned to ``goal_ref`` is served by."""
        found = self._by_ref.get(goal_ref)
        if found is None:
            raise ConflictError(
                f"conversation is pinned to {goal_ref}, which this service does not serve",
                code="conversation.version_unavailable",
            )
        return found

    def refs(self) -> list[str]:
        return sorted(self._by_ref)
