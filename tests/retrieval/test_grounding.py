"""Eq. 8: every claim must be supported by a retrieved passage; the check is deterministic and conservative."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.retrieval.analysis import AnalyzerSet
from engine.retrieval.grounding import Claim, check_claim, unknown_names
from engine.retrieval.models import Passage
from engine.retrieval.retrieval_rules import RetrievalRules

PASSAGE = Passage(
    id="p.md#pool",
    source="p.md",
    title="Do you have villas with a pool?",
    text="Yes, we have villas with private pools in Vera. The cheapest costs 495,000 EUR.",
    language="en",
)
EVIDENCE = {PASSAGE.id: PASSAGE}


def _check(rules: RetrievalRules, text: str, passage_id: str = PASSAGE.id) -> tuple[bool, str]:
    result = check_claim(
        Claim(text=text, passage_id=passage_id), EVIDENCE, AnalyzerSet.from_rules(rules), rules.grounding
    )
    return result.supported, result.reason


def test_verbatim_sentence_is_supported(rules: RetrievalRules) -> None:
    assert _check(rules, "Yes, we have villas with private pools in Vera.") == (True, "verbatim")


def test_light_rephrasing_with_the_same_content_is_supported(rules: RetrievalRules) -> None:
    assert _check(rules, "We have villas with a private pool in Vera.") == (True, "terms")


@pytest.mark.parametrize(
    ("claim", "reason"),
    [
        ("The cheapest villa costs 395,000 EUR.", "claim.number_unsupported"),
        ("We do not have villas with private pools in Vera.", "claim.negation_unsupported"),
        ("We have villas with private pools and tennis courts in Marbella.", "claim.terms_unsupported"),
        ("Yes.", "claim.no_content"),
    ],
)
def test_unsupported_claims_are_rejected(rules: RetrievalRules, claim: str, reason: str) -> None:
    assert _check(rules, claim) == (False, reason)


def test_claim_citing_a_passage_that_was_not_retrieved_is_rejected(rules: RetrievalRules) -> None:
    assert _check(rules, "Yes, we have villas with private pools in Vera.", "other.md#x") == (
        False,
        "claim.citation_not_retrieved",
    )


@given(st.integers(min_value=1, max_value=10**7).filter(lambda n: n != 495000))
def test_any_changed_price_is_unsupported(rules: RetrievalRules, price: int) -> None:
    supported, _ = _check(rules, f"The cheapest costs {price:,} EUR.")
    assert not supported


def test_unknown_names_are_capitalised_words_the_corpus_lacks() -> None:
    vocabulary = frozenset({"vera", "mojacar", "properties"})
    stop = frozenset({"do", "you", "i", "i'm"})
    assert unknown_names("Do you have properties in Marbella or Vera?", vocabulary, stop) == ["Marbella"]
    assert unknown_names("Marbella is nice", vocabulary, stop) == []  # sentence-initial: could be any word
    assert unknown_names("Can I buy in Mojácar?", vocabulary, stop) == []
