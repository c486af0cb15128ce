"""Issue 11 bounded work: the analysis cuts endless sentences at max_sentence_chars (rule data), so every
per-candidate sentence check is bounded; ordinary sentences are untouched."""

from __future__ import annotations

import dataclasses
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from llm_adapters.offline.analysis import analyze
from llm_adapters.offline.offline_rules import OfflineRules
from tests.proposer.helpers import proposer


# Built when a test first needs them, not at collection: every worker collects this module, one runs it.
def _rules() -> OfflineRules:
    return proposer().rules


def _limit() -> int:
    limit = _rules().settings.max_sentence_chars
    assert limit is not None  # the shipped rules bound sentences
    return limit


@cache
def _unbounded() -> OfflineRules:
    rules = _rules()
    return dataclasses.replace(rules, settings=dataclasses.replace(rules.settings, max_sentence_chars=None))


def test_the_limit_is_rule_data() -> None:
    assert _limit() >= 80


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["612 345 678", "ana@example.com", "Madrid", "budget", "1", ",", "not", "x" * 50]),
                min_size=1, max_size=600))
def test_no_sentence_is_longer_than_the_limit(words: list[str]) -> None:
    text = " ".join(words)
    analysis = analyze(_rules(), text)
    assert all(s.end - s.start <= _limit() for s in analysis.sentences)
    # the pieces keep the text's order and never overlap
    assert all(a.end <= b.start for a, b in zip(analysis.sentences, analysis.sentences[1:], strict=False))


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=300))
def test_ordinary_sentences_are_unchanged(text: str) -> None:
    if any(len(part) > _limit() // 2 for part in text.splitlines()):
        return
    assert analyze(_rules(), text).sentences == analyze(_unbounded(), text).sentences


def test_a_run_on_sentence_is_cut_after_a_comma() -> None:
    clause = "we would like a flat near the park, "
    analysis = analyze(_rules(), clause * (3 * _limit() // len(clause)))
    assert len(analysis.sentences) >= 3
    for sentence in analysis.sentences[:-1]:
        assert analysis.text[sentence.end - 1] == ","
