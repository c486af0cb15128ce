"""The third blind sets (benchmarks/onboarding_blind3, companies_en3, companies_es3, companies_fr3) are well formed.

Format only: the datasets parse, every conversation carries a reference time with an offset, scored references are
monotone and as wide as their config (unscored turns carry no reference), each config matches its goal spec, and
every expected phrase of the intent set is a verbatim part of its intent. Nothing here runs the compiler, the
proposer, governance or a scorer: these sets are blind and are measured once by the commands in their READMEs.
"""

from __future__ import annotations

import pytest

from tests.evaluation.blind_format import (
    assert_company_dataset_well_formed,
    assert_configs_match_their_goal_specs,
    assert_intent_set_well_formed,
)

COMPANY_SETS = ("companies_en3", "companies_es3", "companies_fr3")


@pytest.mark.parametrize("set_name", COMPANY_SETS)
def test_company_dataset_parses_with_monotone_references(set_name: str) -> None:
    assert_company_dataset_well_formed(set_name)


@pytest.mark.parametrize("set_name", COMPANY_SETS)
def test_configs_match_their_goal_specs(set_name: str) -> None:
    assert_configs_match_their_goal_specs(set_name)


def test_intent_set_is_well_formed() -> None:
    assert_intent_set_well_formed("onboarding_blind3")
