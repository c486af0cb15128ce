"""Format checks shared by the blind company sets' tests (companies_*2, companies_*3): the raw dataset, and each
config against its goal spec (id, language, intent, locale, weights, objectives, verbatim intent phrases)."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from engine.goals.validation import parse_spec

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
