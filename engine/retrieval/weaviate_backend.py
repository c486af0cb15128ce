"""Weaviate backend (weaviate-client v4): same ``Retriever`` interface as the embedded index.

* One collection per corpus content: ``<prefix>_<hash12>``; a changed corpus gets a new collection, so a
  stale index can never answer. Vectors are self-provided by our ``Embedder`` (Weaviate runs no model).
* Properties: passage text fields plus one typed property ``f_<field>`` per record field. Text record values
  are stored folded (case/accents) so equality filters behave as in the embedded index; the original values
  travel in ``fields_json``.
* Search: Weaviate hybrid with ranked fusion (its RRF), alpha from the rule weights. Hits are mapped back to
  the local corpus by ``passage_id``; the dense score is recomputed from the returned vector, so the grounding
  gate sees the same numbers as with the embedded index.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlparse

import numpy as np
import structlog

from engine.retrieval.analysis import AnalyzerSet
from engine.retrieval.cache import EmbeddingCache
from engine.retrieval.corpus import Corpus
from engine.retrieval.embedder import Embedder
from engine.retrieval.errors import BackendError, CorpusError, RetrievalConfigError
from engine.retrieval.filters import FieldFilter
from engine.retrieval.index import analyse_corpus, embed_corpus
from engine.retrieval.models import FieldValue, Passage, ScoredPassage
from engine.retrieval.retrieval_rules import RetrievalSettings
from engine.text import fold

log = structlog.get_logger("grace.retrieval")

FIELD_PREFIX = "f_"
_BASE_PROPERTIES: tuple[tuple[str, str, bool], ...] = (
    # name, data type, searchable by BM25
    ("passage_id", "text", False),
    ("source", "text", False),
    ("title", "text", True),
    ("text", "text", True),
    ("language", "text", False),
    ("kind", "text", False),
    ("fields_json", "text", False),
)
_OPERATORS = {
    "eq": "equal",
    "ne": "not_equal",
    "lt": "less_than",
    "lte": "less_or_equal",
    "gt": "greater_than",
    "gte": "greater_or_equal",
    "contains_any": "contains_any",
}


def _kind_of(value: FieldValue) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "text"
    if all(isinstance(v, str) for v in value):
        return "text[]"
    if all(isinstance(v, int) for v in value):
        return "int[]"
    return "number[]"


def record_field_types(passages: Sequence[Passage]) -> dict[str, str]:
    """One data type per record field across the corpus (int widens to number; other mixes are errors)."""
    types: dict[str, str] = {}
    for passage in passages:
        for name, value in passage.fields.items():
            kind = _kind_of(value)
            seen = types.get(name)
            if seen is None or seen == kind:
                types[name] = kind
            elif {seen, kind} == {"int", "number"}:
                types[name] = "number"
            elif {seen, kind} == {"int[]", "number[]"}:
                types[name] = "number[]"
            else:
                raise CorpusError(
                    f"record field {name!r} mixes types {seen} and {kind}", code="retrieval.corpus.field_type"
                )
    return types


def collection_properties(passages: Sequence[Passage]) -> list[Any]:
    """The Weaviate schema (``Property`` list) for a corpus."""
    from weaviate.classes.config import DataType, Property, Tokenization

    data_types = {
        "text": DataType.TEXT,
        "int": DataType.INT,
        "number": DataType.NUMBER,
        "bool": DataType.BOOL,
        "text[]": DataType.TEXT_ARRAY,
        "int[]": DataType.INT_ARRAY,
        "number[]": DataType.NUMBER_ARRAY,
    }
    props = [
        Property(
            name=name,
            data_type=data_types[kind],
            tokenization=Tokenization.WORD if searchable else Tokenization.FIELD,
            index_searchable=searchable,
            skip_vectorization=True,
        )
        for name, kind, searchable in _BASE_PROPERTIES
    ]
    for name, kind in sorted(record_field_types(passages).items()):
        text_like = kind in ("text", "text[]")
        props.append(
            Property(
                name=FIELD_PREFIX + name,
                data_type=data_types[kind],
                tokenization=Tokenization.FIELD if text_like else None,
                index_filterable=True,
                index_searchable=False,
                index_range_filters=kind in ("int", "number"),
                skip_vectorization=True,
            )
        )
    return props


def _stored_value(value: FieldValue) -> FieldValue:
    if isinstance(value, str):
        return fold(value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [fold(str(v)) for v in value]
    return value


def passage_properties(passage: Passage) -> dict[str, Any]:
    props: dict[str, Any] = {
        "passage_id": passage.id,
        "source": passage.source,
        "title": passage.title,
        "text": passage.text,
        "language": passage.language,
        "kind": passage.kind,
        "fields_json": json.dumps(passage.fields, ensure_ascii=False, sort_keys=True),
    }
    for name, value in passage.fields.items():
        props[FIELD_PREFIX + name] = _stored_value(value)
    return props


def translate_filters(filters: Sequence[FieldFilter]) -> Any:
    """``FieldFilter`` conjunction → a Weaviate ``Filter`` (None when there is nothing to filter)."""
    if not filters:
        return None
    from weaviate.classes.query import Filter

    parts = []
    for flt in filters:
        method = getattr(Filter.by_property(FIELD_PREFIX + flt.field), _OPERATORS[flt.op])
        parts.append(method(_stored_value(flt.value)))
    return parts[0] if len(parts) == 1 else Filter.all_of(parts)


def collection_name(prefix: str, corpus: Corpus) -> str:
    if not prefix[:1].isupper() or not prefix.replace("_", "").isalnum():
        raise RetrievalConfigError(
            "Weaviate collection prefix must start with an uppercase letter and be alphanumeric",
            code="retrieval.config.collection",
        )
    return f"{prefix}_{corpus.content_hash.removeprefix('sha256:')[:12]}"


def connect(url: str, grpc_port: int = 50051, api_key: str | None = None) -> Any:
    """A connected Weaviate client for ``http(s)://host:port``."""
    import weaviate
    from weaviate.classes.init import Auth

    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise RetrievalConfigError(
            f"Weaviate URL must be http(s)://host[:port], got {url!r}", code="retrieval.config.url"
        )
    secure = parsed.scheme == "https"
    try:
        return weaviate.connect_to_custom(
            http_host=parsed.hostname,
            http_port=parsed.port or (443 if secure else 80),
            http_secure=secure,
            grpc_host=parsed.hostname,
            grpc_port=grpc_port,
            grpc_secure=secure,
            auth_credentials=Auth.api_key(api_key) if api_key else None,
        )
    except Exception as exc:  # the client raises many transport-specific types
        raise BackendError(f"cannot connect to Weaviate at {url}: {exc}", code="retrieval.backend.unreachable") from exc


def _vector_of(obj: Any) -> list[float] | None:
    vector = getattr(obj, "vector", None)
    if isinstance(vector, Mapping):
        vector = vector.get("default") or next(iter(vector.values()), None)
    return list(vector) if vector else None


class WeaviateIndex:
    def __init__(
        self,
        corpus: Corpus,
        analyzers: AnalyzerSet,
        embedder: Embedder,
        settings: RetrievalSettings,
        client: Any,
        prefix: str = "GraceCorpus",
        cache: EmbeddingCache | None = None,
    ) -> None:
        self.corpus = corpus
        self.analyzers = analyzers
        self.embedder = embedder
        self.settings = settings
        self.client = client
        term_lists, self.term_stats, self.vocabulary = analyse_corpus(corpus, analyzers)
        self.passage_terms = {p.id: frozenset(t) for p, t in zip(corpus.passages, term_lists, strict=True)}
        self._by_id = corpus.by_id()
        total = settings.lexical_weight + settings.dense_weight
        self.alpha = settings.dense_weight / total if total > 0 else 0.5
        self.name = collection_name(prefix, corpus)
        # Title vectors stay local (the corpus is local): Weaviate ranks by its hybrid, we add the title score.
        self.vectors = embed_corpus(corpus, embedder, cache)
        self._row = {p.id: i for i, p in enumerate(corpus.passages)}
        self.collection = self._ensure()

    def _ensure(self) -> Any:
        from weaviate.classes.config import Configure
        from weaviate.classes.data import DataObject
        from weaviate.util import generate_uuid5

        try:
            if self.client.collections.exists(self.name):
                log.info("retrieval.weaviate.reuse", collection=self.name)
                return self.client.collections.get(self.name)
            vectors = self.vectors.body
            collection = self.client.collections.create(
                self.name,
                description=f"GRACE corpus {self.corpus.manifest.company} {self.corpus.content_hash}",
                properties=collection_properties(self.corpus.passages),
                vector_config=Configure.Vectors.self_provided(),
            )
        except Exception as exc:
            raise BackendError(f"Weaviate schema setup failed: {exc}", code="retrieval.backend.schema") from exc
        objects = [
            DataObject(properties=passage_properties(p), uuid=generate_uuid5(p.id), vector=vectors[i].tolist())
            for i, p in enumerate(self.corpus.passages)
        ]
        try:
            result = collection.data.insert_many(objects)
            failure = next(iter(result.errors.values()), None) if getattr(result, "has_errors", False) else None
        except Exception as exc:
            failure = exc
        if failure is not None:
            # Nothing half-written: a partial collection would answer from an incomplete corpus.
            self.client.collections.delete(self.name)
            raise BackendError(f"Weaviate rejected passages: {failure}", code="retrieval.backend.ingest")
        log.info("retrieval.weaviate.created", collection=self.name, passages=len(objects))
        return collection

    def search(
        self, query: str, k: int, filters: Sequence[FieldFilter] = (), expansion: Sequence[str] = ()
    ) -> list[ScoredPassage]:
        from weaviate.classes.query import HybridFusion, MetadataQuery

        started = time.perf_counter()
        q = self.embedder.embed_queries([query])[0]
        try:
            response = self.collection.query.hybrid(
                query=" ".join([query, *expansion]),  # keyword side only; the vector is the visitor's words
                vector=q.tolist(),
                alpha=self.alpha,
                fusion_type=HybridFusion.RANKED,
                query_properties=["title", "text"],
                limit=k,
                filters=translate_filters(filters),
                return_metadata=MetadataQuery(score=True),
                include_vector=True,
            )
        except Exception as exc:
            raise BackendError(f"Weaviate hybrid query failed: {exc}", code="retrieval.backend.query") from exc
        hits: list[ScoredPassage] = []
        for position, obj in enumerate(response.objects, start=1):
            passage_id = obj.properties.get("passage_id")
            passage = self._by_id.get(str(passage_id))
            if passage is None:
                raise BackendError(
                    f"Weaviate returned unknown passage {passage_id!r}", code="retrieval.backend.out_of_sync"
                )
            vector = _vector_of(obj)
            dense = float(np.dot(np.asarray(vector, dtype=np.float32), q)) if vector else 0.0
            score = getattr(obj.metadata, "score", None)
            row = self._row[passage.id]
            title = float(self.vectors.titles[row] @ q) if self.vectors.has_title[row] else 0.0
            hits.append(
                ScoredPassage(
                    passage=passage, score=float(score or 0.0), rank=position, dense_score=dense, title_score=title
                )
            )
        log.debug(
            "retrieval.query.done",
            backend="weaviate",
            k=k,
            hits=[h.passage.id for h in hits],
            ms=round((time.perf_counter() - started) * 1000, 2),
        )
        return hits
