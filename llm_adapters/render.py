"""Plain-text views of specs, histories and passages for prompt placeholders (deterministic formatting)."""

from __future__ import annotations

from collections.abc import Iterable

from engine.conversation import Message, Role
from engine.goals.models import GoalSpec, Objective
from engine.ports import GroundedAnswer

NONE_TEXT = "(none)"


def objective_line(objective: Objective, language: str, fallback: str, status: str | None = None) -> str:
    parts = [
        f"- id: {objective.id}",
        f"name: {objective.name}",
        f"criterion ({objective.criterion.kind.value}): {objective.criterion.description}",
        f"canonical question: {objective.question(language, fallback)}",
    ]
    if status is not None:
        parts.append(f"status: {status}")
    return " | ".join(parts)


def objectives_block(spec: GoalSpec, language: str, bits: list[int] | None = None) -> str:
    lines = []
    for index, objective in enumerate(spec.ordered()):
        status = None if bits is None else ("complete" if bits[index] else "incomplete")
        lines.append(objective_line(objective, language, spec.default_language, status))
    return "\n".join(lines)


def history_block(messages: Iterable[Message]) -> str:
    lines = [f"[turn {m.turn}] {'VISITOR' if m.role is Role.VISITOR else 'ASSISTANT'}: {m.text}" for m in messages]
    return "\n".join(lines) if lines else NONE_TEXT


def answer_text(answer: GroundedAnswer | None) -> str:
    if answer is None or not answer.text.strip():
        return NONE_TEXT
    return answer.text.strip()


def listing(values: Iterable[str]) -> str:
    items = [v for v in values if v]
    return ", ".join(items) if items else NONE_TEXT
