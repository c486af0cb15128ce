"""Format checks shared by the blind sets' tests (companies_*2 to companies_*6, onboarding_blind3 to
onboarding_blind6): the raw dataset, each config against its goal spec (id, language, intent, locale, weights,
objectives, verbatim intent phrases), a company dataset's references, and an intent set's expectations."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from engine.evaluation.dataset import load_dataset
from engine.goals.validation import parse_spec
from engine.kernel.goal_models import CriterionKind

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
LOCALE_FIELDS = ("currency", "phone_region", "time_zone")


def raw_dataset(set_name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((BENCHMARKS / set_name / "conversations.json").read_text(encoding="utf-8"))
    return data


def assert_configs_match_their_goal_specs(set_name: str) -> None:
    for name, config in raw_dataset(set_name)["configs"].items():
        raw = json.loads((BENCHMARKS / set_name / config["goal_spec"]).read_text(encoding="utf-8"))
        spec = parse_spec(raw)
        assert spec.id.replace("-", "_") == name
        assert list(spec.languages) == [spec.default_language] == [config["language"]]
        assert spec.manager_intent == config["manager_intent"]
        assert spec.locale is not None and all(getattr(spec.locale, f) for f in LOCALE_FIELDS)
        objectives = spec.ordered()
        weights = [o.weight for o in objectives]
        assert sum(weights) == Decimal(1) and weights == sorted(weights, reverse=True), name
        assert [o.id for o in objectives] == [o["id"] for o in config["objectives"]]
        assert [o.criterion.kind.value for o in objectives] == [o["kind"] for o in config["objectives"]]
        assert [float(o.weight) for o in objectives] == [o["weight"] for o in config["objectives"]]
        for objective in objectives:
            phrases = objective.criterion.params.get("intent_phrases", [])
            assert phrases and all(p in spec.manager_intent for p in phrases), (name, objective.id)
            vocabulary = objective.criterion.params.get("vocabulary")
            assert vocabulary is None or vocabulary in raw["vocabularies"], (name, objective.id)


def assert_company_dataset_well_formed(set_name: str, *, max_turns: int | None = None) -> None:
    """Three configs of eight conversations; every conversation has a zoned reference time; scored references are
    monotone and as wide as their config, unscored turns carry no reference."""
    dataset = load_dataset(BENCHMARKS / set_name / "conversations.json")
    assert len(dataset.configs) == 3 and len(dataset.conversations) >= 24
    for name, config in dataset.configs.items():
        conversations = [c for c in dataset.conversations if c.config == name]
        assert len(conversations) == 8, name
        for conversation in conversations:
            assert conversation.reference_time is not None and conversation.reference_time.utcoffset() is not None
            assert max_turns is None or len(conversation.turns) <= max_turns, conversation.id
            previous = "0" * len(config.objectives)
            for turn in conversation.turns:
                if not turn.scored:
                    assert turn.reference is None, (conversation.id, turn.turn)
                    continue
                assert turn.reference is not None and len(turn.reference) == len(previous), (conversation.id, turn.turn)
                assert all(a <= b for a, b in zip(previous, turn.reference, strict=True)), (conversation.id, turn.turn)
                previous = turn.reference


def assert_intent_set_well_formed(set_name: str, *, min_regions: int = 20, null_locale_noted: bool = True) -> None:
    """At least 45 intents in EN/ES/FR with unique ids; every expected phrase, non-objective and refusal phrase is a
    verbatim part of its intent; kinds are known; locale has the three fields (a note where any is null, from the
    third set on); at least ``min_regions`` phone regions are named."""
    intents = json.loads((BENCHMARKS / set_name / "intents.json").read_text(encoding="utf-8"))["intents"]
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
        if null_locale_noted and not all(intent["expected_locale"].values()):
            assert intent.get("locale_note"), intent["id"]
        refusal = intent.get("expected_refusal")
        assert refusal is None or refusal["phrase"] in text, intent["id"]
    named = {i["expected_locale"]["phone_region"] for i in intents} - {None}
    assert len(named) >= min_regions
