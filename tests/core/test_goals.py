"""Goal-spec validation codes, approval, immutable versions and hash verification."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.errors import GoalSpecError, IntegrityError
from engine.goals.publication import approve, latest_published, list_published, load_published
from engine.goals.validation import parse_spec, read_spec_file, semantic_issues, validate_spec
from engine.rules.loader import RuleBundle
from tests.conftest import make_spec


def _raw() -> dict[str, Any]:
    return make_spec().model_dump(mode="json")


def _codes(bundle: RuleBundle, data: dict[str, Any]) -> list[str]:
    try:
        return [c for c, _ in semantic_issues(parse_spec(data), bundle)]
    except GoalSpecError as exc:
        return [c for c, _ in exc.issues]


def test_valid_spec_has_no_issues(bundle: RuleBundle) -> None:
    assert _codes(bundle, _raw()) == []


@pytest.mark.invariant("I-1")
@pytest.mark.parametrize(
    ("mutate", "code"),
    [
        (lambda d: d["objectives"][1].update(id="budget"), "goalspec.duplicate_id"),
        (lambda d: d["objectives"][0].update(weight="0.30"), "goalspec.weights_not_normalised"),
        (lambda d: d["objectives"][0].pop("questions"), "goalspec.field_missing"),
        (lambda d: d["objectives"][0].update(colour="red"), "goalspec.field_unknown"),
        (lambda d: d["objectives"][0].update(weight="-0.1"), "goalspec.field_invalid"),
        (lambda d: d["objectives"][2].update(order=7), "goalspec.order_invalid"),
        (lambda d: d["objectives"][2]["questions"].pop("es"), "goalspec.question_missing"),
        (lambda d: d["objectives"][2]["criterion"].update(kind="enumeration"), "goalspec.vocabulary_missing"),
        (lambda d: d["objectives"][2]["criterion"].update(params={"vocabulary": "nope"}),
         "goalspec.vocabulary_unknown"),
        (lambda d: d.update(initial_state=[0, 2, 0, 0]), "goalspec.initial_state_invalid"),
        (lambda d: d["objectives"][2].update(name="Religion", questions={"en": "What is your religion?",
                                                                         "es": "¿Cuál es su religión?"}),
         "goalspec.prohibited_category"),
        (lambda d: d["objectives"][2]["criterion"].update(description="the visitor's health condition"),
         "goalspec.prohibited_category"),
    ],
)
def test_each_failure_has_its_code(bundle: RuleBundle, mutate: Any, code: str) -> None:
    data = _raw()
    mutate(data)
    assert code in _codes(bundle, data)


def test_prohibited_category_is_named(bundle: RuleBundle) -> None:
    data = _raw()
    data["objectives"][2]["questions"] = {"en": "Which union are you a member of?", "es": "¿A qué sindicato pertenece?"}
    with pytest.raises(GoalSpecError) as err:
        validate_spec(parse_spec(data), bundle)
    assert err.value.code == "goalspec.prohibited_category"
    assert "union" in err.value.message


def test_bad_json_file(tmp_path: Path) -> None:
    path = tmp_path / "spec.json"
    path.write_text("{not json")
    with pytest.raises(GoalSpecError) as err:
        read_spec_file(path)
    assert err.value.code == "goalspec.json_invalid"


def test_approve_versions_and_immutability(bundle: RuleBundle, tmp_path: Path) -> None:
    spec = make_spec()
    first = approve(spec, bundle, "Manager", tmp_path)
    assert (first.version, first.approved_by) == (1, "Manager")
    assert approve(spec, bundle, "Other", tmp_path).version == 1  # same content, same version
    changed = make_spec(weights=("0.40", "0.20", "0.20", "0.20"))
    second = approve(changed, bundle, "Manager", tmp_path)
    assert second.version == 2 and second.content_hash != first.content_hash
    assert [p.version for p in list_published(tmp_path)] == [1, 2]
    assert latest_published(tmp_path, spec.id).version == 2
    # editing a published file is detected at load
    path = tmp_path / spec.id / "v1.json"
    data = json.loads(path.read_text())
    data["spec"]["objectives"][0]["weight"] = "0.36"
    path.write_text(json.dumps(data))
    with pytest.raises(IntegrityError) as err:
        load_published(path)
    assert err.value.code == "goalspec.hash_mismatch"


def test_approve_rejects_invalid_spec(bundle: RuleBundle, tmp_path: Path) -> None:
    data = _raw()
    data["objectives"][0]["weight"] = "0.5"
    with pytest.raises(GoalSpecError):
        approve(parse_spec(data), bundle, "Manager", tmp_path)
    assert not any(tmp_path.iterdir())
