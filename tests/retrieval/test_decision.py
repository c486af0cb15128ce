"""The answer decision (engine/retrieval/decision.py) and its fitting script (benchmarks/fit_answerability.py):
a logistic model whose coefficients are rule data, checked when the rules load, fitted deterministically."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks.fit_answerability import Candidate, Question, fit, write_model
from engine.retrieval.decision import FEATURES, AnswerModel
from engine.retrieval.errors import RetrievalRulesError
from engine.retrieval.retrieval_rules import DEFAULT_RULES_PATH, load_rules, parse_rules


def _raw() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DEFAULT_RULES_PATH.read_text(encoding="utf-8"))
    return data


def test_the_shipped_model_names_known_features_only() -> None:
    decision = load_rules(DEFAULT_RULES_PATH).grounding.decision
    assert set(decision.features) <= set(FEATURES)
    assert 0 < decision.threshold < 1


@pytest.mark.parametrize(
    "change",
    [
        {"features": ["semantic_z", "no_such_feature"], "weights": [1, 1], "mean": [0, 0], "scale": [1, 1]},
        {"features": ["semantic_z"], "weights": [1, 2], "mean": [0], "scale": [1]},
        {"features": ["semantic_z"], "weights": [1], "mean": [0], "scale": [0.0]},
    ],
)
def test_a_malformed_model_fails_when_the_rules_load(change: dict[str, Any]) -> None:
    data = copy.deepcopy(_raw())
    data["grounding"]["decision"].update(change)
    with pytest.raises(RetrievalRulesError) as caught:
        parse_rules(data)
    assert caught.value.code in {"retrieval.rules.decision", "retrieval.rules.schema"}


_MODEL = AnswerModel(("semantic_z", "unknown"), (1.5, -2.0), (1.0, 0.1), (2.0, 0.2), -0.5, 0.5)


@given(st.floats(-8, 8), st.floats(0, 4), st.lists(st.floats(-8, 8), max_size=5))
def test_probability_rises_with_a_positively_weighted_feature(value: float, step: float, rivals: list[float]) -> None:
    others = [_MODEL.logit({"semantic_z": r, "unknown": 0.3}) for r in rivals]
    low = _MODEL.probabilities([_MODEL.logit({"semantic_z": value, "unknown": 0.3}), *others])
    high = _MODEL.probabilities([_MODEL.logit({"semantic_z": value + step, "unknown": 0.3}), *others])
    assert 0.0 <= low[0] <= high[0] <= 1.0
    assert sum(high) < 1.0  # "none of them" always keeps some probability


@given(st.lists(st.floats(-20, 20), min_size=1, max_size=6))
def test_an_equal_rival_halves_the_probability_at_most(logits: list[float]) -> None:
    alone = _MODEL.probabilities(logits[:1])[0]
    with_twin = _MODEL.probabilities([logits[0], logits[0]])[0]
    assert with_twin <= alone
    assert with_twin >= alone / 2 - 1e-12


def test_the_fit_recovers_the_direction_of_each_feature_and_is_deterministic() -> None:
    rng = np.random.default_rng(7)
    questions = []
    lift = np.array([1.5, -1.5])  # the answer scores high on the first feature, low on the second
    for i in range(120):
        x = rng.normal(size=(3, 2))
        score = x[:, 0] - x[:, 1]
        best = int(np.argmax(score))
        answerable = i % 3 != 0
        questions.append(
            Question(
                "s",
                "answerable" if answerable else "unanswerable",
                [
                    Candidate(x[j] + lift * (answerable and j == best), answerable and j == best, False)
                    for j in range(3)
                ],
            )
        )
    first = fit(questions, ("semantic_z", "unknown"), l2=1.0, abstain_cost=2.0, fallback=True)
    again = fit(questions, ("semantic_z", "unknown"), l2=1.0, abstain_cost=2.0, fallback=True)
    assert first.weights[0] > 0 > first.weights[1]
    assert np.array_equal(first.weights, again.weights) and first.threshold == again.threshold


def _question(kind: str, scores: list[float], relevant: int | None) -> Question:
    return Question(
        "s",
        kind,
        [Candidate(np.array([s]), relevant == i, False) for i, s in enumerate(scores)],
    )


def test_the_threshold_trades_answers_against_answered_unanswerables() -> None:
    answerable = [_question("answerable", [3.0 + i / 10, 0.0], 0) for i in range(10)]
    unanswerable = [_question("unanswerable", [1.0 + i / 10, 0.0], None) for i in range(10)]
    fitted = fit(answerable + unanswerable, ("semantic_z",), l2=0.1, abstain_cost=2.0, fallback=True)
    probabilities = fitted.probabilities(np.array([[3.0], [1.9]]))
    assert probabilities[0] >= fitted.threshold > probabilities[1]


def test_write_model_replaces_only_the_decision_block(tmp_path: Path) -> None:
    target = tmp_path / "retrieval.json"
    original = DEFAULT_RULES_PATH.read_text(encoding="utf-8")
    target.write_text(original, encoding="utf-8")
    model = AnswerModel(("coverage", "standing"), (1.25, 0.5), (0.4, 1.0), (0.3, 1.5), -1.0, 0.42)
    write_model(model, target)
    written = json.loads(target.read_text(encoding="utf-8"))
    assert written["grounding"]["decision"] == {
        "features": ["coverage", "standing"],
        "weights": [1.25, 0.5],
        "mean": [0.4, 1.0],
        "scale": [0.3, 1.5],
        "bias": -1.0,
        "threshold": 0.42,
    }
    before = json.loads(original)
    del before["grounding"]["decision"], written["grounding"]["decision"]
    assert written == before
