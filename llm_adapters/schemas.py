"""Pydantic response models, one per LLM role. Every model output is validated against one of these.

Validators that need the request (allowed objective ids, retrieved passages, languages) read it from the
validation context Instructor passes through (``context=``); a violation makes Instructor re-ask.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from engine.kernel.goal_models import CriterionKind
from engine.text import fold

RUBRIC_LEVELS = (0.0, 0.5, 1.0)


def _level(value: float) -> float:
    if value not in RUBRIC_LEVELS:
        raise ValueError("a rubric level must be 0, 0.5 or 1")
    return float(value)


Level = Annotated[float, AfterValidator(_level), Field(json_schema_extra={"enum": [0, 0.5, 1]})]


def _context(info: ValidationInfo) -> dict[str, Any]:
    return info.context if isinstance(info.context, dict) else {}


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --- propose evidence commands (closed command set; spans are located by the adapter, not trusted) ---------

CommandType = Literal["complete", "correct", "refuse", "stop", "uncertain", "resume"]
_NEEDS_VALUE = {"complete", "correct"}
_NEEDS_OBJECTIVE = {"complete", "correct", "refuse", "uncertain"}


class ProposedCommand(_Out):
    """One command. ``quote`` must be copied verbatim from a visitor message; the adapter finds its span."""

    type: CommandType
    objective: str | None = Field(default=None, max_length=64, description="objective id (none for stop)")
    quote: str = Field(min_length=1, max_length=2000, description="exact words of the visitor message")
    value: str | None = Field(default=None, max_length=500, description="extracted value (complete/correct)")
    turn: int | None = Field(default=None, ge=1, description="visitor turn the quote is from (default: current)")

    @model_validator(mode="after")
    def _shape(self) -> ProposedCommand:
        if self.type in _NEEDS_OBJECTIVE and not self.objective:
            raise ValueError(f"a {self.type} command needs an objective")
        if self.type in _NEEDS_VALUE and not (self.value and self.value.strip()):
            raise ValueError(f"a {self.type} command needs a non-empty value")
        if self.type == "stop" and self.objective:
            raise ValueError("a stop command takes no objective")
        return self


class EvidenceProposal(_Out):
    commands: list[ProposedCommand] = Field(default_factory=list, max_length=32)


# --- rate visitor utility (paper eq. 13 rubric) -------------------------------------------------------------


class RubricScore(_Out):
    level: Level
    rationale: str = Field(min_length=1, max_length=240)


class ObjectiveUtility(_Out):
    objective: str
    relevance: RubricScore
    burden: RubricScore
    repetition: RubricScore
    privacy: RubricScore


class UtilityRatings(_Out):
    ratings: list[ObjectiveUtility] = Field(max_length=64)

    @model_validator(mode="after")
    def _covers_candidates(self, info: ValidationInfo) -> UtilityRatings:
        rated = [r.objective for r in self.ratings]
        if len(set(rated)) != len(rated):
            raise ValueError("rate each candidate objective exactly once")
        expected = _context(info).get("candidates")
        if expected is not None and set(rated) != set(expected):
            raise ValueError(f"rate exactly these objectives: {', '.join(sorted(expected))}")
        return self


# --- modulate one canonical question (eq. 5) ----------------------------------------------------------------


class ModulatedQuestion(_Out):
    objective: str
    question: str = Field(min_length=1, max_length=600)

    @field_validator("objective")
    @classmethod
    def _same_objective(cls, value: str, info: ValidationInfo) -> str:
        expected = _context(info).get("objective")
        if expected is not None and value != expected:
            raise ValueError(f"the question must target objective {expected}")
        return value


# --- synthesize a grounded answer (eq. 6) -------------------------------------------------------------------


class AnswerCitation(_Out):
    passage_id: str
    quote: str = Field(min_length=1, max_length=600, description="words copied from that passage")


def _squash(text: str) -> str:
    return " ".join(fold(text).split())


class SynthesizedAnswer(_Out):
    is_question: bool = Field(description="does the visitor message ask the company something")
    supported: bool = Field(description="is the answer backed by the passages")
    text: str = Field(default="", max_length=4000)
    citations: list[AnswerCitation] = Field(default_factory=list, max_length=16)

    @model_validator(mode="after")
    def _grounded(self, info: ValidationInfo) -> SynthesizedAnswer:
        if self.supported and (not self.citations or not self.text.strip()):
            raise ValueError("a supported answer needs text and at least one citation")
        if not self.supported and self.citations:
            raise ValueError("an unsupported answer cites nothing")
        passages: dict[str, str] | None = _context(info).get("passages")
        if passages is not None:
            for citation in self.citations:
                if citation.passage_id not in passages:
                    raise ValueError(f"unknown passage_id {citation.passage_id}")
                if _squash(citation.quote) not in _squash(passages[citation.passage_id]):
                    raise ValueError(f"the quote is not in passage {citation.passage_id}; copy it exactly")
        return self


# --- compile goals (Algorithm 1) ----------------------------------------------------------------------------


class CompiledObjective(_Out):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")
    name: str = Field(min_length=1, max_length=120)
    kind: str = Field(description="objective kind key from the catalogue, or 'other'")
    criterion: CriterionKind
    description: str = Field(min_length=1, max_length=600, description="natural-language completion criterion")
    questions: dict[str, str] = Field(min_length=1, description="canonical question per language code")


class CompiledGoals(_Out):
    title: str = Field(min_length=1, max_length=200)
    objectives: list[CompiledObjective] = Field(min_length=1, description="in approved priority order")
    rationale: str = Field(default="", max_length=2000)

    @model_validator(mode="after")
    def _well_formed(self, info: ValidationInfo) -> CompiledGoals:
        ids = [o.id for o in self.objectives]
        if len(set(ids)) != len(ids):
            raise ValueError("objective ids must be unique")
        kinds = [o.kind for o in self.objectives if o.kind != "other"]
        if len(set(kinds)) != len(kinds):
            raise ValueError("use each catalogue kind at most once")
        context = _context(info)
        allowed = context.get("kinds")
        if allowed is not None:
            unknown = sorted({o.kind for o in self.objectives} - set(allowed) - {"other"})
            if unknown:
                raise ValueError(f"unknown kind(s) {', '.join(unknown)}; use a catalogue key or 'other'")
        limit = context.get("max_objectives")
        if limit is not None and len(self.objectives) > limit:
            raise ValueError(f"at most {limit} objectives")
        for language in context.get("languages", []):
            missing = [o.id for o in self.objectives if not o.questions.get(language, "").strip()]
            if missing:
                raise ValueError(f"canonical question in '{language}' missing for {', '.join(missing)}")
        return self


RESPONSE_MODELS: dict[str, type[BaseModel]] = {
    "propose": EvidenceProposal,
    "rate_utility": UtilityRatings,
    "modulate": ModulatedQuestion,
    "synthesize": SynthesizedAnswer,
    "compile": CompiledGoals,
}
