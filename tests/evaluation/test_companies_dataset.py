"""The new-companies benchmark (issue 9, part 4) is well formed: the dataset parses, every config matches its
company's goal spec (ids, order, weights, questions), every spec validates with its own locale and vocabularies,
reference states are monotone, each corpus loads, and the compiler intent set (issue 10) is well formed.

No accuracy is asserted here: the numbers are measured with ``grace eval`` (benchmarks/companies/README.md)."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from engine.evaluation.dataset import Dataset, load_dataset
from engine.goals.validation import parse_spec, semantic_issues
from engine.kernel.company_data import company_data_issues
from engine.kernel.goal_models import CriterionKind, GoalSpec
from tests.proposer.helpers import project_bundle

COMPANIES = Path(__file__).resolve().parents[2] / "benchmarks" / "companies"
DATASET = COMPANIES / "conversations.json"
INTENTS = COMPANIES / "intents.json"
GRANULARITIES = {"date", "time", "datetime", "schedule", "timeframe"}


def _dataset() -> Dataset:
    return load_dataset(DATASET)


def _spec_dir(config_name: str) -> Path:
    return COMPANIES / config_name.replace("_", "-")


def _spec(config_name: str) -> GoalSpec:
    raw = json.loads((_spec_dir(config_name) / "goal_spec.json").read_text(encoding="utf-8"))
    return parse_spec(raw)


CONFIGS = sorted(json.loads(DATASET.read_text(encoding="utf-8"))["configs"])


def test_dataset_parses_with_enough_conversations() -> None:
    dataset = _dataset()
    assert len(dataset.configs) >= 5
    assert len(dataset.conversations) >= 40
    for name in dataset.configs:
        convs = [c for c in dataset.conversations if c.config == name]
        assert len(convs) >= 8, name
    for conversation in dataset.conversations:
        assert 3 <= len(conversation.turns) <= 7, conversation.id
        assert all(t.scored and t.reference is not None for t in conversation.turns), conversation.id
    assert {c.language for c in dataset.configs.values()} >= {"en", "es"}


def test_reference_states_are_monotone() -> None:
    dataset = _dataset()
    for conversation in dataset.conversations:
        width = len(dataset.configs[conversation.config].objectives)
        previous = "0" * width
        for turn in conversation.turns:
            assert turn.reference is not None
            assert all(a <= b for a, b in zip(previous, turn.reference, strict=True)), (conversation.id, turn.turn)
            previous = turn.reference


@pytest.mark.parametrize("config_name", CONFIGS)
def test_config_matches_its_goal_spec(config_name: str) -> None:
    raw = json.loads(DATASET.read_text(encoding="utf-8"))["configs"][config_name]
    spec = _spec(config_name)
    # grace eval maps a config to a candidate spec by name: real_estate -> real-estate
    assert spec.id == config_name.replace("_", "-")
    assert raw["language"] == spec.default_language
    assert raw["manager_intent"] == spec.manager_intent
    ordered = spec.ordered()
    assert [o["id"] for o in raw["objectives"]] == [o.id for o in ordered]
    assert [o["order"] for o in raw["objectives"]] == [o.order for o in ordered]
    for listed, objective in zip(raw["objectives"], ordered, strict=True):
        assert Decimal(str(listed["weight"])) == objective.weight, objective.id
        assert listed["question"] == objective.questions[raw["language"]], objective.id
        assert listed["kind"] == objective.criterion.kind.value, objective.id


@pytest.mark.parametrize("config_name", CONFIGS)
def test_goal_spec_validates_with_its_own_company_data(config_name: str) -> None:
    spec = _spec(config_name)
    assert GoalSpec.model_validate(spec.model_dump(mode="json")) == spec
    bundle = project_bundle()
    assert semantic_issues(spec, bundle) == []
    assert company_data_issues(spec, bundle) == []
    assert sum((o.weight for o in spec.objectives), Decimal(0)) == Decimal(1)
    assert 3 <= len(spec.objectives) <= 6
    assert spec.locale is not None and spec.locale.currency and spec.locale.phone_region and spec.locale.time_zone
    for objective in spec.objectives:
        assert set(objective.questions) >= {"en", "es"}, objective.id
        vocab = objective.criterion.params.get("vocabulary")
        if vocab is not None:
            # company data travels with the spec: nothing here may depend on the shared rule bundle
            assert vocab in spec.vocabularies, objective.id
        if objective.criterion.kind is CriterionKind.DATETIME:
            assert objective.criterion.params.get("granularity") in GRANULARITIES
        if objective.criterion.kind is CriterionKind.QUANTITY:
            assert objective.criterion.params.get("unit") and objective.criterion.params.get("unit_terms")
        if objective.criterion.kind is CriterionKind.FREE_TEXT:
            assert objective.criterion.params.get("cues")


def test_companies_cover_every_kind_and_granularity() -> None:
    kinds: set[str] = set()
    granularities: set[str] = set()
    currencies: set[str] = set()
    for name in CONFIGS:
        spec = _spec(name)
        for objective in spec.objectives:
            kinds.add(objective.criterion.kind.value)
            if objective.criterion.kind is CriterionKind.DATETIME:
                granularities.add(str(objective.criterion.params["granularity"]))
        assert spec.locale is not None and spec.locale.currency
        currencies.add(spec.locale.currency)
    assert kinds == {k.value for k in CriterionKind}
    assert granularities == GRANULARITIES
    assert len(currencies) >= 3


@pytest.mark.parametrize("config_name", CONFIGS)
def test_company_corpus_loads(config_name: str) -> None:
    from engine.retrieval.corpus import load_corpus

    corpus_dir = _spec_dir(config_name) / "corpus"
    documents = sorted(corpus_dir.glob("*.md"))
    assert 3 <= len(documents) <= 6
    corpus = load_corpus(corpus_dir)
    assert corpus.passages


def _intents() -> list[dict[str, Any]]:
    data = json.loads(INTENTS.read_text(encoding="utf-8"))
    intents: list[dict[str, Any]] = data["intents"]
    return intents


def test_intent_set_is_well_formed() -> None:
    intents = _intents()
    assert len(intents) >= 20
    assert {i["language"] for i in intents} == {"en", "es"}
    assert len({i["id"] for i in intents}) == len(intents)
    kinds = {k.value for k in CriterionKind}
    seen_kinds: set[str] = set()
    for intent in intents:
        assert intent["intent"].strip() and intent["domain"].strip()
        assert intent["expected"], intent["id"]
        for objective in intent["expected"]:
            assert objective["kind"] in kinds, (intent["id"], objective)
            seen_kinds.add(objective["kind"])
            # the phrase is the manager's own words: it occurs in the intent
            assert objective["phrase"].lower() in intent["intent"].lower(), (intent["id"], objective["phrase"])
            if objective["kind"] == "datetime":
                assert objective.get("granularity") in GRANULARITIES, (intent["id"], objective)
            if objective["kind"] == "quantity":
                assert objective.get("unit"), (intent["id"], objective)
            if "options" in objective:
                assert objective["kind"] in {"enumeration", "features"} and len(objective["options"]) >= 2
    assert seen_kinds == kinds
