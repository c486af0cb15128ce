"""The fourth to sixth blind sets (benchmarks/onboarding_blind4 to 6, companies_en/es/fr 4 to 6) are well formed.

Format only, as for the third sets (tests/evaluation/blind_format.py), plus the brief every batch was written to:
conversations of at most seven visitor turns, and intents in all three languages with every place-naming intent's
locale filled or flagged. Nothing here runs the compiler, the proposer, governance or a scorer: these sets are blind
and are measured once by the commands in their READMEs.
"""

from __future__ import annotations

import json

import pytest

from tests.evaluation.blind_format import (
    BENCHMARKS,
    assert_company_dataset_well_formed,
    assert_configs_match_their_goal_specs,
    assert_intent_set_well_formed,
)

BATCHES = (4, 5, 6)
COMPANY_SETS = tuple(f"companies_{lang}{batch}" for batch in BATCHES for lang in ("en", "es", "fr"))
INTENT_SETS = tuple(f"onboarding_blind{batch}" for batch in BATCHES)


@pytest.mark.parametrize("set_name", COMPANY_SETS)
def test_company_dataset_parses_with_monotone_references(set_name: str) -> None:
    assert_company_dataset_well_formed(set_name, max_turns=7)


@pytest.mark.parametrize("set_name", COMPANY_SETS)
def test_configs_match_their_goal_specs(set_name: str) -> None:
    assert_configs_match_their_goal_specs(set_name)


@pytest.mark.parametrize("set_name", INTENT_SETS)
def test_intent_set_is_well_formed(set_name: str) -> None:
    assert_intent_set_well_formed(set_name)


@pytest.mark.parametrize("set_name", INTENT_SETS)
def test_intent_set_locales_are_all_or_nothing(set_name: str) -> None:
    """A named, unambiguous place gives all three locale fields; no place or an ambiguous name gives none."""
    intents = json.loads((BENCHMARKS / set_name / "intents.json").read_text(encoding="utf-8"))["intents"]
    for intent in intents:
        values = list(intent["expected_locale"].values())
        assert all(values) or not any(values), intent["id"]


def _phone_regions(set_name: str) -> set[str]:
    intents = json.loads((BENCHMARKS / set_name / "intents.json").read_text(encoding="utf-8"))["intents"]
    regions = ((i.get("expected_locale") or {}).get("phone_region") for i in intents)
    return {str(r) for r in regions if r}


def test_sixth_intent_set_names_only_regions_no_earlier_set_named() -> None:
    """Batch 6 was written to name new countries only, so that its locale figure is not a development figure."""
    earlier = set().union(*(_phone_regions(f"onboarding_blind{n}") for n in ("", 2, 3, 4, 5)))
    assert len(earlier) > 90
    assert _phone_regions("onboarding_blind6").isdisjoint(earlier)
