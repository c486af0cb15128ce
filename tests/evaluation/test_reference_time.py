"""Evaluations happen at a stated time: the same dataset gives the same turn times whatever day it runs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from engine.evaluation.dataset import DEFAULT_REFERENCE_TIME, TURN_SPACING, parse_dataset, turn_times
from engine.evaluation.errors import EvaluationError


def _dataset(reference_time: str | None = None, conversation_time: str | None = None) -> dict[str, object]:
    conversation: dict[str, object] = {"id": "c1", "config": "x", "turns": [
        {"turn": 1, "visitor": "hello", "reference": "0"}, {"turn": 2, "visitor": "tomorrow", "reference": "1"}]}
    if conversation_time is not None:
        conversation["reference_time"] = conversation_time
    raw: dict[str, object] = {"configs": {"x": {"objectives": [{"id": "date"}]}}, "conversations": [conversation]}
    if reference_time is not None:
        raw["reference_time"] = reference_time
    return raw


def test_default_time_is_fixed_not_the_clock() -> None:
    dataset = parse_dataset(_dataset())
    times = turn_times(dataset.conversations[0], dataset, None)
    assert times == [DEFAULT_REFERENCE_TIME, DEFAULT_REFERENCE_TIME + TURN_SPACING]


def test_conversation_time_beats_dataset_time_beats_now() -> None:
    now = datetime(2030, 1, 1, tzinfo=UTC)
    dataset = parse_dataset(_dataset("2027-03-01T09:00:00+00:00"))
    assert turn_times(dataset.conversations[0], dataset, now)[0] == datetime(2027, 3, 1, 9, tzinfo=UTC)
    dataset = parse_dataset(_dataset("2027-03-01T09:00:00+00:00", "2028-05-02T12:00:00+02:00"))
    assert turn_times(dataset.conversations[0], dataset, now)[1] == (
        datetime(2028, 5, 2, 10, tzinfo=UTC) + timedelta(minutes=1))
    dataset = parse_dataset(_dataset())
    assert turn_times(dataset.conversations[0], dataset, now)[0] == now


@pytest.mark.parametrize("where", ["dataset", "conversation"])
def test_naive_reference_time_is_refused(where: str) -> None:
    raw = _dataset("2027-03-01T09:00:00") if where == "dataset" else _dataset(None, "2027-03-01T09:00:00")
    with pytest.raises(EvaluationError) as caught:
        parse_dataset(raw)
    assert caught.value.code == "eval.dataset_invalid"
