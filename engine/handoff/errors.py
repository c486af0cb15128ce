"""Errors of the handoff package (stable dotted codes)."""

from __future__ import annotations

from engine.errors import InputError


class HandoffConfigError(InputError):
    """A company's handoff configuration file that does not validate."""
