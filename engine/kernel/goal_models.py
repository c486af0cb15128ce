"""Pydantic models of objectives and goal specs (paper eq. 1, Algorithm 1 outputs)."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class CriterionKind(StrEnum):
    """Machine-checkable kinds of completion criteria; each has a deterministic validator."""

    MONEY = "money"
    PLACE = "place"
    CONTACT = "contact"
    ENUMERATION = "enumeration"
    FEATURES = "features"
    DATETIME = "datetime"
    QUANTITY = "quantity"
    FREE_TEXT = "free_text"


class Criterion(BaseModel):
    """What visitor evidence completes an objective: a typed kind, its parameters, and prose for humans.

    ``params`` by kind (all optional unless noted):
      money: ``currency`` (ISO code), ``min_amount`` (smallest plausible amount; smaller ones are ambiguous)
      contact: ``channels`` (subset of ["email", "phone"]), ``default_region`` (phone region, e.g. "ES")
      place / enumeration / features: ``vocabulary`` (id of a vocabulary file in rules/vocabularies)
      quantity: ``unit``, ``unit_terms`` ({language: [noun, ...]}), ``min``, ``max``, ``integer``
      datetime: ``granularity`` ("date" | "time" | "datetime" | "schedule" | "timeframe" | "availability"; default
        "date"); availability: ``suffices`` (["date", "weekday+time", ...], spec/adr/0008)
      any kind: ``cues`` ({language: [topic term, ...]}) naming the objective's topic (spec/adr/0003)
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: CriterionKind
    description: str = Field(min_length=1)
    params: dict[str, Any] = Field(default_factory=dict)


class Objective(BaseModel):
    """One approved objective q_i: stable id, name, canonical question per language, criterion, weight, order."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")
    name: str = Field(min_length=1)
    questions: dict[str, str] = Field(min_length=1, description="canonical question per language code")
    criterion: Criterion
    weight: Decimal = Field(gt=0)
    order: int = Field(ge=1)
    # How the objective is named to the visitor (closing summary), per language; ``name`` when absent.
    # Omitted from the content hash when empty, like the spec-level company data.
    labels: dict[str, str] = Field(default_factory=dict)

    def question(self, language: str, fallback: str) -> str:
        return self.questions.get(language) or self.questions.get(fallback) or next(iter(self.questions.values()))

    def label(self, language: str, fallback: str) -> str:
        return self.labels.get(language) or self.labels.get(fallback) or self.name


class Locale(BaseModel):
    """The company's locale: read by validators and extractors before criterion params and bundle defaults."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    currency: str | None = Field(default=None, pattern=r"^[A-Z]{3}$")
    phone_region: str | None = Field(default=None, pattern=r"^[A-Z]{2}$")
    time_zone: str | None = Field(default=None, min_length=1, max_length=64)


class Closing(BaseModel):
    """What the company tells a visitor at the end of the conversation (the arc's closing turn)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    company_name: str | None = Field(default=None, min_length=1, max_length=120)
    next_step: dict[str, str] = Field(default_factory=dict,
                                      description="per language: who will contact the visitor, and when")


class Widget(BaseModel):
    """How the chat widget presents the company (checked by engine/goals/widget.py: hex colours, WCAG AA
    contrast, https links, welcome languages). Colours: ``primary_color`` fills the header, launcher, send button
    and the visitor's bubbles, with ``text_color`` on it; ``accent_color`` marks links, quick replies and the
    keyboard focus on the white panel. ``consent_required``: the visitor ticks a consent box before the first
    message, and the first turn's audit record notes it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    company_name: str | None = Field(default=None, min_length=1, max_length=80)
    primary_color: str | None = Field(default=None, max_length=16)
    text_color: str | None = Field(default=None, max_length=16)
    accent_color: str | None = Field(default=None, max_length=16)
    welcome: dict[str, str] = Field(default_factory=dict, description="per language: the first line the widget shows")
    privacy_url: str | None = Field(default=None, max_length=500)
    consent_url: str | None = Field(default=None, max_length=500)
    consent_required: bool = False


class GoalSpec(BaseModel):
    """A candidate or approved objective set with its normalised priority vector and initial state."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: int = 1
    id: str = Field(pattern=r"^[a-z][a-z0-9_-]{0,63}$")
    title: str = Field(min_length=1)
    default_language: str = Field(min_length=2, max_length=8)
    languages: list[str] = Field(min_length=1)
    manager_intent: str = ""
    objectives: list[Objective] = Field(min_length=1)
    initial_state: list[int] | None = None
    # Company data travelling with the spec version (spec/adr/0003): omitted from the content hash when empty,
    # so specs published before these fields existed keep their hashes.
    locale: Locale | None = None
    vocabularies: dict[str, dict[str, Any]] = Field(default_factory=dict)
    closing: Closing | None = None
    widget: Widget | None = None

    def ordered(self) -> list[Objective]:
        """Objectives in approved order: the coordinate order of every state vector."""
        return sorted(self.objectives, key=lambda o: o.order)

    def s0(self) -> tuple[int, ...]:
        return tuple(self.initial_state) if self.initial_state is not None else tuple(0 for _ in self.objectives)


class PublishedGoalSpec(BaseModel):
    """An immutable, approved version of a goal spec. Only these are accepted by the runtime."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    spec: GoalSpec
    version: int = Field(ge=1)
    content_hash: str = Field(pattern=r"^sha256:[0-9a-f]{64}$")
    approved_by: str = Field(min_length=1)
    approved_at: datetime

    @property
    def ref(self) -> str:
        return f"{self.spec.id}/v{self.version}"


def company_name(spec: GoalSpec) -> str | None:
    """The company's name as the spec configures it (closing, else widget), or None. Never the spec's title: a
    title describes the goal (a compiled spec's title is the intent's first words, possibly cut short)."""
    if spec.closing is not None and spec.closing.company_name:
        return spec.closing.company_name.strip()
    if spec.widget is not None and spec.widget.company_name:
        return spec.widget.company_name.strip()
    return None


# Fields added after the first publications (spec/adr/0003, 0004): left out of the hash when empty, so every
# earlier publication keeps its hash.
_OPTIONAL_WHEN_EMPTY = ("locale", "vocabularies", "closing", "widget")
_OPTIONAL_OBJECTIVE_FIELDS = ("labels",)


def spec_hash(spec: GoalSpec) -> str:
    content = spec.model_dump(mode="json")
    for name in _OPTIONAL_WHEN_EMPTY:
        if not content.get(name):
            content.pop(name, None)
    for objective in content.get("objectives", []):
        for name in _OPTIONAL_OBJECTIVE_FIELDS:
            if not objective.get(name):
                objective.pop(name, None)
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()
