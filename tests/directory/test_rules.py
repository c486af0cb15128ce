from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest

from engine.directory.directory_rules import RULE_FILES, directory_rules, load_rules
from engine.directory.errors import DirectoryRulesError
from engine.errors import RuleBundleError
from engine.rules.loader import DEFAULT_RULES_DIR, load_bundle


def test_every_rule_file_is_versioned_and_schema_valid() -> None:
    for stem in RULE_FILES:
        data = json.loads((DEFAULT_RULES_DIR / "directory" / f"{stem}.json").read_text())
        schema = json.loads((DEFAULT_RULES_DIR / "schemas" / f"directory_{stem}.schema.json").read_text())
        jsonschema.validate(data, schema)
        assert data["version"] and data["description"]


def test_loaded_vocabulary_is_consistent() -> None:
    rules = load_rules()
    assert len({part.id for part in rules.time.dayparts}) == len(rules.time.dayparts)
    assert set(rules.time.day_words.values()) == set(range(7))
    for concept in rules.semantic.concepts.values():
        assert concept.labels["en"] and concept.evidence_patterns
        assert concept.negation is None or concept.negation in rules.semantic.concepts


def copy_rules(tmp_path: Path) -> Path:
    """A whole bundle (the directory rules are read from the verified bundle, never from loose files)."""
    root = tmp_path / "rules"
    shutil.copytree(DEFAULT_RULES_DIR, root, ignore=shutil.ignore_patterns("published"))
    return root


def test_bad_regex_is_refused_at_load(tmp_path: Path) -> None:
    root = copy_rules(tmp_path)
    path = root / "directory" / "semantic_constraints.json"
    data = json.loads(path.read_text())
    data["concepts"][0]["evidence_patterns"].append("(unclosed")
    path.write_text(json.dumps(data))
    with pytest.raises(DirectoryRulesError) as info:
        load_rules(root)
    assert info.value.code == "directory.rules_regex_invalid"


def test_schema_violation_is_refused(tmp_path: Path) -> None:
    root = copy_rules(tmp_path)
    path = root / "directory" / "retrieval.json"
    data = json.loads(path.read_text())
    data["k"] = 0
    path.write_text(json.dumps(data))
    with pytest.raises(RuleBundleError) as info:
        load_rules(root)
    assert info.value.code == "rules.schema_violation"


def test_policy_numbers_come_from_the_rule_file(tmp_path: Path) -> None:
    root = copy_rules(tmp_path)
    path = root / "directory" / "retrieval.json"
    data = json.loads(path.read_text())
    data["k"] = 5
    path.write_text(json.dumps(data))
    assert load_rules(root).retrieval.k == 5


def test_rules_come_from_the_bundle_in_memory_not_the_folder(tmp_path: Path) -> None:
    root = copy_rules(tmp_path)
    bundle = load_bundle(root, require_published=False)
    path = root / "directory" / "retrieval.json"
    data = json.loads(path.read_text())
    data["k"] = 7
    path.write_text(json.dumps(data))  # edited on disk after the bundle was loaded: never read again
    assert directory_rules(bundle).retrieval.k == json.loads(
        (DEFAULT_RULES_DIR / "directory" / "retrieval.json").read_text())["k"]


def test_a_missing_bundle_is_a_coded_error() -> None:
    with pytest.raises(DirectoryRulesError) as info:
        directory_rules(None)
    assert info.value.code == "directory.rules_missing"


def test_retriever_and_ingest_refuse_to_run_without_rules(small_files: tuple[Path, Path]) -> None:
    from engine.directory.ingest import load_directory
    from engine.directory.retriever import TraceRetriever

    with pytest.raises(DirectoryRulesError) as info:
        load_directory(*small_files)
    assert info.value.code == "directory.rules_missing"
    with pytest.raises(DirectoryRulesError):
        TraceRetriever.from_files(*small_files)
