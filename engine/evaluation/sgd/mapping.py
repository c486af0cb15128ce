"""A benchmarked service: its goal spec (``specs/<service>.json``) and slot -> objective mapping
(``mappings/<service>.json``) under the benchmark folder.

A mapping file::

    {"service": "Restaurants_2",
     "objectives": {"party_size": ["number_of_seats"], "location": ["location"], ...},
     "not_objectives": {"phone_number": "the company's answer, not the visitor's evidence", ...}}

Every objective of the spec maps to one or more slots of the service; a slot maps to at most one objective.
``not_objectives`` documents the slots deliberately left out (the system's offers and answers).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.errors import GoalSpecError, first_validation_error
from engine.evaluation.sgd.corpus import SgdService
from engine.evaluation.sgd.errors import SgdError
from engine.goals.validation import read_spec_file
from engine.kernel.goal_models import CriterionKind, GoalSpec, Objective

PROJECT_ROOT = Path(__file__).resolve().parents[3]
DEFAULT_BENCH_DIR = PROJECT_ROOT / "benchmarks" / "sgd"


class MappingFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    service: str = Field(min_length=1)
    objectives: dict[str, list[str]] = Field(min_length=1)
    not_objectives: dict[str, str] = Field(default_factory=dict)


@dataclass(frozen=True)
class ServiceBench:
    """Everything needed to convert and score one service."""

    service: SgdService
    spec: GoalSpec
    spec_path: Path
    slots: dict[str, tuple[str, ...]]  # objective id -> SGD slots, in the spec's objective order

    @property
    def objectives(self) -> list[Objective]:
        return self.spec.ordered()

    def kind(self, objective_id: str) -> CriterionKind:
        return next(o.criterion.kind for o in self.objectives if o.id == objective_id)


def available_services(bench_dir: Path) -> list[str]:
    folder = bench_dir / "mappings"
    if not folder.is_dir():
        raise SgdError(f"no mappings folder at {folder}", code="sgd.mapping_missing")
    return sorted(p.stem for p in folder.glob("*.json"))


def _read_mapping(path: Path) -> MappingFile:
    try:
        return MappingFile.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except OSError as exc:
        raise SgdError(f"cannot read {path}: {exc.strerror}", code="sgd.mapping_missing") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SgdError(f"{path.name}: not JSON ({exc})", code="sgd.mapping_invalid") from exc
    except ValidationError as exc:
        where, message = first_validation_error(exc, "/", "(top)")
        raise SgdError(f"{path.name} at {where}: {message}", code="sgd.mapping_invalid") from exc


def _check(mapping: MappingFile, service: SgdService, spec: GoalSpec, name: str) -> None:
    if mapping.service != service.service_name:
        raise SgdError(f"{name}: maps service {mapping.service!r}, not {service.service_name!r}",
                       code="sgd.mapping_invalid")
    spec_ids = {o.id for o in spec.objectives}
    if set(mapping.objectives) != spec_ids:
        raise SgdError(f"{name}: objectives {sorted(mapping.objectives)} differ from the spec's {sorted(spec_ids)}",
                       code="sgd.mapping_invalid")
    seen: set[str] = set()
    for objective_id, slots in mapping.objectives.items():
        if not slots:
            raise SgdError(f"{name}: objective {objective_id!r} maps no slot", code="sgd.mapping_invalid")
        for slot in slots:
            if service.slot(slot) is None:
                raise SgdError(f"{name}: {service.service_name} has no slot {slot!r}", code="sgd.mapping_invalid")
            if slot in seen:
                raise SgdError(f"{name}: slot {slot!r} maps to two objectives", code="sgd.mapping_invalid")
            seen.add(slot)


def load_service_bench(bench_dir: Path, name: str, services: dict[str, SgdService]) -> ServiceBench:
    service = services.get(name)
    if service is None:
        raise SgdError(f"the SGD schema has no service {name!r}", code="sgd.service_unknown")
    mapping_path = bench_dir / "mappings" / f"{name}.json"
    spec_path = bench_dir / "specs" / f"{name}.json"
    if not mapping_path.is_file() or not spec_path.is_file():
        known = ", ".join(available_services(bench_dir))
        raise SgdError(f"no spec and mapping for {name!r} under {bench_dir} (benchmarked: {known})",
                       code="sgd.service_unknown")
    mapping = _read_mapping(mapping_path)
    try:
        spec = read_spec_file(spec_path)
    except GoalSpecError as exc:
        raise SgdError(f"{spec_path.name}: {exc.message}", code=exc.code) from exc
    _check(mapping, service, spec, mapping_path.name)
    slots = {o.id: tuple(mapping.objectives[o.id]) for o in spec.ordered()}
    return ServiceBench(service=service, spec=spec, spec_path=spec_path, slots=slots)
