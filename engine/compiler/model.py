"""What a goal compiler takes and returns, shared by the deterministic and the LLM compiler."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from engine.kernel.goal_models import CriterionKind, GoalSpec


class CompileInput(BaseModel):
    """A manager's intent (plain text) and the options of one compilation."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    intent: str
    language: str = Field(min_length=2, max_length=8)
    languages: list[str] | None = None  # languages to write canonical questions in; None = every supported one
    spec_id: str | None = None
    title: str | None = None
    corpus_dir: Path | None = None
    currency: str | None = None  # ISO 4217; None = from the intent or corpus, else refused when needed
    phone_region: str | None = None  # ISO 3166 region for phone numbers
    time_zone: str | None = None  # IANA zone for relative dates


class DraftObjective(BaseModel):
    """One compiled objective before weights and order numbers are assigned."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")
    name: str = Field(min_length=1, max_length=120)
    kind: str | None = None  # objective kind key of rules/compiler.json, None for an unlisted kind
    criterion: CriterionKind
    description: str = Field(min_length=1, max_length=600)
    questions: dict[str, str] = Field(min_length=1)
    params: dict[str, Any] = Field(default_factory=dict)


class Draft(BaseModel):
    """A candidate objective set in approved (priority) order."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    title: str = Field(min_length=1, max_length=200)
    objectives: list[DraftObjective] = Field(min_length=1)


class CompileOutcome(BaseModel):
    """The candidate spec plus what a reviewer needs: derived vocabularies and notes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    spec: GoalSpec
    vocabularies: dict[str, dict[str, Any]] = Field(default_factory=dict)  # the spec's own vocabularies (a copy)
    notes: list[str] = Field(default_factory=list)
    compiler: str
    calls: list[dict[str, Any]] = Field(default_factory=list)  # LLM call metadata, if an LLM was used
    implied: list[str] = Field(default_factory=list)  # objectives only implied by the intent (flagged in review)


class GoalCompiler(Protocol):
    name: str

    def compile(self, request: CompileInput) -> CompileOutcome: ...
