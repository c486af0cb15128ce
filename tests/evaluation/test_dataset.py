"""Dataset validation: malformed datasets fail with a stable code, never half-run."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from engine.evaluation.dataset import parse_dataset
from engine.evaluation.errors import EvaluationError

GOOD: dict[str, Any] = {
    "name": "tiny",
    "configs": {"real_estate": {"language": "en", "objectives": [{"id": "budget"}, {"id": "location"},
                                                                 {"id": "requirements"}, {"id": "contact"}]}},
    "conversations": [{"id": "c1", "config": "real_estate", "turns": [
        {"turn": 1, "visitor": "My budget is 300.000 EUR", "reference": "1000", "scored": True},
        {"turn": 2, "visitor": "Bye", "reference": None, "scored": False}]}],
}


def test_good_dataset_parses() -> None:
    dataset = parse_dataset(GOOD)
    assert dataset.configs["real_estate"].ids == ["budget", "location", "requirements", "contact"]


@pytest.mark.parametrize("mutate", [
    lambda d: d["conversations"][0].update(config="nope"),
    lambda d: d["conversations"][0]["turns"][0].update(reference="10"),
    lambda d: d["conversations"][0]["turns"][0].update(reference="10x0"),
    lambda d: d["conversations"][0]["turns"][1].update(turn=5),
    lambda d: d["conversations"][0]["turns"][1].update(scored=True),
    lambda d: d["conversations"].append(copy.deepcopy(d["conversations"][0])),
    lambda d: d.update(conversations=[]),
    lambda d: d["conversations"][0].pop("turns"),
])
def test_malformed_datasets_are_rejected(mutate: Any) -> None:
    data = copy.deepcopy(GOOD)
    mutate(data)
    with pytest.raises(EvaluationError) as error:
        parse_dataset(data)
    assert error.value.code == "eval.dataset_invalid"
