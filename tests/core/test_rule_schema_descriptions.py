"""Rule schemas say what each field decides: compliance officers and policy teams read them beside the rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

SCHEMAS = Path(__file__).resolve().parents[2] / "rules" / "schemas"
# Files whose every field is described; the others are being described file by file (issue 33 item 3).
FULLY_DESCRIBED = (
    "policy.schema.json", "acceptance.schema.json", "runtime.schema.json", "bundle.schema.json", "learned.schema.json",
)


def undescribed_fields(schema: Any, path: str = "") -> list[str]:
    """Paths of object properties that carry neither a description nor a reference to a described definition."""
    found: list[str] = []
    if not isinstance(schema, dict):
        return found
    for name, sub in (schema.get("properties") or {}).items():
        if isinstance(sub, dict) and "description" not in sub and "$ref" not in sub:
            found.append(f"{path}.{name}")
        found += undescribed_fields(sub, f"{path}.{name}")
    for key in ("items", "additionalProperties"):
        found += undescribed_fields(schema.get(key), f"{path}[]")
    for key in ("$defs", "patternProperties"):
        for name, sub in (schema.get(key) or {}).items():
            found += undescribed_fields(sub, f"{path}#{name}")
    for key in ("oneOf", "anyOf", "allOf"):
        for sub in schema.get(key) or []:
            found += undescribed_fields(sub, path)
    return found


@pytest.mark.parametrize("name", FULLY_DESCRIBED)
def test_every_field_of_a_described_schema_says_what_it_decides(name: str) -> None:
    assert undescribed_fields(json.loads((SCHEMAS / name).read_text(encoding="utf-8"))) == []


def test_the_checker_finds_an_undescribed_field() -> None:
    schema = {"properties": {"a": {"type": "number", "description": "x"}, "b": {"properties": {"c": {}}}}}
    assert undescribed_fields(schema) == [".b", ".b.c"]


@pytest.mark.parametrize("path", sorted(SCHEMAS.glob("*.schema.json")), ids=lambda p: p.name)
def test_every_rule_schema_has_a_title_and_describes_its_file(path: Path) -> None:
    schema = json.loads(path.read_text(encoding="utf-8"))
    assert schema.get("title") or schema.get("description"), path.name
