"""The service's limits file (``limits.json``), validated against its committed JSON Schema."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema

from engine.service.errors import LimitsError

HERE = Path(__file__).resolve().parent
DEFAULT_LIMITS = HERE / "limits.json"
SCHEMA = HERE / "limits.schema.json"


@dataclass(frozen=True)
class Bucket:
    capacity: int
    refill_per_second: float


@dataclass(frozen=True)
class ServiceLimits:
    version: str
    max_body_bytes: int
    idempotency_key_max_chars: int
    turn_commit_attempts: int
    turn_workers: int
    rate_limits: dict[str, Bucket]
    rate_limit_max_clients: int
    console_page_size: int
    shutdown_grace_s: float
    freeze_heap_after_warm_up: bool  # engine/service/heap.py
    slow_commit_log_ms: float  # engine/storage/postgres.py: commits slower than this are logged
    switch_interval_ms: float  # engine/service/heap.py: the GIL switch interval of a serving process

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ServiceLimits:
        schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
        try:
            jsonschema.validate(data, schema)
        except jsonschema.ValidationError as exc:
            where = "/".join(str(p) for p in exc.absolute_path) or "(root)"
            raise LimitsError(f"service limits invalid at {where}: {exc.message}") from exc
        return cls(
            version=data["version"],
            max_body_bytes=data["max_body_bytes"],
            idempotency_key_max_chars=data["idempotency_key_max_chars"],
            turn_commit_attempts=data["turn_commit_attempts"],
            turn_workers=data["turn_workers"],
            rate_limits={name: Bucket(**spec) for name, spec in data["rate_limits"].items()},
            rate_limit_max_clients=data["rate_limit_max_clients"],
            console_page_size=data["console_page_size"],
            shutdown_grace_s=float(data["shutdown_grace_s"]),
            freeze_heap_after_warm_up=bool(data["freeze_heap_after_warm_up"]),
            slow_commit_log_ms=float(data["slow_commit_log_ms"]),
            switch_interval_ms=float(data["switch_interval_ms"]),
        )


def load_limits(path: Path = DEFAULT_LIMITS) -> ServiceLimits:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise LimitsError(f"cannot read service limits {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise LimitsError(f"service limits {path} is not a JSON object")
    return ServiceLimits.from_dict(data)
