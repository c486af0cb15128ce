"""What ships must be published and intact: the rule bundle, its proofs and every demo's goal spec."""

from __future__ import annotations

import pytest

from engine.demos import demo_names, load_demo
from engine.goals.validation import validate_spec
from engine.kernel.decision.bundle_proofs import load_verified_bundle
from engine.rules.loader import DEFAULT_RULES_DIR, load_bundle


def test_shipped_bundle_is_published_unmodified_and_proved(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRACE_RULES_DRAFT", raising=False)
    bundle = load_verified_bundle(DEFAULT_RULES_DIR)
    assert bundle.published is not None
    assert bundle.published["content_hash"] == bundle.content_hash


def test_every_demo_spec_is_published_and_valid() -> None:
    bundle = load_bundle(DEFAULT_RULES_DIR, require_published=False)
    names = demo_names()
    assert {"real-estate", "cleaning"} <= set(names)
    for name in names:
        demo = load_demo(name)
        validate_spec(demo.spec.spec, bundle)


def test_paper_demo_objectives_match_tables_ii_and_iv() -> None:
    real_estate = load_demo("real-estate").spec.spec
    assert [(o.id, str(o.weight), o.criterion.kind.value) for o in real_estate.ordered()] == [
        ("budget", "0.35", "money"), ("location", "0.25", "place"),
        ("requirements", "0.20", "features"), ("contact", "0.20", "contact")]
    cleaning = load_demo("cleaning").spec.spec
    assert [(o.id, str(o.weight), o.criterion.kind.value) for o in cleaning.ordered()] == [
        ("client_type", "0.35", "enumeration"), ("location", "0.25", "place"),
        ("service_type", "0.20", "enumeration"), ("contact", "0.20", "contact")]
