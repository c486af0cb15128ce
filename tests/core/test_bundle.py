"""Rule bundles: schema validation, publication, tamper refusal, last-good serving and Z3 properties."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.errors import IntegrityError, PublicationError, RuleBundleError
from engine.kernel.decision.bundle_proofs import load_verified_bundle
from engine.kernel.decision.invariants import prove_bundle
from engine.rules.loader import BundleHolder, approve_bundle, load_bundle
from tests.conftest import copy_core_rules


@pytest.fixture()
def rules(tmp_path: Path) -> Path:
    return copy_core_rules(tmp_path / "rules")


def _edit(path: Path, **changes: object) -> None:
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data))


def test_unpublished_bundle_refused_at_runtime(rules: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRACE_RULES_DRAFT", raising=False)
    with pytest.raises(PublicationError) as err:
        load_bundle(rules)
    assert err.value.code == "rules.not_published"


def test_publish_then_load(rules: Path) -> None:
    record = approve_bundle(rules, "Compliance Officer")
    bundle = load_verified_bundle(rules)
    assert bundle.content_hash == record["content_hash"]
    assert bundle.published is not None and bundle.published["approved_by"] == "Compliance Officer"
    assert approve_bundle(rules, "Someone Else")["approved_by"] == "Compliance Officer"  # idempotent


def test_modified_after_publication_is_refused_and_holder_keeps_serving(rules: Path) -> None:
    approve_bundle(rules, "CO")
    holder = BundleHolder(rules, loader=load_verified_bundle)
    serving = holder.bundle.content_hash
    _edit(rules / "policy.json", epsilon=-0.5)
    with pytest.raises(IntegrityError) as err:
        holder.reload()
    assert err.value.code == "rules.modified_after_publication"
    assert "policy.json" in err.value.message
    assert holder.bundle.content_hash == serving
    with pytest.raises(PublicationError) as again:
        approve_bundle(rules, "CO")  # same version, other content
    assert again.value.code == "rules.version_exists"


def test_a_schema_that_breaks_its_metaschema_is_refused_whether_or_not_the_bundle_was_published(
    rules: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRACE_RULES_DRAFT", "1")
    approve_bundle(rules, "CO")
    load_bundle(rules)  # published, unchanged: loads without re-checking the schemas' metaschema
    _edit(rules / "schemas" / "policy.schema.json", type=17)  # not a JSON Schema type name
    for attempt in (lambda: load_bundle(rules), lambda: approve_bundle(rules, "CO")):
        with pytest.raises(RuleBundleError) as err:  # refused for the schema, before the hash comparison
            attempt()
        assert err.value.code == "rules.schema_invalid" and "policy.json" in err.value.message
    _edit(rules / "bundle.json", version="9.1.0")  # a new draft version: no publication record to lean on
    with pytest.raises(RuleBundleError) as draft:
        load_bundle(rules)
    assert draft.value.code == "rules.schema_invalid"


def test_new_version_can_be_published(rules: Path) -> None:
    approve_bundle(rules, "CO")
    _edit(rules / "policy.json", epsilon=-0.1)
    _edit(rules / "bundle.json", version="9.0.0")
    approve_bundle(rules, "CO")
    assert load_verified_bundle(rules).version == "9.0.0"


@pytest.mark.invariant("I-8", "I-9")
def test_all_properties_proved_on_shipped_policy(rules: Path) -> None:
    results = prove_bundle(load_bundle(rules, require_published=False))
    assert {r.status for r in results} == {"proved"}
    assert len(results) == 14  # 8 policy properties + 5 contact-provenance + 1 wish rule proof (I-14)


@pytest.mark.parametrize(
    ("changes", "refuted"),
    [
        ({"vetoed_ask_utility": 0.5}, {"refused_objective_never_asked", "stop_blocks_every_question"}),
        ({"none_utility": -1.0}, {"none_always_feasible"}),
    ],
)
def test_unsafe_policy_is_refuted(rules: Path, changes: dict[str, object], refuted: set[str]) -> None:
    _edit(rules / "policy.json", **changes)
    results = prove_bundle(load_bundle(rules, require_published=False))
    assert {r.name for r in results if r.status == "refuted"} == refuted
    with pytest.raises(RuleBundleError) as err:
        load_verified_bundle(rules, require_published=False)
    assert err.value.code == "rules.property_not_proved"


def test_uncertainty_cooldown_property_depends_on_levels(rules: Path) -> None:
    policy = json.loads((rules / "policy.json").read_text())
    policy["offline_rubric"]["relevance_uncertain_recent"] = 1.0
    policy["offline_rubric"]["burden_uncertain_recent"] = 0.0
    (rules / "policy.json").write_text(json.dumps(policy))
    failed = {r.name for r in prove_bundle(load_bundle(rules, require_published=False)) if r.status != "proved"}
    assert failed == {"uncertain_objective_not_reasked_in_cooldown"}


def test_approving_an_unchanged_bundle_says_why_by_is_not_recorded(
        rules: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from engine.cli import main

    assert main(["rules", "approve", "--rules", str(rules), "--by", "Compliance Officer"]) == 0
    assert "published bundle" in capsys.readouterr().out
    assert main(["rules", "approve", "--rules", str(rules), "--by", "Someone Else"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("unchanged:") and "approved by Compliance Officer" in out
    assert "--by 'Someone Else' is not recorded" in out and "immutable" in out
