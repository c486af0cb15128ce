"""Helpers for proposer tests: the project's rule bundle, the two demo specs (published in memory) and a
one-call way to run the offline proposer on one message."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path

from engine.evaluation.targets import working_tree_bundle
from engine.goals.publication import spec_hash
from engine.kernel.commands import Command
from engine.kernel.conversation import Message, Role
from engine.kernel.goal_models import GoalSpec, PublishedGoalSpec
from engine.kernel.ports import ProposerInput
from engine.kernel.validators import validate_value
from engine.rules.loader import DEFAULT_RULES_DIR, RuleBundle
from llm_adapters.offline import OfflineProposer

ROOT = Path(__file__).resolve().parents[2]
DEMO_SPECS = {"re": ROOT / "demos/real_estate/goal_spec.json", "cl": ROOT / "demos/cleaning/goal_spec.json"}


@lru_cache(maxsize=1)
def project_bundle() -> RuleBundle:
    """The working-tree rule files (a scratch copy without publication records: tests check the files as
    they are, whether or not this version has been published yet)."""
    return working_tree_bundle(DEFAULT_RULES_DIR)


@lru_cache(maxsize=1)
def proposer() -> OfflineProposer:
    return OfflineProposer.from_bundle(project_bundle())


@lru_cache(maxsize=4)
def demo_spec(domain: str) -> PublishedGoalSpec:
    spec = GoalSpec.model_validate_json(DEMO_SPECS[domain].read_bytes())
    return PublishedGoalSpec(spec=spec, version=1, content_hash=spec_hash(spec), approved_by="tests",
                             approved_at=datetime(2026, 1, 1, tzinfo=UTC))


def request(domain: str, text: str, *, last_asked: str | None = None, bits: str = "0000",
            refused: tuple[str, ...] = (), stopped: bool = False, turn: int = 1) -> ProposerInput:
    return ProposerInput(
        spec=demo_spec(domain), bits=[int(b) for b in bits], language="en", turn=turn,
        message=Message(role=Role.VISITOR, turn=turn, text=text), history=[], last_asked=last_asked,
        refused=list(refused), stopped=stopped,
    )


def propose(domain: str, text: str, **kwargs: object) -> list[Command]:
    return list(proposer().propose(request(domain, text, **kwargs)).commands)  # type: ignore[arg-type]


def summary(domain: str, text: str, **kwargs: object) -> dict[str, str | None]:
    """{"complete:budget": value, "refuse:contact": None, "stop": None, ...} for compact assertions."""
    out: dict[str, str | None] = {}
    for command in propose(domain, text, **kwargs):
        objective = getattr(command, "objective", None)
        key = command.type if objective is None else f"{command.type}:{objective}"
        out[key] = getattr(command, "value", None)
    return out


def accepted_value(domain: str, command: Command) -> bool:
    """Would the engine's validator of the objective's criterion kind accept this Complete/Correct?"""
    spec = demo_spec(domain).spec
    objective = next(o for o in spec.objectives if o.id == command.objective)  # type: ignore[union-attr]
    value = command.value  # type: ignore[union-attr]
    return validate_value(objective.criterion, value, command.span.quote, project_bundle()).ok
