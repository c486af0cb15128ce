"""The second blind sets (benchmarks/onboarding_blind2, companies_fr2, companies_es2) are well formed.

Format only: the datasets parse with a reference time, references are monotone and as wide as their config, each
config matches its goal spec, the Spanish mirrors keep the French companies' kinds, weights and reference states,
and every expected phrase of the intent set is a verbatim part of its intent. Nothing here runs the compiler, the
proposer or a scorer: these sets are blind and are measured once by the commands in their READMEs.
"""

from __future__ import annotations

import pytest

from engine.evaluation.dataset import load_dataset
from tests.evaluation.blind_format import (
    BENCHMARKS,
    assert_configs_match_their_goal_specs,
    assert_intent_set_well_formed,
    raw_dataset,
)

COMPANY_SETS = ("companies_fr2", "companies_es2")
# Spanish config -> the French config it mirrors, conversation prefix of each.
MIRRORS = {("catering_valladolid", "V"): ("traiteur_mons", "M"),
           ("minisplits_hermosillo", "H"): ("thermopompes_trois_rivieres", "Q")}




@pytest.mark.parametrize("set_name", COMPANY_SETS)
def test_company_dataset_parses_with_monotone_references(set_name: str) -> None:
    dataset = load_dataset(BENCHMARKS / set_name / "conversations.json")
    assert dataset.reference_time is not None and dataset.reference_time.utcoffset() is not None
    for name, config in dataset.configs.items():
        conversations = [c for c in dataset.conversations if c.config == name]
        assert len(conversations) == 10, name
        for conversation in conversations:
            assert 3 <= len(conversation.turns) <= 7, conversation.id
            previous = "0" * len(config.objectives)
            for turn in conversation.turns:
                assert turn.scored and turn.reference is not None, (conversation.id, turn.turn)
                assert len(turn.reference) == len(previous), (conversation.id, turn.turn)
                assert all(a <= b for a, b in zip(previous, turn.reference, strict=True)), (conversation.id, turn.turn)
                previous = turn.reference


@pytest.mark.parametrize("set_name", COMPANY_SETS)
def test_configs_match_their_goal_specs(set_name: str) -> None:
    assert_configs_match_their_goal_specs(set_name)


def test_spanish_companies_mirror_the_french_ones() -> None:
    french, spanish = raw_dataset("companies_fr2"), raw_dataset("companies_es2")
    for (es_config, es_prefix), (fr_config, fr_prefix) in MIRRORS.items():
        es_objectives = spanish["configs"][es_config]["objectives"]
        fr_objectives = french["configs"][fr_config]["objectives"]
        assert [(o["kind"], o["weight"], o.get("granularity")) for o in es_objectives] == \
            [(o["kind"], o["weight"], o.get("granularity")) for o in fr_objectives]
        es_convs = {c["id"][1:]: c for c in spanish["conversations"] if c["config"] == es_config}
        fr_convs = {c["id"][1:]: c for c in french["conversations"] if c["config"] == fr_config}
        assert set(es_convs) == set(fr_convs) and len(es_convs) == 10
        for number, conversation in es_convs.items():
            assert conversation["id"] == es_prefix + number and fr_convs[number]["id"] == fr_prefix + number
            assert [t["reference"] for t in conversation["turns"]] == \
                [t["reference"] for t in fr_convs[number]["turns"]], number


def test_intent_set_is_well_formed() -> None:
    assert_intent_set_well_formed("onboarding_blind2", min_regions=12, null_locale_noted=False)
