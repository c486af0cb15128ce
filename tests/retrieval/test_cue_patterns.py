"""The compiled cue sets answer exactly what one pattern per cue answers (the plain definition the asked-kind
check used before), on the project's own cue lists and on generated ones."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.retrieval.cue_patterns import CueSet
from engine.text import fold
from tests.retrieval.project_rules import project_rules


def _anywhere(cues: tuple[str, ...], folded: str) -> bool:
    return any(re.search(rf"(?<!\w){re.escape(cue)}(?!\w)", folded) for cue in cues)


def _opening(cues: tuple[str, ...], starts: list[str]) -> bool:
    return any(re.match(rf"(?:\w+ )?{re.escape(cue)}(?!\w)", start) for start in starts for cue in cues)


RULES = project_rules()
PROJECT = [tuple(fold(c) for lang in RULES.languages.values() for c in getattr(lang, kind))
           for kind in ("price_cues", "clock_cues", "date_cues")]
WORDS = sorted({w for cues in PROJECT for cue in cues for w in cue.split()} | {"a", "and", "the", "y", "x1", "é"})
phrase = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join)
glue = st.sampled_from(["", " ", "  ", "-", "'", "?", ", ", "9", "s", "ñ"])
texts = st.lists(st.one_of(phrase, glue), max_size=10).map("".join)
cue_lists = st.one_of(st.sampled_from(PROJECT), st.lists(st.one_of(phrase, st.text(max_size=4)), max_size=5).map(tuple))


@settings(max_examples=400, deadline=None)
@given(cues=cue_lists, text=texts, starts=st.lists(texts, max_size=3))
def test_a_cue_set_matches_when_one_cue_does(cues: tuple[str, ...], text: str, starts: list[str]) -> None:
    compiled = CueSet.of(cues)
    assert compiled.anywhere(text) == _anywhere(cues, text)
    assert compiled.opening(starts) == _opening(cues, starts)


def test_the_project_cues_on_typical_questions() -> None:
    questions = ["how much does a visit cost", "y cuanto cuesta", "what time do you open", "when is it open",
                 "is it open when i am away", "que dia abris", "precio", ""]
    for cues in PROJECT:
        compiled = CueSet.of(cues)
        for question in questions:
            assert compiled.anywhere(question) == _anywhere(cues, question)
            assert compiled.opening([question]) == _opening(cues, [question])
