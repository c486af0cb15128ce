"""mentions_any (one prefix test per word, phrases by substring) decides exactly as its plain definition."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from llm_adapters.offline.cues import mentions_any


def plain_mentions_any(words: list[str], terms: frozenset[str]) -> bool:
    """The plain definition: each term in turn, a one-word term as a word prefix, a several-word one as a phrase."""
    if not terms:
        return False
    joined = " " + " ".join(words) + " "
    return any((" " + term) in joined if " " in term else any(w.startswith(term) for w in words) for term in terms)


_word = st.text(alphabet="abé", max_size=3)
_term = st.one_of(st.text(alphabet="abé", min_size=1, max_size=3),
                  st.lists(_word, min_size=2, max_size=3).map(" ".join), st.just(""))


@settings(max_examples=600, deadline=None)
@given(words=st.lists(_word, max_size=6), terms=st.frozensets(_term, max_size=6))
def test_mentions_any_equals_the_plain_definition(words: list[str], terms: frozenset[str]) -> None:
    assert mentions_any(words, terms) == plain_mentions_any(words, terms)
