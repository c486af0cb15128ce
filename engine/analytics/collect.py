"""Reads a store for the analytics report: summaries and the sealed audit records, never a decrypted state."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from engine.analytics.report import GoalReport, ReportBuilder, Selection
from engine.storage.base import DurableStore


def collect(store: DurableStore, chosen: Selection, objective_order: Mapping[str, list[str]] | None = None,
            *, now: datetime | None = None, page: int = 500) -> list[GoalReport]:
    """Every conversation that started in the selection's period, counted per goal."""
    builder = ReportBuilder(chosen, objective_order, now)
    offset = 0
    while True:
        batch = store.summaries(limit=page, offset=offset)
        for summary in batch:
            if chosen.matches(summary):
                # The records as stored: sealed values stay sealed; only codes, ids and flags are read.
                builder.add(summary, store.records(summary.conversation_id))
        if len(batch) < page:
            break
        offset += page
    return builder.build()
