"""Every acceptance rule carries samples it must reject and near misses the bundle must accept, and they hold."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.bundle_loader import RuleBundle, load_bundle
from engine.decision.samples import ACCEPTED_BASE, rules_without_samples, run_samples
from tests.conftest import copy_core_rules


def test_shipped_samples_hold(bundle: RuleBundle) -> None:
    results = run_samples(bundle)
    assert results and all(r.ok for r in results), [r.line() for r in results if not r.ok]
    assert rules_without_samples(bundle) == []
    rule_ids = {r["id"] for r in bundle.file("acceptance")["rules"]}
    assert {r.rule_id for r in results if r.expectation == "rejects"} == rule_ids
    assert {r.rule_id for r in results if r.expectation == "accepts"} == rule_ids


def test_the_base_fact_is_accepted(bundle: RuleBundle) -> None:
    from engine.decision.acceptance import compile_acceptance

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


def test_rules_test_and_approve_commands(tmp_path: Path) -> None:
    root = copy_core_rules(tmp_path / "ok")
    ok = subprocess.run([sys.executable, "-m", "engine.cli", "rules", "test", "--rules", str(root)],
                        capture_output=True, text=True, check=False)
    assert ok.returncode == 0 and "samples hold" in ok.stdout and "FAIL" not in ok.stdout
    drifted = _mutated(tmp_path / "bad", "A06", {"bit_before": 1}).root
    bad = subprocess.run([sys.executable, "-m", "engine.cli", "rules", "test", "--rules", str(drifted)],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 1 and "FAIL A06 accepts[0]" in bad.stdout
    refused = subprocess.run([sys.executable, "-m", "engine.cli", "rules", "approve", "--rules", str(drifted),
                              "--by", "tester"], capture_output=True, text=True, check=False)
    assert refused.returncode == 1 and "acceptance samples fail" in refused.stdout
    assert not (drifted / "published").exists() or not any((drifted / "published").iterdir())
