"""`goals validate` / `goals approve` refuse a spec that drops part of its intent or cannot be completed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.cli import main
from engine.compiler.compiler_rules import CompilerRules
from engine.compiler.deterministic import DeterministicCompiler
from engine.compiler.model import CompileInput
from engine.compiler.weights import rank_weights
from engine.goals.validation import parse_spec, semantic_issues
from engine.kernel.goal_models import GoalSpec
from engine.rules.loader import RuleBundle

DEMOS = Path(__file__).resolve().parents[2] / "demos"
LOCALE = {"currency": "EUR", "phone_region": "ES", "time_zone": "Europe/Madrid"}
INTENT = ("We want to know the reason for the visit, which insurance provider they have, the preferred day and "
          "a phone number.")


def _without(data: dict[str, Any], objective_id: str, rules: CompilerRules) -> dict[str, Any]:
    """The spec with one objective removed, weights and orders renumbered so only coverage can fail."""
    objectives = sorted((o for o in data["objectives"] if o["id"] != objective_id), key=lambda o: o["order"])
    for rank, (objective, weight) in enumerate(zip(objectives, rank_weights(len(objectives), rules.weights),
                                                   strict=True), start=1):
        objective.update(order=rank, weight=str(weight))
    data = {**data, "objectives": objectives, "initial_state": [0] * len(objectives)}
    used = {o["criterion"]["params"].get("vocabulary") for o in objectives}
    data["vocabularies"] = {k: v for k, v in data.get("vocabularies", {}).items() if k in used}
    return data


def _codes(data: dict[str, Any], bundle: RuleBundle) -> list[str]:
    return [code for code, _ in semantic_issues(parse_spec(data), bundle)]


@pytest.fixture()
def compiled(compiler: DeterministicCompiler) -> GoalSpec:
    return compiler.compile(CompileInput(intent=INTENT, language="en", **LOCALE)).spec


def test_a_compiled_spec_accounts_for_every_phrase(compiled: GoalSpec, draft_bundle: RuleBundle) -> None:
    assert semantic_issues(compiled, draft_bundle) == []
    assert [o.criterion.params["intent_phrases"] for o in compiled.ordered()] == [
        ["reason for the visit"], ["which insurance provider they have"], ["preferred day"], ["phone number"]]


def test_dropping_an_objective_is_refused(compiled: GoalSpec, draft_bundle: RuleBundle,
                                          compiler_rules: CompilerRules) -> None:
    data = _without(compiled.model_dump(mode="json"), "provider", compiler_rules)
    issues = semantic_issues(parse_spec(data), draft_bundle)
    assert [code for code, _ in issues] == ["goalspec.intent_phrase_unaccounted"]
    assert "which insurance provider they have" in issues[0][1]


def test_claiming_a_phrase_the_intent_does_not_contain_is_refused(compiled: GoalSpec,
                                                                  draft_bundle: RuleBundle) -> None:
    data = compiled.model_dump(mode="json")
    data["manager_intent"] = INTENT.replace("which insurance provider they have, ", "")
    assert "goalspec.intent_phrase_unknown" in _codes(data, draft_bundle)


def test_a_hand_written_spec_is_checked_by_kind(draft_bundle: RuleBundle, compiler_rules: CompilerRules) -> None:
    data = json.loads((DEMOS / "real_estate" / "goal_spec.json").read_text(encoding="utf-8"))
    assert _codes(data, draft_bundle) == []
    issues = semantic_issues(parse_spec(_without(data, "budget", compiler_rules)), draft_bundle)
    assert [code for code, _ in issues] == ["goalspec.intent_phrase_unaccounted"]
    assert "'budget'" in issues[0][1] and "money" in issues[0][1]


@pytest.mark.parametrize(("objective", "params"), [
    ("preferred_date", {"granularity": "fortnightly"}),
    ("reason", {"cues": ["reason"]}),
    ("contact", {"channels": ["fax"]}),
])
def test_a_criterion_the_proposer_cannot_complete_is_refused(compiled: GoalSpec, draft_bundle: RuleBundle,
                                                             objective: str, params: dict[str, Any]) -> None:
    data = compiled.model_dump(mode="json")
    target = next(o for o in data["objectives"] if o["id"] == objective)
    target["criterion"]["params"].update(params)
    assert _codes(data, draft_bundle) == ["goalspec.criterion_incompletable"]


def test_a_count_with_min_above_max_is_refused(compiler: DeterministicCompiler, draft_bundle: RuleBundle) -> None:
    spec = compiler.compile(CompileInput(intent="We need how many rooms they want and an email.", language="en",
                                         **LOCALE)).spec
    data = spec.model_dump(mode="json")
    data["objectives"][0]["criterion"]["params"].update(min=10, max=2)
    assert _codes(data, draft_bundle) == ["goalspec.criterion_incompletable"]


def test_approve_refuses_and_publishes_nothing(compiled: GoalSpec, draft_bundle: RuleBundle, tmp_path: Path,
                                               compiler_rules: CompilerRules, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GRACE_RULES_DRAFT", "1")
    candidate = tmp_path / "candidate.json"
    candidate.write_text(json.dumps(_without(compiled.model_dump(mode="json"), "contact", compiler_rules)),
                         encoding="utf-8")
    rules = str(draft_bundle.root)
    assert main(["goals", "validate", str(candidate), "--rules", rules]) == 1
    assert "goalspec.intent_phrase_unaccounted" in capsys.readouterr().out
    assert main(["goals", "approve", str(candidate), "--by", "Jane", "--rules", rules]) == 2
    assert "goalspec.intent_phrase_unaccounted" in capsys.readouterr().err
    assert not (tmp_path / "published").exists()


def test_approve_creates_a_registry_folder_but_not_a_missing_parent(
        compiled: GoalSpec, draft_bundle: RuleBundle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GRACE_RULES_DRAFT", "1")
    candidate = tmp_path / "candidate.json"
    candidate.write_text(compiled.model_dump_json(), encoding="utf-8")
    rules = str(draft_bundle.root)
    deep = tmp_path / "no" / "such" / "registry"
    assert main(["goals", "approve", str(candidate), "--by", "Jane", "--rules", rules, "--registry", str(deep)]) == 2
    assert "goalspec.registry_missing" in capsys.readouterr().err
    registry = tmp_path / "registry"
    assert main(["goals", "approve", str(candidate), "--by", "Jane", "--rules", rules, "--registry",
                 str(registry)]) == 0
    assert (registry / compiled.id / "v1.json").is_file()


@pytest.mark.parametrize("claim", ["a phone number", "a phone number.", "phone"])
def test_a_claim_cut_wider_or_narrower_than_the_phrase_still_accounts_for_it(
    compiled: GoalSpec, draft_bundle: RuleBundle, claim: str
) -> None:
    """A later compiler may segment the same part of the intent a little differently; published specs stay valid."""
    data = compiled.model_dump(mode="json")
    contact = next(o for o in data["objectives"] if o["criterion"]["params"]["intent_phrases"] == ["phone number"])
    assert claim in INTENT
    contact["criterion"]["params"]["intent_phrases"] = [claim]
    assert semantic_issues(parse_spec(data), draft_bundle) == []


def test_a_claim_of_another_part_of_the_intent_does_not_account_for_it(
    compiled: GoalSpec, draft_bundle: RuleBundle
) -> None:
    data = compiled.model_dump(mode="json")
    contact = next(o for o in data["objectives"] if o["criterion"]["params"]["intent_phrases"] == ["phone number"])
    contact["criterion"]["params"]["intent_phrases"] = ["preferred day"]
    issues = semantic_issues(parse_spec(data), draft_bundle)
    assert ("goalspec.intent_phrase_unaccounted" in [code for code, _ in issues]
            and any("phone number" in message for _, message in issues))
