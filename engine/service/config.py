"""Service configuration: from explicit arguments, or from the environment for ``grace serve``.

GRACE_DATABASE_URL       sqlite:///relative.db, sqlite:////absolute.db (default: ./.grace/grace.db) or postgresql://...
GRACE_SQLITE_SYNCHRONOUS NORMAL (default) or FULL (fsync on every commit)
GRACE_OPERATOR_TOKEN     bearer token of a single admin operator (required unless --demo or GRACE_OPERATORS_FILE)
GRACE_OPERATORS_FILE     named operators with roles viewer|auditor|admin (engine/service/operators.schema.json)
GRACE_AUDIT_KEY          key of the audit checkpoints/redaction (audit.keys formats; or GRACE_AUDIT_KEY_FILE)
GRACE_CORS_ORIGINS       comma-separated origins allowed to call the API from a browser (default: none)
GRACE_TRUST_FORWARDED    "1": rate-limit by the first X-Forwarded-For address (only behind a trusted proxy)
GRACE_SERVICE_LIMITS     path of a limits JSON file (default: engine/service/limits.json)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from engine.service.errors import RequestError
from engine.service.limits import DEFAULT_LIMITS, ServiceLimits, load_limits
from engine.service.operators import OperatorDirectory

MIN_TOKEN_CHARS = 16


@dataclass(frozen=True)
class ServiceConfig:
    operator_token: str  # a single admin named "operator"; may be empty when operators_file names them
    limits: ServiceLimits = field(default_factory=load_limits)
    cors_origins: tuple[str, ...] = ()
    trust_forwarded: bool = False
    operators_file: Path | None = None  # named operators with roles (engine/service/operators.py)

    def __post_init__(self) -> None:
        # an empty token is allowed only when the operators file names the operators
        if (self.operator_token or self.operators_file is None) and len(self.operator_token) < MIN_TOKEN_CHARS:
            raise RequestError(
                f"operator token must be at least {MIN_TOKEN_CHARS} characters", code="service.token_weak"
            )

    def operators(self) -> OperatorDirectory:
        if self.operators_file is not None:
            return OperatorDirectory.from_file(self.operators_file, self.operator_token or None)
        return OperatorDirectory.single(self.operator_token)


def origins_from(text: str | None) -> tuple[str, ...]:
    if not text:
        return ()
    origins = tuple(o.strip().rstrip("/") for o in text.split(",") if o.strip())
    for origin in origins:
        if origin != "*" and not origin.startswith(("http://", "https://")):
            raise RequestError(
                f"CORS origin {origin!r} must start with http:// or https://", code="service.cors_invalid"
            )
    return origins


def config_from_env(env: Mapping[str, str] | None = None, *, operator_token: str | None = None) -> ServiceConfig:
    source = os.environ if env is None else env
    token = operator_token or source.get("GRACE_OPERATOR_TOKEN", "")
    operators = source.get("GRACE_OPERATORS_FILE")
    if not token and not operators:
        raise RequestError("serving --goals needs an operator token: export GRACE_OPERATOR_TOKEN=<at least 20 "
                           "characters> (e.g. `export GRACE_OPERATOR_TOKEN=$(openssl rand -hex 24)`) or "
                           "GRACE_OPERATORS_FILE=operators.json; --demo generates one", code="service.token_missing")
    limits_path = source.get("GRACE_SERVICE_LIMITS")
    return ServiceConfig(
        operator_token=token,
        limits=load_limits(Path(limits_path) if limits_path else DEFAULT_LIMITS),
        cors_origins=origins_from(source.get("GRACE_CORS_ORIGINS")),
        trust_forwarded=source.get("GRACE_TRUST_FORWARDED", "") == "1",
        operators_file=Path(operators) if operators else None,
    )
