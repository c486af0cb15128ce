"""Named operators with roles, instead of one shared token.

viewer   lists conversations (summaries only), goal specs and rule bundles;
sales    also exports the collected values (leads) as CSV or JSON, an action logged with the operator's name;
auditor  also reads a conversation, its audit trail and verification, and the webhook dead letters;
admin    also erases a conversation and requeues a dead letter.

Tokens are stored as SHA-256 hashes in the operators file (``GRACE_OPERATORS_FILE``, schema beside this module);
``GRACE_OPERATOR_TOKEN`` alone still works and names a single admin called "operator". Every operator request is
logged with the operator's name and role."""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path

import jsonschema

from engine.service.errors import RequestError

SCHEMA_PATH = Path(__file__).with_name("operators.schema.json")
MIN_TOKEN_CHARS = 16


class Role(IntEnum):
    VIEWER = 1
    SALES = 2  # the company's sales staff: the leads export, not the audit trail
    AUDITOR = 3
    ADMIN = 4

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(frozen=True)
class Operator:
    name: str
    role: Role

    def may(self, needed: Role) -> bool:
        return self.role >= needed


class OperatorDirectory:
    def __init__(self, hashed: dict[str, Operator]) -> None:
        self._hashed = hashed

    @staticmethod
    def single(token: str) -> OperatorDirectory:
        return OperatorDirectory({token_hash(token): Operator("operator", Role.ADMIN)})

    @staticmethod
    def from_file(path: Path, legacy_token: str | None = None) -> OperatorDirectory:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise RequestError(f"cannot read operators file {path}: {exc}",
                               code="service.operators_unreadable") from None
        try:
            jsonschema.validate(data, json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))
        except jsonschema.ValidationError as exc:
            raise RequestError(f"{path.name}: {exc.message}", code="service.operators_invalid") from None
        hashed: dict[str, Operator] = {}
        names: set[str] = set()
        for item in data["operators"]:
            if item["name"] in names or item["token_sha256"] in hashed:
                raise RequestError(f"{path.name}: operator {item['name']} or its token is listed twice",
                                   code="service.operators_invalid")
            names.add(item["name"])
            hashed[item["token_sha256"]] = Operator(item["name"], Role[item["role"].upper()])
        if legacy_token:
            hashed.setdefault(token_hash(legacy_token), Operator("operator", Role.ADMIN))
        return OperatorDirectory(hashed)

    def identify(self, presented: str) -> Operator | None:
        digest = token_hash(presented)
        for known, operator in self._hashed.items():  # constant-time per entry: no early exit on a prefix
            if hmac.compare_digest(known, digest):
                return operator
        return None

    def __len__(self) -> int:
        return len(self._hashed)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()
