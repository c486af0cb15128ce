"""Collected values per conversation, by goal and date range, as rows for CSV or JSON export."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import datetime

from engine import periods
from engine.kernel.conversation import ConversationState
from engine.kernel.values import current_values, declined_options
from engine.leads.errors import LeadExportError
from engine.storage.base import ConversationSummary, DurableStore

FORMATS = ("csv", "json")


@dataclass(frozen=True)
class Lead:
    conversation_id: str
    goal_ref: str
    language: str
    created_at: str
    updated_at: str
    state: str
    completed: bool  # every objective recorded
    stopped: bool  # the visitor asked to stop
    values: dict[str, str] = field(default_factory=dict)  # objective id -> latest accepted (normalised) value
    # objective id -> every accepted value in order, for objectives the visitor revised (issue 32: corrections)
    revisions: dict[str, list[str]] = field(default_factory=dict)
    # objective id -> the yes/no features the visitor declined in its current value (spec/adr/0009): a declined
    # option ('no:laundry' in values) is never a claimed one
    declined: dict[str, list[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class LeadFilter:
    goal: str | None = None  # goal spec id ("real-estate") or exact ref ("real-estate/v3")
    since: datetime | None = None  # inclusive, on the conversation's last activity
    until: datetime | None = None  # exclusive
    completed_only: bool = False

    def matches(self, summary: ConversationSummary) -> bool:
        return periods.in_period(summary.goal_ref, summary.updated_at, self.goal, self.since, self.until)


def parse_day(text: str | None, name: str) -> datetime | None:
    """A --since/--until value: YYYY-MM-DD (midnight UTC) or a full ISO-8601 timestamp."""
    return periods.parse_day(text, name, LeadExportError, "leads.date_invalid")


def collect_leads(store: DurableStore, selection: LeadFilter, *, page: int = 500) -> list[Lead]:
    """Every conversation matching ``selection``, oldest activity first."""
    leads: list[Lead] = []
    offset = 0
    while True:
        batch = store.summaries(limit=page, offset=offset)
        for summary in batch:
            if selection.matches(summary):
                lead = lead_of(store.load(summary.conversation_id), summary)
                if lead.completed or not selection.completed_only:
                    leads.append(lead)
        if len(batch) < page:
            break
        offset += page
    return sorted(leads, key=lambda lead: (lead.updated_at, lead.conversation_id))


def latest_values(state: ConversationState) -> dict[str, str]:
    """Objective id -> its current value: the latest accepted one (a correction replaces the first completion),
    with every contact channel kept (engine/kernel/values.py)."""
    return current_values(state)


def value_revisions(state: ConversationState) -> dict[str, list[str]]:
    """Objective id -> its accepted values in order, for each objective whose value the visitor revised."""
    revised = {}
    for objective, records in state.values.items():
        history = [r.value for r in records]
        if len(set(history)) > 1:
            revised[objective] = history
    return revised


def lead_of(state: ConversationState, summary: ConversationSummary) -> Lead:
    values = latest_values(state)
    return Lead(
        conversation_id=state.conversation_id, goal_ref=state.goal_ref, language=state.language,
        created_at=summary.created_at, updated_at=summary.updated_at, state=state.state_string(),
        completed=all(state.bits), stopped=state.stopped, values=values, revisions=value_revisions(state),
        declined=declined_options(state),
    )


def to_json(leads: Iterable[Lead]) -> str:
    return json.dumps({"leads": [asdict(lead) for lead in leads]}, indent=2, ensure_ascii=False) + "\n"


def to_csv(leads: list[Lead]) -> str:
    """One row per conversation; one column per objective id seen in the export (sorted), then ``revised``: each
    revised objective with its values in order ("guest_count: 2 > 3"), then ``declined``: each objective with the
    yes/no features the visitor declined ("services: laundry")."""
    objectives = sorted({objective for lead in leads for objective in lead.values})
    fixed = ["conversation_id", "goal_ref", "language", "created_at", "updated_at", "state", "completed", "stopped"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*fixed, *objectives, "revised", "declined"])
    for lead in leads:
        row = [lead.conversation_id, lead.goal_ref, lead.language, lead.created_at, lead.updated_at, lead.state,
               str(lead.completed).lower(), str(lead.stopped).lower()]
        revised = "; ".join(f"{o}: {' > '.join(history)}" for o, history in sorted(lead.revisions.items()))
        declined = "; ".join(f"{o}: {', '.join(options)}" for o, options in sorted(lead.declined.items()))
        writer.writerow(row + [_cell(lead.values.get(o, "")) for o in objectives] + [_cell(revised), _cell(declined)])
    return buffer.getvalue()


def _cell(value: str) -> str:
    # Spreadsheet formula injection: a cell starting with = + - @ is shown as text, never evaluated.
    return "'" + value if value[:1] in ("=", "+", "-", "@") else value
