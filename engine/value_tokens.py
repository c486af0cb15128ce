"""Canonical tokens of stored datetime values (spec/adr/0003 §3): the weekdays and parts of day a normalised value
is written with. A foundation module: the datetime validator writes these tokens, and the audit trail's
redaction, which sits below the kernel, recognises them as not being phone numbers."""

from __future__ import annotations

PARTS_OF_DAY = ("morning", "midday", "afternoon", "evening", "night")
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
