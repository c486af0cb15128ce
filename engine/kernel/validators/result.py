"""The outcome of one validator call: accepted or not, a stable reason code, and a normalised value."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ValidationResult:
    ok: bool
    code: str  # e.g. "contact.email_ok", "money.magnitude_ambiguous"
    validator: str  # validator id and version, e.g. "contact/1"
    normalized: str | None = None
    judgement: str = "deterministic"  # "proposer" for free-text criteria, where the proposer's judgement stands

    @staticmethod
    def reject(code: str, validator: str) -> ValidationResult:
        return ValidationResult(ok=False, code=code, validator=validator)
