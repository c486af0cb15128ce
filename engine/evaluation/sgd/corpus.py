"""Reading the SGD folder: ``<split>/schema.json`` (services, slots, possible values, intents) and
``<split>/dialogues_*.json`` for the splits asked (``train``, ``dev``), and the SGD-X rewordings of the schemas
(``sgd_x/v1..v5/<split>/schema.json``).

Only the fields the benchmarks need are parsed; everything else in the corpus is ignored. Splits are read in the
order given, files in name order and dialogues in file order, so a ``--limit-per-service`` run is deterministic.
When more than one split is read, dialogue ids carry their split (``train-1_00000``): ids repeat across splits.

An SGD-X variant renames services (``Banks_1`` -> ``Banks_13`` in v3) and slots and rewrites every description;
its slots and intents are listed in the original's order. ``load_schema(..., variant=k)`` returns the variant's
descriptions under the original service and slot names, so the dialogues' annotations still apply.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.errors import first_validation_error
from engine.evaluation.sgd.errors import SgdError

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
SPLIT = "dev"  # the default split (issue 9's benchmark); ``SPLITS`` lists every split that may be read
SPLITS = ("train", "dev")
VARIANTS = (1, 2, 3, 4, 5)  # SGD-X rewordings; 0 is the original wording


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
    split: str = SPLIT
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


class SgdIntent(_Model):
    name: str
    description: str = ""
    is_transactional: bool = False
    required_slots: list[str] = Field(default_factory=list)
    optional_slots: dict[str, str] = Field(default_factory=dict)


class SgdService(_Model):
    service_name: str
    description: str = ""
    slots: list[SgdSlot] = Field(default_factory=list)
    intents: list[SgdIntent] = Field(default_factory=list)

    def slot(self, name: str) -> SgdSlot | None:
        return next((s for s in self.slots if s.name == name), None)


@dataclass(frozen=True)
class SgdCorpus:
    root: Path
    services: dict[str, SgdService]
    dialogues: tuple[SgdDialogue, ...]

    @property
    def reference_time(self) -> datetime | None:
        """When the corpus's conversations happen: the schemas' default dates ('date': '2019-03-01' for a
        reservation made without one) are the collection's "today", so 'the 4th of this month' or 'next Friday'
        resolve as the annotators resolved them. Noon UTC of the earliest such date; None when no schema says."""
        days = sorted({value for service in self.services.values() for intent in service.intents
                       for value in intent.optional_slots.values() if _ISO_DATE.fullmatch(value)})
        return datetime.combine(date.fromisoformat(days[0]), time(12, 0), UTC) if days else None

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


def _split_dir(root: Path, split: str = SPLIT) -> Path:
    if split not in SPLITS:
        raise SgdError(f"unknown SGD split {split!r} (known: {', '.join(SPLITS)})", code="sgd.split_unknown")
    folder = root / split
    if not (folder / "schema.json").is_file():
        raise SgdError(f"no SGD {split} split at {root} (expected {split}/schema.json; pass --sgd DIR)",
                       code="sgd.data_missing")
    return folder


def _where(exc: ValidationError) -> str:
    where, message = first_validation_error(exc, "/")
    return f"{where}: {message}"


def _read_services(path: Path) -> list[SgdService]:
    raw = _read_json(path)
    if not isinstance(raw, list):
        raise SgdError(f"{path.name}: expected a list of services", code="sgd.data_invalid")
    try:
        return [SgdService.model_validate(item) for item in raw]
    except ValidationError as exc:
        raise SgdError(f"{path.name} at {_where(exc)}", code="sgd.data_invalid") from exc


def _renamed(original: SgdService, variant: SgdService, path: Path) -> SgdService:
    """The variant's descriptions under the original's service and slot names (slots and intents correspond by
    position, as SGD-X lists them)."""
    if len(original.slots) != len(variant.slots) or len(original.intents) != len(variant.intents):
        raise SgdError(f"{path}: {variant.service_name} does not list {original.service_name}'s slots and intents",
                       code="sgd.data_invalid")
    names = {v.name: o.name for o, v in zip(original.slots, variant.slots, strict=True)}
    slots = [v.model_copy(update={"name": o.name}) for o, v in zip(original.slots, variant.slots, strict=True)]
    intents = [v.model_copy(update={
        "name": o.name,
        "required_slots": [names.get(n, n) for n in v.required_slots],
        "optional_slots": {names.get(n, n): value for n, value in v.optional_slots.items()},
    }) for o, v in zip(original.intents, variant.intents, strict=True)]
    return variant.model_copy(update={"service_name": original.service_name, "slots": slots, "intents": intents})


def _variant_services(root: Path, split: str, variant: int, originals: dict[str, SgdService]) -> list[SgdService]:
    if variant not in VARIANTS:
        raise SgdError(f"unknown SGD-X variant {variant} (known: 0 = original, {VARIANTS[0]}..{VARIANTS[-1]})",
                       code="sgd.variant_unknown")
    path = root / "sgd_x" / f"v{variant}" / split / "schema.json"
    if not path.is_file():
        raise SgdError(f"no SGD-X variant v{variant} of the {split} split at {path}", code="sgd.data_missing")
    renamed = []
    for service in _read_services(path):
        base = service.service_name[:-len(str(variant))] if service.service_name.endswith(str(variant)) else ""
        if base not in originals:
            raise SgdError(f"{path}: {service.service_name} names no service of the original schema",
                           code="sgd.data_invalid")
        renamed.append(_renamed(originals[base], service, path))
    return renamed


def load_schema(root: Path, splits: Sequence[str] = (SPLIT,), variant: int = 0) -> dict[str, SgdService]:
    """Every service of the splits (a service in two splits is listed once, from the first split that has it); with
    ``variant`` k, SGD-X's wording k of each (see the module docstring)."""
    services: dict[str, SgdService] = {}
    for split in splits:
        originals = {s.service_name: s for s in _read_services(_split_dir(root, split) / "schema.json")}
        chosen = list(originals.values()) if variant == 0 else _variant_services(root, split, variant, originals)
        for service in chosen:
            services.setdefault(service.service_name, service)
    return services


def load_corpus(root: Path, services: set[str] | None = None, splits: Sequence[str] = (SPLIT,),
                variant: int = 0) -> SgdCorpus:
    """The schema (``variant``: see ``load_schema``) and every dialogue of the splits (only those touching
    ``services`` when given)."""
    schema = load_schema(root, splits, variant)
    dialogues: list[SgdDialogue] = []
    for split in splits:
        folder = _split_dir(root, split)
        files = sorted(folder.glob("dialogues_*.json"))
        if not files:
            raise SgdError(f"no dialogues_*.json files in {folder}", code="sgd.data_missing")
        for path in files:
            raw = _read_json(path)
            if not isinstance(raw, list):
                raise SgdError(f"{path.name}: expected a list of dialogues", code="sgd.data_invalid")
            for item in raw:
                if services is not None and isinstance(item, dict) and not services & set(item.get("services") or ()):
                    continue  # skip parsing dialogues of services nobody asked for
                try:
                    dialogue = SgdDialogue.model_validate(item)
                except ValidationError as exc:
                    raise SgdError(f"{path.name} at {_where(exc)}", code="sgd.data_invalid") from exc
                dialogue_id = f"{split}-{dialogue.dialogue_id}" if len(splits) > 1 else dialogue.dialogue_id
                dialogues.append(dialogue.model_copy(update={"dialogue_id": dialogue_id, "split": split}))
    return SgdCorpus(root=root, services=schema, dialogues=tuple(dialogues))
