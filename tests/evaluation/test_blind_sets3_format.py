"""The third blind sets (benchmarks/onboarding_blind3, companies_en3, companies_es3, companies_fr3) are well formed.

Format only: the datasets parse, every conversation carries a reference time with an offset, scored references are
monotone and as wide as their config (unscored turns carry no reference), each config matches its goal spec, and
every expected phrase of the intent set is a verbatim part of its intent. Nothing here runs the compiler, the
proposer, governance or a scorer: these sets are blind and are measured once by the commands in their READMEs.
"""

from __future__ import annotations

import json

import pytest

from engine.evaluation.dataset import load_dataset
from engine.goals.models import CriterionKind
from tests.evaluation.blind_format import BENCHMARKS, LOCALE_FIELDS, assert_configs_match_their_goal_specs

COMPANY_SETS = ("companies_en3", "companies_es3", "companies_fr3")
INTENTS = BENCHMARKS / "onboarding_blind3" / "intents.json"



@pytest.mark.parametrize("set_name", COMPANY_SETS)
def test_company_dataset_parses_with_monotone_references(set_name: str) -> None:
    dataset = load_dataset(BENCHMARKS / set_name / "conversations.json")
    assert len(dataset.configs) == 3 and len(dataset.conversations) >= 24
    for name, config in dataset.configs.items():
        conversations = [c for c in dataset.conversations if c.config == name]
        assert len(conversations) == 8, name
        for conversation in conversations:
            assert conversation.reference_time is not None and conversation.reference_time.utcoffset() is not None
            previous = "0" * len(config.objectives)
            for turn in conversation.turns:
                if not turn.scored:
                    assert turn.reference is None, (conversation.id, turn.turn)
                    continue
                assert turn.reference is not None and len(turn.reference) == len(previous), (conversation.id, turn.turn)
                assert all(a <= b for a, b in zip(previous, turn.reference, strict=True)), (conversation.id, turn.turn)
                previous = turn.reference


@pytest.mark.parametrize("set_name", COMPANY_SETS)
def test_configs_match_their_goal_specs(set_name: str) -> None:
    assert_configs_match_their_goal_specs(set_name)


def test_intent_set_is_well_formed() -> None:
    intents = json.loads(INTENTS.read_text(encoding="utf-8"))["intents"]
    assert len(intents) >= 45
    assert {i["language"] for i in intents} == {"en", "es", "fr"}
    assert len({i["id"] for i in intents}) == len(intents)
    kinds = {k.value for k in CriterionKind}
    for intent in intents:
        text = intent["intent"]
        assert intent["expected"], intent["id"]
        for part in intent["expected"]:
            assert part["phrase"] in text, (intent["id"], part["phrase"])
            assert {part["kind"], *part.get("also_ok", [])} <= kinds, (intent["id"], part["phrase"])
        assert all(p in text for p in intent["expected_not_objectives"]), intent["id"]
        assert set(intent["expected_locale"]) == set(LOCALE_FIELDS), intent["id"]
        if not all(intent["expected_locale"].values()):
            assert intent.get("locale_note"), intent["id"]
        refusal = intent.get("expected_refusal")
        assert refusal is None or refusal["phrase"] in text, intent["id"]
    named = {i["expected_locale"]["phone_region"] for i in intents} - {None}
    assert len(named) >= 20
