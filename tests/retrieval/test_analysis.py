from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.retrieval.analysis import AnalyzerSet, TermStats, split_sentences, tokens
from engine.retrieval.retrieval_rules import RetrievalRules


def test_tokens_fold_accents_and_canonicalise_grouped_numbers() -> None:
    assert tokens("Mármol: 350.000 EUR o 495,000 EUR, 1.5 m") == [
        "marmol",
        "350000",
        "eur",
        "o",
        "495000",
        "eur",
        "1.5",
        "m",
    ]


@given(st.integers(min_value=1000, max_value=999_999_999), st.sampled_from([".", ","]))
def test_grouped_numbers_equal_plain_digits(value: int, sep: str) -> None:
    grouped = f"{value:,}".replace(",", sep)
    assert tokens(f"price {grouped} EUR")[1] == str(value)


@given(st.text(max_size=200))
def test_analysis_never_crashes_and_yields_no_empty_terms(rules: RetrievalRules, text: str) -> None:
    analyzers = AnalyzerSet.from_rules(rules)
    for code in rules.languages:
        assert all(analyzers.for_language(code).terms(text))
    assert all(w.variants for w in analyzers.query_words(text))
    assert all(s.strip() for s in split_sentences(text))


def test_query_words_drop_stopwords_of_any_language(rules: RetrievalRules) -> None:
    analyzers = AnalyzerSet.from_rules(rules)
    surfaces = [w.surface for w in analyzers.query_words("¿Con qué frecuencia limpiáis las escaleras?")]
    assert surfaces == ["frecuencia", "limpiais", "escaleras"]
    words = analyzers.query_words("swimming pools")
    assert any("pool" in w.variants for w in words)


def test_spanish_and_english_stemming_conflate_inflections(rules: RetrievalRules) -> None:
    analyzers = AnalyzerSet.from_rules(rules)
    es = analyzers.for_language("es")
    assert es.terms("oficinas") == es.terms("oficina")
    en = analyzers.for_language("en")
    assert en.terms("properties") == en.terms("property")


def test_split_sentences_keeps_list_items_and_numbers() -> None:
    body = "You need:\n- An NIE.\n- A bank account. It costs 1.500 EUR! Really?"
    assert split_sentences(body) == ["You need:", "An NIE.", "A bank account.", "It costs 1.500 EUR!", "Really?"]


def test_idf_is_highest_for_unseen_terms() -> None:
    stats = TermStats.build([["pool", "vera"], ["pool"], ["garden"]])
    assert stats.idf("unseen") > stats.idf("vera") > stats.idf("pool") > 0
