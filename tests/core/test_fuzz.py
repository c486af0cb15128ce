"""Mutation fuzzer over proposer outputs (CI size: 10,000 mutated proposals; ``grace bench fuzz`` runs 100,000).

Every mutated batch that parses is decided by the engine and judged by the spec/ reference model and by direct
invariant checks; the fuzzer must find nothing on the shipped rules, and must find something on broken ones.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from engine.evaluation.fuzz import Base, base_batches, render, run
from engine.rules.loader import DEFAULT_RULES_DIR, RuleBundle, load_bundle

COUNT = int(os.environ.get("GRACE_FUZZ_COUNT", "10000"))


@pytest.fixture(scope="module")
def project_bundle() -> RuleBundle:
    return load_bundle(DEFAULT_RULES_DIR, require_published=False)


@pytest.fixture(scope="module")
def bases(project_bundle: RuleBundle) -> list[Base]:
    return base_batches(project_bundle)


@pytest.mark.slow
def test_no_mutated_proposal_makes_an_invalid_transition(bases: list[Base], project_bundle: RuleBundle) -> None:
    report = run(bases, project_bundle, COUNT, seed=20261201)
    print(render(report))
    assert report.mutated == COUNT
    assert report.decided > COUNT // 2 and report.accepted_candidates > 0 and report.state_changes > 0
    assert {r for r in report.reasons if r.startswith("provenance.")} >= {
        "provenance.not_visitor_text", "provenance.span_mismatch", "provenance.company_contact",
        "provenance.assistant_echo", "provenance.third_party", "provenance.refused", "provenance.confusable"}
    assert report.invalid_accepted == 0 and report.disagreements == 0, render(report)


# A sweep too (424 recorded turns, then 800 mutations per broken bundle): make test runs it, the edit loop does not.
@pytest.mark.slow
@pytest.mark.parametrize("dropped", ["A03", "A08"])
def test_the_fuzzer_finds_a_missing_acceptance_rule(dropped: str, bases: list[Base], tmp_path: Path) -> None:
    target = tmp_path / "rules"
    shutil.copytree(DEFAULT_RULES_DIR, target, ignore=shutil.ignore_patterns("published"))
    path = target / "acceptance.json"
    data = json.loads(path.read_text())
    data["rules"] = [r for r in data["rules"] if r["id"] != dropped]
    path.write_text(json.dumps(data))
    weak = load_bundle(target, require_published=False)
    report = run(bases, weak, 800, seed=7)
    assert report.invalid_accepted + report.disagreements > 0, render(report)
