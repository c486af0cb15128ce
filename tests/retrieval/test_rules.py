from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from engine.retrieval import build_answerer
from engine.retrieval.errors import RetrievalConfigError, RetrievalRulesError
from engine.retrieval.retrieval_rules import (
    DEFAULT_RULES_PATH,
    SCHEMA_PATH,
    RetrievalRules,
    load_rules,
    parse_rules,
    rules_from_bundle,
)
from engine.rules.loader import DEFAULT_RULES_DIR, load_bundle


def _raw() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DEFAULT_RULES_PATH.read_text(encoding="utf-8"))
    return data


def test_committed_rules_match_committed_schema() -> None:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(_raw(), schema)
    rules = load_rules(DEFAULT_RULES_PATH)
    assert rules.version == _raw()["version"]
    assert set(rules.languages) >= {"en", "es"}


def test_each_language_has_its_own_unavailable_message() -> None:
    rules = load_rules(DEFAULT_RULES_PATH)
    assert rules.language("en").unavailable_message != rules.language("es").unavailable_message


@pytest.mark.parametrize(
    ("path", "value", "code"),
    [
        (("retrieval", "top_k"), 0, "retrieval.rules.schema"),
        (("grounding", "min_claim_support"), 1.5, "retrieval.rules.schema"),
        (("retrieval", "fusion"), "sum", "retrieval.rules.schema"),
        (("languages", "en", "stemmer"), "klingon", "retrieval.rules.stemmer"),
        (("version",), "one", "retrieval.rules.schema"),
        (("languages", "en", "question", "standalone_wh_words"), ["whither"], "retrieval.rules.question"),
    ],
)
def test_invalid_rules_fail_with_stable_code(path: tuple[str, ...], value: object, code: str) -> None:
    data = copy.deepcopy(_raw())
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(RetrievalRulesError) as info:
        parse_rules(data, json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))
    assert info.value.code == code


def test_missing_and_malformed_rule_files(tmp_path: Path) -> None:
    with pytest.raises(RetrievalRulesError) as missing:
        load_rules(tmp_path / "nope.json")
    assert missing.value.code == "retrieval.rules.missing"
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(RetrievalRulesError) as malformed:
        load_rules(bad)
    assert malformed.value.code == "retrieval.rules.json"


def test_rules_come_from_the_pinned_bundle() -> None:
    bundle = load_bundle(DEFAULT_RULES_DIR, require_published=False)
    assert rules_from_bundle(bundle) == load_rules(DEFAULT_RULES_PATH)


def test_bundle_rules_are_read_from_memory_only(tmp_path: Path) -> None:
    """After verification nothing is re-read from disk: a bundle whose folder is gone still yields its rules,
    and an edit on disk after loading changes nothing."""
    loaded = load_bundle(DEFAULT_RULES_DIR, require_published=False)
    moved = dataclasses.replace(loaded, root=tmp_path / "gone")
    assert rules_from_bundle(moved) == rules_from_bundle(loaded)
    edited = copy.deepcopy(loaded.files)
    edited["retrieval"]["retrieval"]["top_k"] = 3
    assert rules_from_bundle(dataclasses.replace(loaded, files=edited)).retrieval.top_k == 3


def test_the_answerer_needs_the_bundle_or_its_rules(rules: RetrievalRules) -> None:
    """No fallback to the unverified rules folder: without bundle= or rules= the build fails closed."""
    for options in ({}, {"rules": rules, "bundle": load_bundle(DEFAULT_RULES_DIR, require_published=False)}):
        with pytest.raises(RetrievalConfigError) as info:
            build_answerer(DEFAULT_RULES_DIR, embedder="hashing", use_cache=False, **options)
        assert info.value.code == "retrieval.config.rules"


def test_unknown_language_is_refused() -> None:
    with pytest.raises(RetrievalRulesError) as info:
        load_rules(DEFAULT_RULES_PATH).language("de")
    assert info.value.code == "retrieval.language.unsupported"
