"""The answerability judge's memo of asked-word forms returns exactly what matching the corpus terms gives,
on first and repeated asks, and stays bounded."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.retrieval import GroundedAnswerer
from engine.retrieval import answerability as module

_letters = st.text(alphabet="aeioulnrstcpdm", min_size=1, max_size=9)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(variants=st.frozensets(_letters, min_size=1, max_size=3))
def test_memoised_forms_equal_a_fresh_match(real_estate: GroundedAnswerer, variants: frozenset[str]) -> None:
    judge = real_estate.judge
    first = judge._forms(variants)
    assert first == judge._match_forms(variants)
    assert judge._forms(variants) == first  # a hit gives the same


def test_memo_is_bounded(real_estate: GroundedAnswerer, monkeypatch: pytest.MonkeyPatch) -> None:
    judge = real_estate.judge
    monkeypatch.setattr(module, "_FORMS_MEMO_ENTRIES", 5)
    for i in range(12):
        judge._forms(frozenset({f"word{i}"}))
        assert len(judge._forms_memo) <= 5
