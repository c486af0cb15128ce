"""The grounded answerer over the demo corpora with the real bundled model (my own question wordings)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.kernel.ports import Answerer, GroundedAnswer
from engine.kernel.turn_context import TurnContext
from engine.retrieval import GroundedAnswerer, build_answerer
from engine.retrieval.analysis import split_sentences
from engine.retrieval.errors import RetrievalConfigError, RetrievalRulesError
from engine.retrieval.grounding import Claim
from engine.retrieval.models import ScoredPassage
from engine.retrieval.retrieval_rules import RetrievalRules
from tests.retrieval.project_rules import project_rules

from .conftest import CLEANING, REAL_ESTATE


def _assert_grounded(answerer: GroundedAnswerer, answer: GroundedAnswer) -> None:
    """Every citation quotes a sentence of the cited corpus passage, and the text is made of those quotes."""
    assert answer.supported and answer.is_question and answer.citations
    passages = answerer.retriever.corpus.by_id()
    for citation in answer.citations:
        passage = passages[citation.passage_id]
        assert citation.source == passage.source
        assert citation.quote in split_sentences(passage.text)
        assert citation.quote in answer.text


def _is_abstention(rules: RetrievalRules, language: str, answer: GroundedAnswer) -> bool:
    """A ``none`` reply: the unavailable message or the near-miss message (which names the closest section and the
    asked words it lacks, never a claim), then at most the documents' own contact sentence, cited verbatim."""
    lang = rules.language(language)
    head = lang.near_miss_message.split("{covered}")[0]
    first = answer.text.split("\n", 1)[0]
    return (
        answer.kind == "none"
        and not answer.supported
        and answer.is_question
        and len(answer.citations) <= 1
        and all(c.quote in answer.text for c in answer.citations)
        and (first == rules.answering.frames_for(language).none or first.startswith(head))
    )


def _is_related(answerer: GroundedAnswerer, rules: RetrievalRules, language: str, answer: GroundedAnswer) -> bool:
    """A ``related`` reply: the frame naming the cited section, then only that section's sentences, verbatim, and
    at most the allowed number of other sections as links; never a supported answer."""
    settings = rules.answering
    passages = answerer.retriever.corpus.by_id()
    cited = {c.passage_id for c in answer.citations}
    if answer.kind != "related" or answer.supported or len(cited) != 1:
        return False
    passage = passages[next(iter(cited))]
    sentences = split_sentences(passage.text)
    return (
        answer.frame == settings.frames_for(language).related.format(label=passage.label or passage.title)
        and answer.text.startswith(answer.frame)
        and 1 <= len(answer.citations) <= settings.related_max_sentences
        and all(c.quote in sentences for c in answer.citations)
        and len(answer.links) <= settings.related_max_links
        and all(link.passage_id not in cited and not link.quote for link in answer.links)
    )


def _assert_shown(answerer: GroundedAnswerer, rules: RetrievalRules, language: str, answer: GroundedAnswer) -> None:
    """The right section's sentences reached the visitor: as a grounded answer, or (the model not confident enough,
    ``answering.answer_min_probability``) as a related reply quoting them verbatim."""
    if answer.kind == "related":
        assert _is_related(answerer, rules, language, answer)
    else:
        _assert_grounded(answerer, answer)


def test_answerer_implements_the_port(real_estate: GroundedAnswerer) -> None:
    port: Answerer = real_estate
    assert isinstance(port.answer("Do you sell fincas?", "en"), GroundedAnswer)


_TWIN = pytest.mark.xfail(
    reason="fitted decision (issue 17): the Spanish twin of the section shares the probability; the leader stays "
    "just under the threshold"
)


@pytest.mark.parametrize(
    ("question", "language", "must_contain"),
    [
        ("Could I buy a villa that has its own swimming pool?", "en", "pool"),
        pytest.param("What paperwork is required for a non-Spanish buyer?", "en", "NIE", marks=_TWIN),
        pytest.param("What paperwork is required for a non-Spanish buyer?", "en", "arras", marks=_TWIN),
        ("What do you offer to buyers?", "en", "Tourist rental management"),
        ("¿Qué zona recomendáis para vivir cerca de la playa?", "es", "Macenas"),
    ],
)
def test_real_estate_answers_are_grounded(
    real_estate: GroundedAnswerer, question: str, language: str, must_contain: str
) -> None:
    answer = real_estate.answer(question, language)
    _assert_shown(real_estate, project_rules(), language, answer)
    assert must_contain in answer.text


@pytest.mark.parametrize(
    ("question", "must_contain"),
    [
        pytest.param(
            "¿Cuántos días a la semana limpiáis las escaleras de un edificio de vecinos?",
            "2 y 5 días",
            # "edificio" and "vecinos" appear nowhere in the corpus: read as an unstated asked thing (near miss).
            marks=pytest.mark.xfail(reason="paraphrased nouns the corpus never uses look like a near miss"),
        ),
        ("¿Podéis pulir mármol sin estropearlo?", "mármol"),
        pytest.param(
            "¿Trabajáis en Málaga?",
            "Málaga",
            # the area section states "Málaga" and every asked word, but the hotel section leads retrieval
            marks=pytest.mark.xfail(
                reason="fitted decision: the leader lacks the asked name, the right section ranks 3rd"
            ),
        ),
        pytest.param(
            "¿Cómo aseguráis la calidad de la limpieza?",
            "supervisión periódica",
            marks=pytest.mark.xfail(
                reason="fitted decision: an unstated verb keeps the right section just under threshold"
            ),
        ),
    ],
)
def test_cleaning_answers_are_grounded(cleaning: GroundedAnswerer, question: str, must_contain: str) -> None:
    answer = cleaning.answer(question, "es")
    _assert_shown(cleaning, project_rules(), "es", answer)
    assert must_contain in answer.text


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("Is there an international school close to your homes?", "en"),
        ("Could I book a time to go and see one of the apartments?", "en"),
        ("¿Cómo concierto una visita a uno de los pisos?", "es"),
        ("Do you have anything in Benidorm?", "en"),
    ],
)
def test_real_estate_abstains_where_the_corpus_is_silent(
    real_estate: GroundedAnswerer, rules: RetrievalRules, question: str, language: str
) -> None:
    answer = real_estate.answer(question, language)
    assert _is_abstention(rules, language, answer)


def test_cleaning_abstains_in_spanish(cleaning: GroundedAnswerer, rules: RetrievalRules) -> None:
    answer = cleaning.answer("¿Tenéis servicio de mudanzas y transporte de muebles?", "es")
    assert _is_abstention(rules, "es", answer)
    assert "mudanzas" not in answer.text or "transporte" in answer.text  # names what was asked, claims nothing


@pytest.mark.parametrize("message", ["I need four bedrooms and a pool.", "My email is me@example.com", ""])
def test_non_questions_get_an_empty_answer(real_estate: GroundedAnswerer, message: str) -> None:
    assert real_estate.answer(message, "en") == GroundedAnswer(text="", supported=False, is_question=False)


def test_answer_is_turn_local_and_deterministic(real_estate: GroundedAnswerer) -> None:
    question = "Do you manage holiday rentals?"
    first = real_estate.answer(question, "en")
    real_estate.answer("Are there international schools?", "en")
    assert real_estate.answer(question, "en") == first


def test_unknown_language_fails_closed(real_estate: GroundedAnswerer) -> None:
    with pytest.raises(RetrievalRulesError) as info:
        real_estate.answer("Do you sell fincas?", "de")
    assert info.value.code == "retrieval.language.unsupported"


class _Inventing:
    """A synthesizer that rephrases and invents: its unsupported claims must never reach the visitor."""

    name = "inventing"

    def __init__(self, claims: Sequence[str]) -> None:
        self.claims = claims

    def synthesize(self, message: str, evidence: Sequence[ScoredPassage], language: str,
                   context: TurnContext | None = None) -> list[Claim]:
        return [Claim(text=text, passage_id=evidence[0].passage.id) for text in self.claims]


def test_unsupported_claims_are_dropped(embedding_cache: Path) -> None:
    answerer = build_answerer(
        REAL_ESTATE,
        rules=project_rules(),
        cache_dir=embedding_cache,
        synthesizer=_Inventing(
            ["Yes, we have houses with swimming pools for sale in Vera.", "Every villa includes a free yacht."]
        ),
    )
    answer = answerer.answer("Do you have houses with a swimming pool?", "en")
    assert answer.supported
    assert answer.text == "Yes, we have houses with swimming pools for sale in Vera."
    assert [c.quote for c in answer.citations] == [answer.text]


def test_no_supported_claim_falls_back_to_verbatim_sentences(embedding_cache: Path, rules: RetrievalRules) -> None:
    """A synthesizer (an LLM) writes only the answer tier: when every claim it made fails the check, the reply is
    the related section's own sentences (or none), never the invented text."""
    answerer = build_answerer(
        CLEANING,
        rules=project_rules(),
        cache_dir=embedding_cache,
        synthesizer=_Inventing(["Limpiamos gratis los domingos en Madrid."]),
    )
    answer = answerer.answer("¿Limpiáis oficinas?", "es")
    assert "gratis" not in answer.text
    assert _is_related(answerer, rules, "es", answer) or _is_abstention(rules, "es", answer)


@pytest.mark.parametrize(
    ("backend", "options", "code"),
    [
        ("pinecone", {}, "retrieval.config.backend"),
        ("embedded", {"url": "http://x"}, "retrieval.config.option"),
        ("embedded", {"embedder": "nope"}, "retrieval.config.embedder"),
        ("embedded", {"filters": "town=Vera"}, "retrieval.config.filter"),
    ],
)
def test_factory_rejects_bad_configuration(backend: str, options: dict[str, object], code: str) -> None:
    with pytest.raises(RetrievalConfigError) as info:
        build_answerer(REAL_ESTATE, rules=project_rules(), backend=backend, use_cache=False, **options)
    assert info.value.code == code


def test_weaviate_backend_needs_a_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WEAVIATE_URL", raising=False)
    with pytest.raises(RetrievalConfigError) as info:
        build_answerer(REAL_ESTATE, rules=project_rules(), backend="weaviate", embedder="hashing", use_cache=False)
    assert info.value.code == "retrieval.config.url"


def test_configured_filters_apply_to_every_question(embedding_cache: Path) -> None:
    answerer = build_answerer(
        REAL_ESTATE,
        rules=project_rules(),
        cache_dir=embedding_cache,
        filters=[{"field": "town", "op": "eq", "value": "Mojácar"}],
    )
    hits = answerer.retriever.search("villa with a pool", 5, answerer.filters)
    assert hits and all(h.passage.fields.get("town") == "Mojácar" for h in hits)


_WORDS = ["pool", "Vera", "villa", "garden", "NIE", "schools", "price", "terrace", "rent", "Mojácar", "beach", "zebra"]


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.sampled_from(_WORDS), min_size=1, max_size=6),
    st.sampled_from(["Do you have {}?", "What about {}?", "{}.", "I like {}"]),
)
def test_every_answer_is_empty_unavailable_or_fully_cited(
    real_estate: GroundedAnswerer, rules: RetrievalRules, words: list[str], template: str
) -> None:
    answer = real_estate.answer(template.format(" ".join(words)), "en")
    if not answer.is_question:
        assert answer == GroundedAnswer()
    elif answer.kind == "related":
        assert _is_related(real_estate, rules, "en", answer)
    elif not answer.supported:
        assert _is_abstention(rules, "en", answer)
    else:
        assert answer.kind == "answer"
        _assert_grounded(real_estate, answer)
