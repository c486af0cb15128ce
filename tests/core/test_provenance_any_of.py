"""The provenance markers are searched as one alternation per kind (``any_of``) instead of pattern by pattern:
a clause matches the alternation exactly when one of the patterns matches it, for the bundle's real markers of
every language, on texts made of their own words, and ``any_of`` refuses what it cannot join exactly."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.kernel.decision.bundle_proofs import load_verified_bundle
from engine.kernel.decision.provenance import ProvenanceRules, any_of
from engine.rules.loader import DEFAULT_RULES_DIR

MARKERS = ProvenanceRules.from_bundle(load_verified_bundle(DEFAULT_RULES_DIR, require_published=False)).markers
KINDS = {"third_party": MARKERS.third_party, "refused": MARKERS.refused, "anaphora": MARKERS.anaphora}
# Words of the markers themselves, so that the texts hit (and nearly hit) them
_WORDS = sorted({w for ps in KINDS.values() for p in ps for w in re.findall(r"[a-z'’-]{2,}", p.pattern)})
_PHRASES = ["do not use", "don't call", "not my", "no longer valid", "no me llames", "no es mi", "ya no funciona",
            "n'utilisez pas", "ce n'est pas mon", "my wife's", "his phone", "it's", "that is", "es de otra persona",
            "mi jefe", "ma femme", "c'est", "Jordan's email"]
_texts = st.lists(st.one_of(st.sampled_from(_WORDS), st.sampled_from(_PHRASES),
                            st.sampled_from(["VALUE", ".", ",", "it", "my", "is", "not", "a@b.com", "600 000 005"])),
                  max_size=12).map(" ".join)


@settings(max_examples=600, deadline=None)
@given(_texts, st.sampled_from(sorted(KINDS)))
def test_one_alternation_matches_exactly_when_one_pattern_does(text: str, kind: str) -> None:
    patterns = KINDS[kind]
    union = getattr(MARKERS, f"any_{kind}")
    assert (union.search(text) is not None) == any(p.search(text) for p in patterns)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_pattern_is_reachable_through_the_alternation(kind: str) -> None:
    union = getattr(MARKERS, f"any_{kind}")
    for pattern in KINDS[kind]:
        assert isinstance(union, re.Pattern)  # the bundle's own markers do join into one alternation
        assert union.pattern.count(f"(?:{pattern.pattern})") >= 1
        assert union.flags == pattern.flags


def test_any_of_nothing_matches_nothing() -> None:
    assert any_of(()).search("anything") is None


@pytest.mark.parametrize("sources,flags", [
    (["a", "b"], [0, re.IGNORECASE]),  # mixed flags
    ([r"(x)y", r"(\w)\1"], [0, 0]),  # a numbered back-reference would point at another branch's group
    ([r"(?P<v>x)y", r"(?P<w>\w)(?P=w)"], [0, 0]),  # so would a named one
    (["(?i)ab", "cd"], [0, 0]),  # a global inline flag cannot move into a group
])
def test_patterns_that_cannot_be_joined_are_searched_one_by_one(sources: list[str], flags: list[int]) -> None:
    patterns = [re.compile(s, f) for s, f in zip(sources, flags, strict=True)]
    union = any_of(patterns)
    for text in ["", "A", "b", "aa", "xx", "xy", "ww", "zz", "AB", "cd", "qq qq"]:
        assert (union.search(text) is not None) == any(p.search(text) for p in patterns)
