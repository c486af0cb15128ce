"""Plain-text views of specs, histories and passages for prompt placeholders (deterministic formatting)."""

from __future__ import annotations

from collections.abc import Iterable

from engine.kernel.conversation import Message, Role
from engine.kernel.goal_models import GoalSpec, Objective
from engine.kernel.ports import GroundedAnswer

NONE_TEXT = "(none)"


# How a proposed value must be written for the kinds whose validator parses a grammar (spec/adr/0003 §3).
_DATETIME_FORMATS = {
    "date": "YYYY-MM-DD, or a range YYYY-MM-DD/YYYY-MM-DD",
    "time": "HH:MM, a range HH:MM-HH:MM, or a part of day (morning|midday|afternoon|evening|night)",
    "datetime": "YYYY-MM-DDTHH:MM or YYYY-MM-DDT<part of day>",
    "schedule": "weekly:<days>[@<time>] with days from mon,tue,wed,thu,fri,sat,sun (e.g. weekly:tue,thu@evening)",
    "timeframe": "within:<ISO 8601 duration> | before:YYYY-MM-DD | after:YYYY-MM-DD | "
                 "period:YYYY-MM-DD/YYYY-MM-DD | asap",
    # spec/adr/0008: any of the forms above; a day and a time together as one value (weekly:fri@morning,
    # 2027-03-11Tafternoon); an excluded weekday written as the days that remain ("not Mondays": weekly:tue,...,sun)
    "availability": "YYYY-MM-DD, YYYY-MM-DD/YYYY-MM-DD, YYYY-MM-DDTHH:MM, YYYY-MM-DDT<part of day>, "
                    "weekly:<days>[@<time>], HH:MM, HH:MM-HH:MM, a part of day, or a time frame "
                    "(within:<ISO 8601 duration> | period:YYYY-MM-DD/YYYY-MM-DD | asap); excluded days are left out "
                    "of weekly:<days>",
}


def value_format(objective: Objective) -> str | None:
    kind = objective.criterion.kind.value
    params = objective.criterion.params
    if kind == "datetime":
        granularity = str(params.get("granularity", "date"))
        return f"{_DATETIME_FORMATS.get(granularity, _DATETIME_FORMATS['date'])}; relative dates resolved " \
               "against today's date"
    if kind == "quantity":
        unit = params.get("unit")
        return "a number, or a range A-B" + (f" (counting {unit})" if unit else "")
    if kind == "free_text":
        return "the visitor's own words, copied exactly"
    if kind == "features":
        # spec/adr/0009: a declined yes/no feature is recorded as the visitor's answer, never as the feature
        return "option ids separated by '; ' (id=N for a count); for a feature the visitor declines " \
               "('no thanks', 'I have my own') write no:<option id>"
    return None


def objective_line(
    objective: Objective, language: str, fallback: str, status: str | None = None, today: str | None = None,
) -> str:
    parts = [
        f"- id: {objective.id}",
        f"name: {objective.name}",
        f"criterion ({objective.criterion.kind.value}): {objective.criterion.description}",
        f"canonical question: {objective.question(language, fallback)}",
    ]
    fmt = value_format(objective)
    if fmt is not None:
        parts.append(f"value format: {fmt}" + (f" (today is {today})" if today and "today" in fmt else ""))
    if status is not None:
        parts.append(f"status: {status}")
    return " | ".join(parts)


def objectives_block(spec: GoalSpec, language: str, bits: list[int] | None = None, today: str | None = None) -> str:
    lines = []
    for index, objective in enumerate(spec.ordered()):
        status = None if bits is None else ("complete" if bits[index] else "incomplete")
        lines.append(objective_line(objective, language, spec.default_language, status, today))
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
