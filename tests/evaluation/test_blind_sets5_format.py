"""The fifth blind sets (benchmarks/onboarding_blind5, companies_en5, companies_es5, companies_fr5) are well formed.

Format only, as for the fourth sets (tests/evaluation/blind_format.py): conversations of at most seven visitor turns,
intents in all three languages with every place-naming intent's locale filled or flagged. Nothing here runs the
compiler, the proposer, governance or a scorer: these sets are blind and are measured once by the commands in their
READMEs.
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

COMPANY_SETS = ("companies_en5", "companies_es5", "companies_fr5")


@pytest.mark.parametrize("set_name", COMPANY_SETS)
def test_company_dataset_parses_with_monotone_references(set_name: str) -> None:
    assert_company_dataset_well_formed(set_name, max_turns=7)


@pytest.mark.parametrize("set_name", COMPANY_SETS)
def test_configs_match_their_goal_specs(set_name: str) -> None:
    assert_configs_match_their_goal_specs(set_name)


def test_intent_set_is_well_formed() -> None:
    assert_intent_set_well_formed("onboarding_blind5")


def test_intent_set_locales_are_all_or_nothing() -> None:
    """A named, unambiguous place gives all three locale fields; no place or an ambiguous name gives none."""
    intents = json.loads((BENCHMARKS / "onboarding_blind5" / "intents.json").read_text(encoding="utf-8"))["intents"]
    for intent in intents:
        values = list(intent["expected_locale"].values())
        assert all(values) or not any(values), intent["id"]
