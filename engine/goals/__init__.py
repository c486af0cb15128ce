"""Goal specs: the approved, versioned objective set a conversation is pinned to."""

from engine.kernel.goal_models import Criterion, CriterionKind, GoalSpec, Objective, PublishedGoalSpec

__all__ = ["Criterion", "CriterionKind", "GoalSpec", "Objective", "PublishedGoalSpec"]
