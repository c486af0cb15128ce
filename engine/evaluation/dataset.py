"""Evaluation datasets in the format of shared/benchmarks/paper_traces.json: configs (objective order per
domain) and conversations of visitor turns with reference state vectors (read only for scoring)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.errors import first_validation_error
from engine.evaluation.errors import EvaluationError


class DatasetObjective(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    id: str = Field(min_length=1)
    name: str = ""


class DatasetConfig(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    language: str = "en"
    objectives: list[DatasetObjective] = Field(min_length=1)

    @property
    def ids(self) -> list[str]:
        return [o.id for o in self.objectives]


class DatasetTurn(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    turn: int = Field(ge=1)
    visitor: str
    reference: str | None = None
    scored: bool = True


class DatasetConversation(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    id: str = Field(min_length=1)
    config: str
    language: str | None = None
    title: str = ""
    reference_time: datetime | None = None  # when this conversation happens (overrides the dataset's)
    turns: list[DatasetTurn] = Field(min_length=1)


class Dataset(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    name: str = "dataset"
    configs: dict[str, DatasetConfig] = Field(min_length=1)
    conversations: list[DatasetConversation] = Field(min_length=1)
    paper_results: dict[str, dict[str, str]] | None = None
    # When the conversations happen: relative dates ("tomorrow", "next Friday") resolve against it, so a result
    # never depends on the day the command runs. ``--now`` or the evaluation default applies when absent.
    reference_time: datetime | None = None


# Used when neither the dataset, the conversation nor ``--now`` says when a conversation happens: a fixed Monday,
# so every evaluation of the same commit gives the same numbers whatever day it runs.
DEFAULT_REFERENCE_TIME = datetime(2026, 1, 5, 10, 0, tzinfo=UTC)
TURN_SPACING = timedelta(minutes=1)  # visitor turn n of a conversation happens (n - 1) minutes after its start


def turn_times(conversation: DatasetConversation, dataset: Dataset, now: datetime | None) -> list[datetime]:
    """The ``received_at`` of each visitor turn: the conversation's time, else the dataset's, else ``now``, else
    ``DEFAULT_REFERENCE_TIME``, one minute apart."""
    start = conversation.reference_time or dataset.reference_time or now or DEFAULT_REFERENCE_TIME
    return [start + TURN_SPACING * index for index in range(len(conversation.turns))]


def _check_time(where: str, value: datetime | None) -> None:
    if value is not None and value.tzinfo is None:
        raise EvaluationError(f"{where}: reference_time needs a time zone (e.g. 2026-01-05T10:00:00Z)",
                              code="eval.dataset_invalid")


def _check(dataset: Dataset) -> None:
    _check_time("dataset", dataset.reference_time)
    seen: set[str] = set()
    for conversation in dataset.conversations:
        if conversation.id in seen:
            raise EvaluationError(f"conversation id {conversation.id} appears twice", code="eval.dataset_invalid")
        seen.add(conversation.id)
        _check_time(conversation.id, conversation.reference_time)
        config = dataset.configs.get(conversation.config)
        if config is None:
            raise EvaluationError(f"{conversation.id}: unknown config {conversation.config!r}",
                                  code="eval.dataset_invalid")
        width = len(config.objectives)
        for index, turn in enumerate(conversation.turns, start=1):
            if turn.turn != index:
                raise EvaluationError(f"{conversation.id}: turns must be numbered 1..n (got {turn.turn})",
                                      code="eval.dataset_invalid")
            if turn.scored and turn.reference is None:
                raise EvaluationError(f"{conversation.id} turn {turn.turn}: scored turn without reference",
                                      code="eval.dataset_invalid")
            ref = turn.reference
            if ref is not None and (len(ref) != width or set(ref) - {"0", "1"}):
                raise EvaluationError(
                    f"{conversation.id} turn {turn.turn}: reference {ref!r} is not {width} binary digits",
                    code="eval.dataset_invalid")


def parse_dataset(raw: object) -> Dataset:
    try:
        dataset = Dataset.model_validate(raw)
    except ValidationError as exc:
        where, message = first_validation_error(exc, "/", "(top)")
        raise EvaluationError(f"dataset at {where}: {message} (format: README 'Evaluation datasets'; example: "
                              f"tests/golden/golden_conversations.json)", code="eval.dataset_invalid") from exc
    _check(dataset)
    return dataset


def load_dataset(path: Path) -> Dataset:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise EvaluationError(f"cannot read {path}: {exc.strerror}", code="eval.dataset_unreadable") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EvaluationError(f"{path.name}: not JSON ({exc})", code="eval.dataset_unreadable") from exc
    return parse_dataset(raw)
