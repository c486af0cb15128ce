"""Errors of lead export and delivery (stable codes, one-line messages)."""

from __future__ import annotations

from engine.errors import GraceError, InputError


class LeadExportError(InputError):
    default_code = "leads.invalid"


class DeliveryError(GraceError):
    default_code = "leads.delivery_failed"
