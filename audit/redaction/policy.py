"""The redaction rule file (``audit/policy/redaction.json``): its model and its reader."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from audit.errors import RedactionError
from engine.errors import first_validation_error

DEFAULT_POLICY_PATH = Path(__file__).parent.parent / "policy" / "redaction.json"


class PhonePolicy(BaseModel):
    """Digit-count bounds of a phone-like string."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min_digits: int = Field(ge=3, le=20, description="Fewest digits a phone-like string has.")
    max_digits: int = Field(ge=3, le=30, description="Most digits a phone-like string has (E.164: 15).")

    @model_validator(mode="after")
    def _ordered(self) -> PhonePolicy:
        if self.min_digits > self.max_digits:
            raise ValueError("min_digits must not exceed max_digits")
        return self


class RedactionPolicy(BaseModel):
    """Versioned redaction rules (data, not code)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: str = Field(pattern=r"^\d+\.\d+\.\d+$", description="Semantic version of this rule file.")
    description: str = Field(min_length=1, description="What the rules do, for compliance readers.")
    digest_chars: int = Field(ge=4, le=64, description="Digest characters kept in a token.")
    phone: PhonePolicy = Field(description="What counts as a phone-like string.")
    money_markers: list[str] = Field(description="Currency symbols/words that mark a number as an amount.")
    phone_exempt_keys: list[str] = Field(description="Keys whose values are machine ids/digests.")
    iso_4217_codes: bool = Field(
        default=False, description="ISO 4217 currency codes (upper case, e.g. 'CHF') mark amounts like money_markers."
    )

    @model_validator(mode="after")
    def _markers(self) -> RedactionPolicy:
        if any(not marker.strip() for marker in self.money_markers):
            raise ValueError("money markers must not be blank")
        return self


def load_policy(path: Path | None = None) -> RedactionPolicy:
    """Load and validate a redaction rule file (the packaged default if ``path`` is None)."""
    if path is None:
        return _default_policy()
    return _read_policy(path)


@lru_cache(maxsize=1)
def _default_policy() -> RedactionPolicy:
    return _read_policy(DEFAULT_POLICY_PATH)


def _read_policy(path: Path) -> RedactionPolicy:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RedactionError(f"cannot read redaction policy {path}", code="audit.redaction.policy_unreadable") from exc
    try:
        return RedactionPolicy.model_validate(data)
    except ValidationError as exc:
        where, message = first_validation_error(exc, ".", "policy")
        raise RedactionError(f"redaction policy {where}: {message}", code="audit.redaction.policy_invalid") from exc
