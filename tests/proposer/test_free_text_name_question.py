"""Whether a free-text objective asks for a name is read from its name, its questions and the first sentence of its
description (what the visitor gives), never from a later sentence saying what does not count: a code-like value
(a size, a reference) stays a value when that sentence mentions a model or a brand."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.kernel.goal_models import Criterion, Objective
from llm_adapters.offline.free_text import _asks_for_name, free_text_words
from tests.proposer.helpers import proposer


def _objective(description: str, name: str = "Part size") -> Objective:
    return Objective(id="size", name=name, questions={"en": "What size do you need?"},
                     criterion=Criterion(kind="free_text", description=description, params={}),
                     weight=Decimal("1"), order=1)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["model", "brand"]),
       st.sampled_from(["A car {} or 'not sure' does not count.", "The {} alone is not enough.",
                        "Naming only the {} does not count."]))
def test_a_marker_in_a_later_sentence_does_not_ask_for_a_name(marker: str, later: str) -> None:
    words = free_text_words(proposer().rules_for("size", "en"))
    assert marker in words.name_markers  # the premise: the word does ask for a name where it defines the value
    definition = "The visitor gives the part's size in width/height form ('215/60', '4x8')."
    assert not _asks_for_name(_objective(f"{definition} {later.format(marker)}"), words)
    assert _asks_for_name(_objective(f"The visitor names the {marker} of their car. Sizes do not count."), words)
    assert _asks_for_name(_objective(definition, name=f"Car {marker}"), words)
