"""Errors of the analytics package (stable dotted codes)."""

from __future__ import annotations

from engine.errors import InputError


class AnalyticsError(InputError):
    """A bad selection (dates, format) for an analytics report."""
