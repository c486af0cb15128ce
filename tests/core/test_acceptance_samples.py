"""Every acceptance rule carries samples it must reject and near misses the bundle must accept, and they hold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cli import main
from engine.kernel.decision.samples import ACCEPTED_BASE, rules_without_samples, run_samples
from engine.rules.loader import RuleBundle, load_bundle
from tests.conftest import copy_core_rules


def test_shipped_samples_hold(bundle: RuleBundle) -> None:
    results = run_samples(bundle)
    assert results and all(r.ok for r in results), [r.line() for r in results if not r.ok]
    assert rules_without_samples(bundle) == []
    rule_ids = {r["id"] for r in bundle.file("acceptance")["rules"]}
    assert {r.rule_id for r in results if r.expectation == "rejects"} == rule_ids
    assert {r.rule_id for r in results if r.expectation == "accepts"} == rule_ids


def test_the_base_fact_is_accepted(bundle: RuleBundle) -> None:
    from engine.kernel.decision.acceptance import compile_acceptance

    assert compile_acceptance(bundle).evaluate(dict(ACCEPTED_BASE)) is None


def _mutated(tmp_path: Path, rule_id: str, when: dict[str, object]) -> RuleBundle:
    root = copy_core_rules(tmp_path / "rules")
    path = root / "acceptance.json"
    data = json.loads(path.read_text())
    for rule in data["rules"]:
        if rule["id"] == rule_id:
            rule["when"] = when
    path.write_text(json.dumps(data))
    return load_bundle(root, require_published=False)


@pytest.mark.parametrize(("rule_id", "when"), [
    ("A06", {"bit_before": 1}),  # drops the type: a Correct of a complete objective would now be rejected
    ("A07", {"validator_ok": False, "type": "correct"}),  # narrowed: an invalid Complete would be accepted
    ("A11", {"contact_refused": True}),  # rewired to another fact
])
def test_a_rule_that_drifts_from_its_samples_is_caught(tmp_path: Path, rule_id: str, when: dict[str, object]) -> None:
    failed = [r for r in run_samples(_mutated(tmp_path, rule_id, when)) if not r.ok]
    assert failed and {r.rule_id for r in failed} >= {rule_id}


def test_rules_test_and_approve_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # In process through the ``grace`` entry point (engine.cli.main): the same parser, handlers, output and exit
    # codes, without three interpreter start-ups.
    root = copy_core_rules(tmp_path / "ok")
    assert main(["rules", "test", "--rules", str(root)]) == 0
    out = capsys.readouterr().out
    assert "samples hold" in out and "FAIL" not in out
    drifted = _mutated(tmp_path / "bad", "A06", {"bit_before": 1}).root
    assert main(["rules", "test", "--rules", str(drifted)]) == 1
    assert "FAIL A06 accepts[0]" in capsys.readouterr().out
    assert main(["rules", "approve", "--rules", str(drifted), "--by", "tester"]) == 1
    assert "acceptance samples fail" in capsys.readouterr().out
    assert not (drifted / "published").exists() or not any((drifted / "published").iterdir())
