"""find_terms skips a term when its inflection stem is not in the text: the stem is a prefix of the term, so a
text holding the term holds the stem, and the one check covers both (the plain pre-check tested each)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from llm_adapters.offline.terms import _inflection_stem

_text = st.text(alphabet="ab -é", max_size=12)


@given(term=_text, text=_text)
def test_stem_check_equals_term_or_stem_check(term: str, text: str) -> None:
    stem = _inflection_stem(term)
    assert term.startswith(stem)
    assert (stem not in text) == (term not in text and stem not in text)
