"""The precompiled question cues (engine.retrieval.questions.compiled) decide exactly as the plain definitions
they replace: one search per request phrase, one match per fragment opener."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.retrieval.questions import compiled, phrase_pattern
from engine.retrieval.retrieval_rules import QuestionCues
from engine.text import fold
from tests.retrieval.project_rules import project_rules

_RULES = project_rules()
_CUES: list[QuestionCues] = [lang.question for lang in _RULES.languages.values()]
_VOCABULARY = sorted({p for c in _CUES for p in (*c.request_phrases, *c.fragment_openers, *c.wh_words)})


def plain_contains(folded_sentence: str, phrase: str) -> bool:
    """The plain definition: the folded phrase as a whole-word match."""
    return re.search(rf"(?<!\w){re.escape(fold(phrase))}(?!\w)", folded_sentence) is not None


def plain_opens(folded_sentence: str, opener: str) -> bool:
    return re.match(rf"{re.escape(fold(opener))}(?!\w)", folded_sentence) is not None


_piece = st.one_of(
    st.sampled_from(_VOCABULARY),
    st.text(alphabet="abcdeéñoü'-¿¡?!., ", max_size=6),
    st.sampled_from([" ", "  ", ",", "-", "'", "!", "¿", "x", "ñ", "É"]),
)
_sentence = st.lists(_piece, max_size=8).map("".join)


@settings(max_examples=400, deadline=None)
@given(sentence=_sentence)
def test_request_pattern_equals_one_search_per_phrase(sentence: str) -> None:
    folded = fold(sentence)
    for cues in _CUES:
        pattern = compiled(cues).request
        fast = pattern is not None and pattern.search(folded) is not None
        assert fast == any(plain_contains(folded, p) for p in cues.request_phrases)


@settings(max_examples=300, deadline=None)
@given(phrases=st.lists(st.text(alphabet="ab .*+?()[]|\\^$é'-", max_size=5), max_size=5),
       sentence=st.text(alphabet="ab .*+?()[]|\\^$é'-", max_size=12))
def test_phrase_pattern_equals_any_phrase_for_arbitrary_phrases(phrases: list[str], sentence: str) -> None:
    """Any phrases, including regex metacharacters and the empty phrase."""
    pattern = phrase_pattern(tuple(phrases))
    folded = fold(sentence)
    fast = pattern is not None and pattern.search(folded) is not None
    assert fast == any(plain_contains(folded, p) for p in phrases)


@settings(max_examples=300, deadline=None)
@given(sentence=_sentence)
def test_fragment_openers_equal_the_plain_match(sentence: str) -> None:
    folded = fold(sentence).strip(" ¿¡")
    for cues in _CUES:
        fast = [(bool(p.match(folded)), size) for p, size in compiled(cues).fragment_openers]
        plain = [(plain_opens(folded, o), len(fold(o).split())) for o in cues.fragment_openers]
        assert fast == plain


def test_compiled_is_keyed_on_the_cue_data() -> None:
    """Equal cue data gives the same compiled form; other data another."""
    cues = _CUES[0]
    copy = QuestionCues.model_validate(cues.model_dump())
    assert compiled(copy) is compiled(cues)
    other = cues.model_copy(update={"request_phrases": (*cues.request_phrases, "zzqq")})
    assert compiled(other).request is not None and compiled(other).request.search("zzqq")
    assert compiled(cues).request is None or not compiled(cues).request.search("zzqq")

