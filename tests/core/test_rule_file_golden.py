"""Golden files for rule-file validation errors (tests/golden/rule_errors/cases.json)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from engine.errors import RuleBundleError
from engine.rules.loader import validate_files
from tests.conftest import copy_core_rules

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "rule_errors" / "cases.json"
CASES: list[dict[str, Any]] = json.loads(GOLDEN.read_text())["cases"]


def _apply(data: dict[str, Any], case: dict[str, Any]) -> None:
    for pointer in case.get("delete", []):
        *parents, last = pointer.split("/")
        node: Any = data
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        del node[last]
    for pointer, value in case.get("set", {}).items():
        *parents, last = pointer.split("/")
        node = data
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_rule_file_error_matches_golden(tmp_path: Path, case: dict[str, Any]) -> None:
    rules = copy_core_rules(tmp_path / "rules")
    target = rules / case["file"]
    if "raw" in case:
        target.write_text(case["raw"])
    else:
        data = json.loads(target.read_text())
        _apply(data, case)
        target.write_text(json.dumps(data))
    with pytest.raises(RuleBundleError) as err:
        validate_files(rules)
    got = {"code": err.value.code, "message": err.value.message}
    if os.environ.get("GRACE_UPDATE_GOLDEN"):
        case["expected"] = got
        GOLDEN.write_text(json.dumps({"description": json.loads(GOLDEN.read_text())["description"], "cases": CASES},
                                     indent=2, ensure_ascii=False) + "\n")
    assert got == case["expected"]
