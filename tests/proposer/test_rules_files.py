"""The proposer's rule files: schema-valid, loadable from a folder or a bundle, failing closed when broken."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from engine.rules.loader import DEFAULT_RULES_DIR
from llm_adapters.offline import build_rules, load_offline_rules
from llm_adapters.offline.errors import OfflineRulesError
from llm_adapters.offline.offline_rules import PROPOSER_FOLDERS, read_rule_files
from tests.proposer.helpers import project_bundle


def _copy_rules(tmp_path: Path) -> Path:
    target = tmp_path / "rules"
    for folder in ("vocabularies", "patterns", "schemas"):
        shutil.copytree(DEFAULT_RULES_DIR / folder, target / folder)
    return target


def test_every_rule_file_carries_version_and_description() -> None:
    files = read_rule_files()
    assert {"patterns/en", "patterns/es", "patterns/common"} <= set(files)
    assert all(data["version"] and data["description"] for data in files.values())


def test_folder_and_bundle_give_the_same_rules() -> None:
    from_dir = load_offline_rules()
    files = {k: v for k, v in project_bundle().files.items() if k.split("/", 1)[0] in PROPOSER_FOLDERS}
    assert build_rules(files).version == from_dir.version
    assert set(build_rules(files).vocabularies) == set(from_dir.vocabularies)


def test_bad_regex_fails_loading_with_a_stable_code(tmp_path: Path) -> None:
    root = _copy_rules(tmp_path)
    path = root / "patterns" / "en.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["cues"]["stop"].append("(unclosed")
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(OfflineRulesError) as error:
        load_offline_rules(root)
    assert error.value.code == "proposer.pattern_invalid"


def test_schema_violation_fails_loading(tmp_path: Path) -> None:
    root = _copy_rules(tmp_path)
    path = root / "vocabularies" / "real_estate_features.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["kind"] = "colours"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(OfflineRulesError) as error:
        load_offline_rules(root)
    assert error.value.code == "proposer.rules_schema"


def test_unknown_cue_name_is_a_schema_violation(tmp_path: Path) -> None:
    root = _copy_rules(tmp_path)
    path = root / "patterns" / "es.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["cues"]["refusals"] = ["typo"]
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(OfflineRulesError):
        load_offline_rules(root)


def test_missing_common_patterns_fail_closed() -> None:
    files = {k: v for k, v in read_rule_files().items() if k != "patterns/common"}
    with pytest.raises(OfflineRulesError) as error:
        build_rules(files)
    assert error.value.code == "proposer.rules_missing"


def test_vocabulary_terms_match_regardless_of_accents_and_case() -> None:
    rules = load_offline_rules()
    places = rules.vocabularies["real_estate_places"]
    assert ("mojacar", "mojacar") in places.terms
    assert all(term == term.casefold() for term, _ in places.terms)
