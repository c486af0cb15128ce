"""``objective_cues`` remembers a spec's cue terms (encoding them on every call cost a json.dumps per objective
per sentence); held here to the plain definition ``cue_terms``, including after a change made in place."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.kernel.goal_models import Criterion, CriterionKind, Objective
from llm_adapters.offline.cues import cue_terms, objective_cues

WORDS = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
SCALARS = WORDS | st.integers(-3, 3) | st.floats(allow_nan=False, allow_infinity=False) | st.booleans() | st.none()
CUES = st.dictionaries(st.sampled_from(["en", "es", "de", "fr"]),
                       st.lists(WORDS, max_size=5) | st.lists(SCALARS, max_size=4) | SCALARS, max_size=4)


def _objective(cues: Any) -> Objective:
    return Objective(id="topic", name="Topic", questions={"en": "Which topic?"}, weight=Decimal("1"), order=1,
                     criterion=Criterion(kind=CriterionKind.FREE_TEXT, description="d", params={"cues": cues}))


@settings(max_examples=200, deadline=None)
@given(cues=CUES)
def test_objective_cues_are_the_folded_terms_every_time(cues: dict[str, Any]) -> None:
    objective = _objective(cues)
    expected = cue_terms(cues) if cues else frozenset()
    assert objective_cues(objective) == expected
    assert objective_cues(objective) == expected  # the remembered answer


@settings(max_examples=100, deadline=None)
@given(cues=st.dictionaries(st.sampled_from(["en", "es"]), st.lists(WORDS, min_size=1, max_size=4), min_size=1),
       extra=st.lists(WORDS | st.integers(0, 2) | st.floats(0, 2), min_size=1, max_size=3))
def test_a_change_in_place_is_seen(cues: dict[str, list[Any]], extra: list[Any]) -> None:
    objective = _objective(cues)
    objective_cues(objective)
    terms = objective.criterion.params["cues"]  # the object the objective holds (pydantic may copy the input)
    language = next(iter(terms))
    terms[language].extend(extra)
    assert objective_cues(objective) == cue_terms(terms)
    for number in (1, 1.0, True):  # equal as numbers, three different terms ("1", "1.0", "true")
        terms[language][0] = number
        assert objective_cues(objective) == cue_terms(terms)


def test_numbers_that_compare_equal_keep_their_own_terms() -> None:
    one, one_float, true = _objective({"en": [1]}), _objective({"en": [1.0]}), _objective({"en": [True]})
    got = [objective_cues(o) for o in (one, one_float, true)]
    assert got == [cue_terms({"en": [1]}), cue_terms({"en": [1.0]}), cue_terms({"en": [True]})]
    assert len(set(got)) == 3
