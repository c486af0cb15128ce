"""The analytics report: conversations of one goal and period, counted from summaries and audit records."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from engine import periods
from engine.analytics.errors import AnalyticsError
from engine.storage.base import ConversationSummary

FORMATS = ("json", "csv")
HANDOFF_NOTE = "handoff.requested"  # audit-record note of a turn in which the visitor asked for a person
_ASK = "ASK("


@dataclass
class ObjectiveStats:
    objective: str
    asked: int = 0  # conversations in which it was asked at least once
    completed: int = 0  # conversations that recorded it
    refused: int = 0  # accepted refusals
    rejected: int = 0  # answers a validator or a provenance rule rejected
    corrections: int = 0  # accepted corrections of a recorded value
    dropped: int = 0  # abandoned conversations whose last question was this one: where visitors leave


@dataclass
class GoalReport:
    goal: str
    since: str | None
    until: str | None
    started: int = 0
    completed: int = 0  # every objective recorded
    stopped: int = 0  # the visitor asked to stop
    abandoned: int = 0  # neither, and idle for longer than the idle limit
    open: int = 0  # neither, still recent
    handoffs: int = 0  # conversations in which the visitor asked for a person
    corrections: int = 0
    questions: int = 0  # visitor turns holding a question to the company
    unanswered_questions: int = 0  # of those, the documents supported no answer
    unanswered_refs: list[str] = field(default_factory=list)  # "<conversation>#<turn>", for the console
    objectives: list[ObjectiveStats] = field(default_factory=list)


@dataclass(frozen=True)
class Selection:
    goal: str | None = None  # goal spec id ("real-estate") or exact ref ("real-estate/v3")
    since: datetime | None = None  # inclusive, on the conversation's start
    until: datetime | None = None  # exclusive
    idle: timedelta = timedelta(hours=24)  # after this long without a turn an open conversation is abandoned

    def matches(self, summary: ConversationSummary) -> bool:
        return periods.in_period(summary.goal_ref, summary.created_at, self.goal, self.since, self.until)


def parse_day(text: str | None, name: str) -> datetime | None:
    """YYYY-MM-DD (midnight UTC) or a full ISO-8601 timestamp."""
    return periods.parse_day(text, name, AnalyticsError, "analytics.date_invalid")


def selection(goal: str | None, since: str | None, until: str | None, idle_hours: float = 24) -> Selection:
    chosen = Selection(goal or None, parse_day(since, "since"), parse_day(until, "until"),
                       timedelta(hours=idle_hours))
    if chosen.since and chosen.until and chosen.since >= chosen.until:
        raise AnalyticsError("since must be before until", code="analytics.date_range_empty")
    if idle_hours <= 0:
        raise AnalyticsError("the idle limit must be positive", code="analytics.idle_invalid")
    return chosen


class ReportBuilder:
    """Adds conversations one by one (summary + its audit records) to the report of their goal."""

    def __init__(self, chosen: Selection, objective_order: Mapping[str, list[str]] | None = None,
                 now: datetime | None = None) -> None:
        self.selection = chosen
        self.order = dict(objective_order or {})
        self.now = now or datetime.now(UTC)
        self.reports: dict[str, GoalReport] = {}
        self._objectives: dict[str, dict[str, ObjectiveStats]] = {}

    def add(self, summary: ConversationSummary, records: Sequence[Mapping[str, Any]]) -> None:
        goal = summary.goal_ref.split("/")[0]
        report = self.reports.get(goal)
        if report is None:
            since, until = self.selection.since, self.selection.until
            report = self.reports[goal] = GoalReport(goal, since.isoformat() if since else None,
                                                     until.isoformat() if until else None)
            self._objectives[goal] = {o: ObjectiveStats(o) for o in self.order.get(goal, [])}
        stats = self._objectives[goal]
        report.started += 1
        last = records[-1] if records else {}
        after = last.get("state_after") or {}
        stopped = bool(after.get("stopped"))
        complete = "0" not in summary.state
        if complete:
            report.completed += 1
        elif stopped:
            report.stopped += 1
        elif self.now - periods.parse_stamp(summary.updated_at) > self.selection.idle:
            report.abandoned += 1
            dropped = after.get("last_asked")
            if isinstance(dropped, str):
                _stat(stats, dropped).dropped += 1
        else:
            report.open += 1
        asked: set[str] = set()
        handoff = False
        for record in records:
            action = str(record.get("chosen_action") or "")
            if action.startswith(_ASK) and record.get("question"):
                asked.add(action[len(_ASK):-1])
            for candidate in record.get("candidates") or []:
                command = candidate.get("command") or {}
                objective = command.get("objective")
                if not isinstance(objective, str):
                    continue
                if candidate.get("accepted") and command.get("type") == "refuse":
                    _stat(stats, objective).refused += 1
                elif candidate.get("accepted") and command.get("type") == "correct":
                    _stat(stats, objective).corrections += 1
                    report.corrections += 1
                elif not candidate.get("accepted") and command.get("type") in ("complete", "correct"):
                    _stat(stats, objective).rejected += 1
            answer = record.get("answer") or {}
            if answer.get("is_question"):
                report.questions += 1
                if not answer.get("supported"):
                    report.unanswered_questions += 1
                    report.unanswered_refs.append(f"{summary.conversation_id}#{record.get('turn')}")
            handoff = handoff or any(str(n).startswith(HANDOFF_NOTE) for n in record.get("notes") or [])
        report.handoffs += int(handoff)
        for objective in asked:
            _stat(stats, objective).asked += 1
        for objective, bit in zip(self.order.get(goal, []), summary.state, strict=False):
            if bit == "1":
                _stat(stats, objective).completed += 1

    def build(self) -> list[GoalReport]:
        out = []
        for goal in sorted(self.reports):
            report = self.reports[goal]
            known = self.order.get(goal, [])
            stats = self._objectives[goal]
            report.objectives = [stats[o] for o in known if o in stats] + \
                [stats[o] for o in sorted(stats) if o not in known]
            out.append(report)
        return out


def _stat(stats: dict[str, ObjectiveStats], objective: str) -> ObjectiveStats:
    found = stats.get(objective)
    if found is None:
        found = stats[objective] = ObjectiveStats(objective)
    return found


def to_json(reports: Iterable[GoalReport]) -> str:
    return json.dumps({"goals": [asdict(r) for r in reports]}, indent=2, ensure_ascii=False) + "\n"


def to_csv(reports: Iterable[GoalReport]) -> str:
    """One row per goal and objective (objective empty on the goal's own row), every count a column."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    goal_fields = ["started", "completed", "stopped", "abandoned", "open", "handoffs", "corrections", "questions",
                   "unanswered_questions"]
    objective_fields = ["asked", "completed", "refused", "rejected", "corrections", "dropped"]
    writer.writerow(["goal", "since", "until", "objective", *goal_fields,
                     *[f"objective_{name}" for name in objective_fields]])
    for report in reports:
        head = [report.goal, report.since or "", report.until or ""]
        writer.writerow([*head, "", *[getattr(report, f) for f in goal_fields], *[""] * len(objective_fields)])
        for stats in report.objectives:
            writer.writerow([*head, stats.objective, *[""] * len(goal_fields),
                             *[getattr(stats, f) for f in objective_fields]])
    return buffer.getvalue()
