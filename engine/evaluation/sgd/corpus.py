"""Reading the SGD folder: ``schema.json`` (services, slots, possible values) and ``dialogues_*.json``.

Only the fields the benchmark needs are parsed; everything else in the corpus is ignored. Files are read in name
order and dialogues in file order, so a ``--limit-per-service`` run is deterministic.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.errors import first_validation_error
from engine.evaluation.sgd.errors import SgdError

SPLIT = "dev"


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class SgdAction(_Model):
    act: str
    slot: str = ""
    values: list[str] = Field(default_factory=list)


class SgdFrame(_Model):
    service: str
    actions: list[SgdAction] = Field(default_factory=list)


class SgdTurn(_Model):
    speaker: str
    utterance: str
    frames: list[SgdFrame] = Field(default_factory=list)


class SgdDialogue(_Model):
    dialogue_id: str = Field(min_length=1)
    services: list[str] = Field(min_length=1)
    turns: list[SgdTurn] = Field(min_length=1)


class SgdSlot(_Model):
    name: str
    description: str = ""
    is_categorical: bool = False
    possible_values: list[str] = Field(default_factory=list)

    @property
    def numeric(self) -> bool:
        """A categorical slot whose every possible value is an integer (counts: seats, rooms, riders ...)."""
        return self.is_categorical and bool(self.possible_values) and all(v.isdigit() for v in self.possible_values)


class SgdService(_Model):
    service_name: str
    description: str = ""
    slots: list[SgdSlot] = Field(default_factory=list)

    def slot(self, name: str) -> SgdSlot | None:
        return next((s for s in self.slots if s.name == name), None)


@dataclass(frozen=True)
class SgdCorpus:
    root: Path
    services: dict[str, SgdService]
    dialogues: tuple[SgdDialogue, ...]

    def single_service(self, service: str) -> list[SgdDialogue]:
        """Dialogues that use this service and no other (multi-service ones mix goals of several companies)."""
        return [d for d in self.dialogues if d.services == [service]]


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SgdError(f"cannot read {path}: {exc.strerror}", code="sgd.data_unreadable") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SgdError(f"{path.name}: not JSON ({exc})", code="sgd.data_unreadable") from exc


def _split_dir(root: Path) -> Path:
    split = root / SPLIT
    if not (split / "schema.json").is_file():
        raise SgdError(f"no SGD {SPLIT} split at {root} (expected {SPLIT}/schema.json; pass --sgd DIR)",
                       code="sgd.data_missing")
    return split


def _where(exc: ValidationError) -> str:
    where, message = first_validation_error(exc, "/")
    return f"{where}: {message}"


def load_schema(root: Path) -> dict[str, SgdService]:
    path = _split_dir(root) / "schema.json"
    raw = _read_json(path)
    if not isinstance(raw, list):
        raise SgdError(f"{path.name}: expected a list of services", code="sgd.data_invalid")
    try:
        services = [SgdService.model_validate(item) for item in raw]
    except ValidationError as exc:
        raise SgdError(f"{path.name} at {_where(exc)}", code="sgd.data_invalid") from exc
    return {s.service_name: s for s in services}


def load_corpus(root: Path, services: set[str] | None = None) -> SgdCorpus:
    """The schema and every dialogue (only those touching ``services`` when given)."""
    split = _split_dir(root)
    schema = load_schema(root)
    dialogues: list[SgdDialogue] = []
    files = sorted(split.glob("dialogues_*.json"))
    if not files:
        raise SgdError(f"no dialogues_*.json files in {split}", code="sgd.data_missing")
    for path in files:
        raw = _read_json(path)
        if not isinstance(raw, list):
            raise SgdError(f"{path.name}: expected a list of dialogues", code="sgd.data_invalid")
        for item in raw:
            if services is not None and isinstance(item, dict) and not services & set(item.get("services") or ()):
                continue  # skip parsing dialogues of services nobody asked for
            try:
                dialogues.append(SgdDialogue.model_validate(item))
            except ValidationError as exc:
                raise SgdError(f"{path.name} at {_where(exc)}", code="sgd.data_invalid") from exc
    return SgdCorpus(root=root, services=schema, dialogues=tuple(dialogues))
