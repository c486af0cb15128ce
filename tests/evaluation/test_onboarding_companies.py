"""The onboarding benchmark's companies mode: a company's own intent compiled (no hand spec), its annotated
conversations scored against the reference objectives through the phrases the compiler claims."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.evaluation.onboarding.companies import companies_table, load_phrases, run_companies
from engine.evaluation.onboarding.errors import OnboardingError
from llm_adapters.offline import OfflineProposer
from tests.proposer.helpers import project_bundle

INTENT = ("We want to know the number of guests, the event date and a phone number so that we can send a quote.")


def _dataset(tmp_path: Path, phrases: dict[str, str]) -> Path:
    (tmp_path / "venue").mkdir()
    (tmp_path / "venue" / "goal_spec.json").write_text(json.dumps(
        {"locale": {"currency": "GBP", "phone_region": "GB", "time_zone": "Europe/London"}}), encoding="utf-8")
    dataset = {"name": "t", "configs": {"venue": {
        "language": "en", "goal_spec": "venue/goal_spec.json", "manager_intent": INTENT,
        "objectives": [{"id": "guests"}, {"id": "date"}, {"id": "contact"}]}},
        "conversations": [{"id": "V1", "config": "venue", "turns": [
            {"turn": 1, "visitor": "About 80 guests.", "reference": "100"},
            {"turn": 2, "visitor": "Saturday 4 September 2027.", "reference": "110"},
            {"turn": 3, "visitor": "07700 900123", "reference": "111"}]}]}
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(dataset), encoding="utf-8")
    (tmp_path / "objective_phrases.json").write_text(json.dumps({"configs": {"venue": phrases}}), encoding="utf-8")
    return path


PHRASES = {"guests": "the number of guests", "date": "the event date", "contact": "a phone number"}


def test_each_reference_objective_is_located_by_its_words(tmp_path: Path) -> None:
    path = _dataset(tmp_path, PHRASES)
    intent = load_phrases(tmp_path / "objective_phrases.json", json.loads(path.read_text()))["venue"]
    assert {k: intent.text[s:e] for k, (s, e) in intent.spans.items()} == PHRASES


@pytest.mark.parametrize("phrases", [
    {"guests": "the number of guests", "date": "the event date"},  # an objective without its phrase
    {**PHRASES, "date": "the wedding date"},  # words the intent does not hold
])
def test_a_phrase_missing_or_not_in_the_intent_is_a_coded_error(tmp_path: Path, phrases: dict[str, str]) -> None:
    path = _dataset(tmp_path, phrases)
    with pytest.raises(OnboardingError) as info:
        load_phrases(tmp_path / "objective_phrases.json", json.loads(path.read_text()))
    assert info.value.code == "onboarding.phrases_invalid"


def test_the_compiled_intent_is_scored_on_the_reference_objectives(tmp_path: Path) -> None:
    path = _dataset(tmp_path, PHRASES)
    bundle = project_bundle()
    folder = tmp_path / "compiled"
    folder.mkdir()
    (result,) = run_companies(path, None, bundle=bundle, proposer=OfflineProposer.from_bundle(bundle),
                              folder=folder, rules=None)
    assert result.failure is None and result.mapping is not None
    assert all(result.mapping.by_slot[s] for s in ("guests", "date", "contact"))  # every reference objective mapped
    assert not result.mapping.extra  # the purpose clause is not an objective
    assert result.compiled.flags  # the locale came from the company's answer to compile's question
    assert [t.reference for t in result.outcomes[0].turns] == ["100", "110", "111"]
    assert result.metrics().sta.total == 3
    assert "POOLED" in companies_table([result])
