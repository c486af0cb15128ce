"""rules/compiler.json and rules/governance.json: schema, semantic checks, broken rule files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from engine.compiler.compiler_rules import DEFAULT_RULES_DIR, load_compiler_rules, load_governance_rules
from engine.compiler.errors import CompilerRulesError
from engine.compiler.intent import read_intent
from engine.kernel.goal_models import CriterionKind


@pytest.mark.parametrize("name", ["compiler", "governance"])
def test_rule_files_match_their_schemas(name: str) -> None:
    data = json.loads((DEFAULT_RULES_DIR / f"{name}.json").read_text(encoding="utf-8"))
    schema = json.loads((DEFAULT_RULES_DIR / "schemas" / f"{name}.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(data, schema)
    assert data["version"].count(".") == 2 and data["description"]


def test_kinds_cover_both_languages_and_map_to_criterion_kinds() -> None:
    rules = load_compiler_rules()
    assert rules.languages == ["en", "es", "fr"]
    assert {k.criterion for k in rules.objective_kinds} >= {CriterionKind.MONEY, CriterionKind.PLACE,
                                                          CriterionKind.CONTACT, CriterionKind.ENUMERATION,
                                                          CriterionKind.DATETIME, CriterionKind.QUANTITY}
    for kind in rules.objective_kinds:
        assert kind.questions["en"].endswith("?") and "?" in kind.questions["es"]


def _copy_rules(tmp_path: Path, edit: Any) -> Path:
    shutil.copytree(DEFAULT_RULES_DIR / "schemas", tmp_path / "schemas")
    for name in ("compiler", "governance"):
        data = json.loads((DEFAULT_RULES_DIR / f"{name}.json").read_text(encoding="utf-8"))
        edit(name, data)
        (tmp_path / f"{name}.json").write_text(json.dumps(data), encoding="utf-8")
    return tmp_path


def test_schema_violation_is_a_rule_error(tmp_path: Path) -> None:
    def edit(name: str, data: dict[str, Any]) -> None:
        if name == "compiler":
            data["weights"]["first"] = 2
    with pytest.raises(CompilerRulesError) as info:
        load_compiler_rules(_copy_rules(tmp_path, edit))
    assert info.value.code == "rules.schema_violation" and "weights/first" in info.value.message


def test_duplicate_kind_keys_are_refused(tmp_path: Path) -> None:
    def edit(name: str, data: dict[str, Any]) -> None:
        if name == "compiler":
            data["objective_kinds"].append(dict(data["objective_kinds"][0]))
    with pytest.raises(CompilerRulesError) as info:
        load_compiler_rules(_copy_rules(tmp_path, edit))
    assert "duplicate" in info.value.message


def test_a_broken_pattern_is_reported_with_its_place() -> None:
    data = json.loads((DEFAULT_RULES_DIR / "compiler.json").read_text(encoding="utf-8"))
    data["purpose_markers"]["en"].append("(unclosed")
    with pytest.raises(CompilerRulesError) as info:
        read_intent("We need the budget.", load_compiler_rules(data))
    assert "purpose_markers/en" in info.value.message


def test_governance_exemption_for_a_strict_category_is_refused(tmp_path: Path) -> None:
    def edit(name: str, data: dict[str, Any]) -> None:
        if name == "governance":
            data["exemptions"] = [{"category": "religion", "goal_spec_id": "x", "justification": "0123456789",
                                   "approved_by": "a"}]
    with pytest.raises(CompilerRulesError):
        load_governance_rules(_copy_rules(tmp_path, edit))
