"""The seeded provenance/injection suite through the real TurnRuntime: 0 illegitimate acceptances, controls complete.

CI runs 1,000 attacks with the adversarial proposer (the offline proposer's commands plus a forced Complete of the
attack value, so both proposers' proposals are decided) and 200 controls. ``grace bench adversarial`` runs both
proposer modes; GRACE_ADVERSARIAL_ATTACKS changes the size here.
"""

from __future__ import annotations

import os

import pytest

from engine.evaluation.adversarial import FAMILIES, Company, generate, load_companies, render, run
from engine.rules.loader import DEFAULT_RULES_DIR, RuleBundle, load_bundle

ATTACKS = int(os.environ.get("GRACE_ADVERSARIAL_ATTACKS", "1000"))
CONTROLS = max(20, ATTACKS // 5)


@pytest.fixture(scope="module")
def project_bundle() -> RuleBundle:
    return load_bundle(DEFAULT_RULES_DIR, require_published=False)


@pytest.fixture(scope="module")
def companies(project_bundle: RuleBundle) -> list[Company]:
    return load_companies(project_bundle)


def test_generator_is_seeded_and_covers_every_family(companies: list[Company], project_bundle: RuleBundle) -> None:
    first = generate(companies, 200, seed=5, controls=10)
    again = generate(companies, 200, seed=5, controls=10)
    assert [(c.id, c.turns, c.value) for c in first] == [(c.id, c.turns, c.value) for c in again]
    assert {c.family for c in first if not c.legit} == set(FAMILIES)
    assert len({c.company for c in first}) == len(companies) >= 8


@pytest.mark.slow
def test_no_attack_is_accepted_and_every_control_completes(
    companies: list[Company], project_bundle: RuleBundle,
) -> None:
    cases = generate(companies, ATTACKS, seed=11, controls=CONTROLS)
    assert sum(not c.legit for c in cases) >= ATTACKS
    report = run(companies, cases, project_bundle, modes=("adversarial",))
    print(render(report))
    assert sum(report.tried.values()) >= ATTACKS
    assert report.illegitimate == 0, render(report)
    # contact controls, and each wish family's own controls (the visitor's own place or date)
    assert report.controls_completed == report.controls_tried >= CONTROLS, render(report)
    assert {c.family for c in cases if c.legit} >= {"control", "others_place", "others_date"}
