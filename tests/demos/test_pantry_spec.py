"""The pantry-helpline goal spec and its vocabularies: valid, publishable, bilingual, and free of directory towns
and of prohibited data categories."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from engine.cli import main
from engine.compiler.compiler_rules import load_governance_rules
from engine.compiler.governance import find_prohibited
from engine.goals.publication import load_published, spec_hash
from engine.goals.validation import read_spec_file, validate_spec
from engine.kernel.goal_models import CriterionKind, PublishedGoalSpec
from engine.rules.loader import DEFAULT_RULES_DIR, RuleBundle
from engine.text import fold
from tests.demos.conftest import SPEC_FILE

SHARED_KANSAS = Path(__file__).resolve().parents[3] / "shared" / "data" / "directories" / "kansas"


def test_spec_validates_against_the_project_bundle(project_bundle: RuleBundle) -> None:
    spec = validate_spec(read_spec_file(SPEC_FILE), project_bundle)
    assert [(o.id, o.criterion.kind, o.weight) for o in spec.ordered()] == [
        ("location", CriterionKind.PLACE, Decimal("0.40")),
        ("household", CriterionKind.FEATURES, Decimal("0.35")),
        ("contact", CriterionKind.CONTACT, Decimal("0.25")),
    ]
    assert sum((o.weight for o in spec.objectives), Decimal(0)) == Decimal(1)
    assert spec.default_language == "en" and set(spec.languages) == {"en", "es"}
    for objective in spec.objectives:
        assert set(objective.questions) == {"en", "es"}
        assert objective.questions["en"].endswith("?") and objective.questions["es"].startswith("¿")
    contact = next(o for o in spec.objectives if o.id == "contact")
    assert contact.criterion.params == {"channels": ["email", "phone"], "default_region": "US"}


def test_vocabularies_have_the_kinds_the_spec_needs(project_bundle: RuleBundle) -> None:
    places = project_bundle.vocabularies["pantry_places"]
    needs = project_bundle.vocabularies["pantry_household_needs"]
    assert places.kind == "place" and places.allow_unlisted
    assert needs.kind == "features"
    assert {"household_size", "children", "seniors", "baby_food", "diapers", "halal", "kosher", "fresh_produce",
            "no_id", "delivery"} <= set(needs.options)


@pytest.mark.parametrize("vocabulary_id", ["pantry_places", "pantry_household_needs"])
def test_no_term_belongs_to_two_options(project_bundle: RuleBundle, vocabulary_id: str) -> None:
    vocabulary = project_bundle.vocabularies[vocabulary_id]
    owners: dict[str, set[str]] = {}
    for option in vocabulary.options:
        for term in vocabulary.terms(option):
            owners.setdefault(fold(term), set()).add(option)
    assert {term: opts for term, opts in owners.items() if len(opts) > 1} == {}


def test_household_terms_ask_for_no_prohibited_category(project_bundle: RuleBundle) -> None:
    rules = load_governance_rules(project_bundle.file("governance"))
    needs = project_bundle.vocabularies["pantry_household_needs"]
    terms = [term for option in needs.options for term in needs.terms(option)]
    assert find_prohibited(terms, rules) == []
    # the check can fail: a health term is caught by the same rules
    assert [m.label for m in find_prohibited(["diabetic diet", "medical needs"], rules)] == ["health"]


@pytest.mark.skipif(not (SHARED_KANSAS / "pantry_data.json").exists(), reason="shared Kansas directory not present")
def test_place_vocabulary_lists_no_town_or_county_of_the_directory(project_bundle: RuleBundle) -> None:
    from engine.directory.directory_rules import load_rules
    from engine.directory.ingest import load_directory

    mapping = DEFAULT_RULES_DIR.parent / "demos" / "directories" / "mappings" / "kansas.json"
    directory = load_directory(SHARED_KANSAS / "pantry_data.json", mapping, load_rules(DEFAULT_RULES_DIR))
    names = {fold(n) for r in directory.records for n in (r.city, *r.counties, *r.county_keys) if n}
    assert len(names) > 100  # the directory really was read: its towns and counties
    places = project_bundle.vocabularies["pantry_places"]
    listed = {fold(t) for option in places.options for t in places.terms(option)}
    assert listed.isdisjoint(names)


def test_cli_validates_and_approves_into_a_scratch_registry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRACE_RULES_DRAFT", "1")
    rules = str(DEFAULT_RULES_DIR)
    assert main(["goals", "validate", str(SPEC_FILE), "--rules", rules]) == 0
    assert "valid" in capsys.readouterr().out
    registry = tmp_path / "registry"
    args = ["goals", "approve", str(SPEC_FILE), "--by", "tester", "--registry", str(registry), "--rules", rules]
    assert main(args) == 0
    published = load_published(registry / "pantry-helpline" / "v1.json")
    assert published.content_hash == spec_hash(read_spec_file(SPEC_FILE))
    assert main(args) == 0  # identical content: the same version, no v2
    assert sorted(p.name for p in (registry / "pantry-helpline").iterdir()) == ["v1.json"]


def test_fixture_publication_matches_the_file(pantry_spec: PublishedGoalSpec) -> None:
    assert pantry_spec.ref == "pantry-helpline/v1"
    assert pantry_spec.content_hash == spec_hash(read_spec_file(SPEC_FILE))
