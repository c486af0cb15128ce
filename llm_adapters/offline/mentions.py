"""Dates a visitor volunteers when the company collects none (issue 32 item 6): travel dates, a start date.

When the goal spec has no date objective, a dated expression in the visitor's message is still worth a word: the
engine acknowledges it as kept in the conversation for the team (engine/kernel/acknowledgement.py) and records nothing.
Each one becomes a proposer note ``proposer.mention:date:<start>:<end>`` with offsets into the stored message.
Weak expressions (a lone month or part of day), dates in the past and expressions inside questions (a visitor
asking about the company's dates) are left out: they are not facts about the visitor's plans.
"""

from __future__ import annotations

import re
from datetime import datetime

from engine.kernel.goal_models import CriterionKind, GoalSpec
from llm_adapters.offline.analysis import Analysis
from llm_adapters.offline.temporal import temporal_mentions

MENTION = "proposer.mention"
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def date_mentions(analysis: Analysis, spec: GoalSpec, reference_time: datetime | None) -> list[str]:
    """Notes for the dated expressions of a message whose spec collects no date (none otherwise)."""
    if any(o.criterion.kind is CriterionKind.DATETIME for o in spec.objectives):
        return []
    today = (reference_time.date().isoformat() if reference_time is not None else None)
    notes: list[str] = []
    for mention in temporal_mentions(analysis, reference_time, spec):
        days = [d for value in mention.values for d in _DAY.findall(value)]
        if mention.weak or not days or mention.sentence.is_question:
            continue
        if today is not None and max(days) < today:
            continue
        start, end = analysis.folded.to_source(mention.start, mention.end)
        notes.append(f"{MENTION}:date:{start}:{end}")
    return notes
