"""Weaviate backend: schema and filter translation (pure), ingestion and search against a recorded-shape fake
client, and a live integration test that runs only when WEAVIATE_URL is set."""

from __future__ import annotations

import json
import os
import uuid
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from engine.retrieval import GroundedAnswerer, build_answerer
from engine.retrieval.analysis import AnalyzerSet
from engine.retrieval.corpus import load_corpus
from engine.retrieval.embedder import HashingEmbedder
from engine.retrieval.errors import BackendError, CorpusError, RetrievalConfigError
from engine.retrieval.filters import FieldFilter
from engine.retrieval.models import Passage
from engine.retrieval.retrieval_rules import RetrievalRules
from engine.retrieval.weaviate_backend import (
    WeaviateIndex,
    collection_name,
    collection_properties,
    passage_properties,
    record_field_types,
    translate_filters,
)
from tests.retrieval.project_rules import project_rules

from .conftest import REAL_ESTATE


def _props_by_name(passages: list[Passage]) -> dict[str, Any]:
    return {p.name: p for p in collection_properties(passages)}


def test_schema_types_record_fields() -> None:
    from weaviate.classes.config import DataType, Tokenization  # here, not at collection: weaviate takes 3 s

    props = _props_by_name(list(load_corpus(REAL_ESTATE).passages))
    assert props["passage_id"].dataType == DataType.TEXT and props["passage_id"].tokenization == Tokenization.FIELD
    assert props["text"].indexSearchable is True and props["text"].tokenization == Tokenization.WORD
    assert props["f_price_eur"].dataType == DataType.INT and props["f_price_eur"].indexRangeFilters is True
    assert props["f_amenities"].dataType == DataType.TEXT_ARRAY
    assert props["f_town"].dataType == DataType.TEXT and props["f_town"].tokenization == Tokenization.FIELD
    assert props["f_plot_m2"].dataType == DataType.INT
    assert all(p.skip_vectorization for p in props.values())


def _passage(pid: str, **fields: Any) -> Passage:
    return Passage(id=pid, source="x.json", title="", text="t", language="en", kind="record", fields=fields)


def test_field_types_widen_int_to_number_and_reject_mixes() -> None:
    assert record_field_types([_passage("a", size=1), _passage("b", size=2.5)]) == {"size": "number"}
    with pytest.raises(CorpusError) as info:
        record_field_types([_passage("a", size=1), _passage("b", size="big")])
    assert info.value.code == "retrieval.corpus.field_type"


@pytest.mark.parametrize(
    ("op", "value", "operator", "stored"),
    [
        ("eq", "Mojácar", "Equal", "mojacar"),
        ("ne", "Vera", "NotEqual", "vera"),
        ("lt", 300000, "LessThan", 300000),
        ("lte", 300000, "LessThanEqual", 300000),
        ("gt", 2, "GreaterThan", 2),
        ("gte", 3, "GreaterThanEqual", 3),
        ("contains_any", ["Private Pool"], "ContainsAny", ["private pool"]),
    ],
)
def test_filter_translation(op: str, value: Any, operator: str, stored: Any) -> None:
    translated = translate_filters([FieldFilter(field="town", op=op, value=value)])  # type: ignore[arg-type]
    assert translated.target == "f_town"
    assert translated.operator.value == operator
    assert translated.value == stored


def test_filter_conjunction_and_empty() -> None:
    assert translate_filters([]) is None
    both = translate_filters(
        [FieldFilter(field="town", op="eq", value="Vera"), FieldFilter(field="bedrooms", op="gte", value=3)]
    )
    assert [f.target for f in both.filters] == ["f_town", "f_bedrooms"]


def test_stored_properties_fold_text_values_and_keep_originals() -> None:
    passage = _passage("x.json#1", town="Mojácar", amenities=["Sea Views"], price_eur=5)
    props = passage_properties(passage)
    assert props["f_town"] == "mojacar" and props["f_amenities"] == ["sea views"] and props["f_price_eur"] == 5
    assert json.loads(props["fields_json"])["town"] == "Mojácar"


def test_collection_names_are_versioned_by_content() -> None:
    corpus = load_corpus(REAL_ESTATE)
    name = collection_name("Demo", corpus)
    assert name.startswith("Demo_") and name.removeprefix("Demo_") in corpus.content_hash
    with pytest.raises(RetrievalConfigError):
        collection_name("lower-case", corpus)


# --- a fake client with the shapes weaviate-client v4 returns -------------------------------------------------


@dataclass
class FakeCollection:
    name: str
    objects: list[Any] = field(default_factory=list)
    queries: list[dict[str, Any]] = field(default_factory=list)
    fail_insert: bool = False

    def __post_init__(self) -> None:
        self.data = SimpleNamespace(insert_many=self._insert_many)
        self.query = SimpleNamespace(hybrid=self._hybrid)

    def _insert_many(self, objects: list[Any]) -> Any:
        if self.fail_insert:
            return SimpleNamespace(has_errors=True, errors={0: "vector dimension mismatch"})
        self.objects.extend(objects)
        return SimpleNamespace(has_errors=False, errors={})

    def _hybrid(self, **kwargs: Any) -> Any:
        self.queries.append(kwargs)
        query = np.asarray(kwargs["vector"], dtype=np.float32)
        ranked = sorted(self.objects, key=lambda o: -float(np.dot(np.asarray(o.vector, dtype=np.float32), query)))
        return SimpleNamespace(
            objects=[
                SimpleNamespace(
                    properties=o.properties,
                    metadata=SimpleNamespace(score=1.0 / (i + 1)),
                    vector={"default": o.vector},
                    uuid=o.uuid,
                )
                for i, o in enumerate(ranked[: kwargs["limit"]])
            ]
        )


@dataclass
class FakeClient:
    fail_insert: bool = False
    store: dict[str, FakeCollection] = field(default_factory=dict)
    created: list[dict[str, Any]] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.collections = SimpleNamespace(
            exists=lambda name: name in self.store,
            get=lambda name: self.store[name],
            create=self._create,
            delete=self._delete,
        )

    def _create(self, name: str, **kwargs: Any) -> FakeCollection:
        self.created.append({"name": name, **kwargs})
        self.store[name] = FakeCollection(name, fail_insert=self.fail_insert)
        return self.store[name]

    def _delete(self, name: str) -> None:
        self.deleted.append(name)
        self.store.pop(name, None)


def _index(rules: RetrievalRules, client: FakeClient) -> WeaviateIndex:
    return WeaviateIndex(
        load_corpus(REAL_ESTATE), AnalyzerSet.from_rules(rules), HashingEmbedder(), rules.retrieval, client
    )


def test_ingest_creates_one_object_per_passage_with_vectors(rules: RetrievalRules) -> None:
    client = FakeClient()
    index = _index(rules, client)
    [created] = client.created
    assert created["name"] == index.name
    objects = client.store[index.name].objects
    corpus = load_corpus(REAL_ESTATE)
    assert [o.properties["passage_id"] for o in objects] == [p.id for p in corpus.passages]
    assert all(len(o.vector) == HashingEmbedder().dim for o in objects)
    assert len({o.uuid for o in objects}) == len(objects)
    assert all(isinstance(uuid.UUID(str(o.uuid)), uuid.UUID) for o in objects)


def test_existing_collection_is_reused(rules: RetrievalRules) -> None:
    client = FakeClient()
    _index(rules, client)
    _index(rules, client)
    assert len(client.created) == 1


def test_rejected_insert_removes_the_half_written_collection(rules: RetrievalRules) -> None:
    client = FakeClient(fail_insert=True)
    with pytest.raises(BackendError) as info:
        _index(rules, client)
    assert info.value.code == "retrieval.backend.ingest"
    assert client.store == {} and len(client.deleted) == 1


def test_search_sends_hybrid_query_and_maps_hits(rules: RetrievalRules) -> None:
    from weaviate.classes.query import HybridFusion

    client = FakeClient()
    index = _index(rules, client)
    filters = [FieldFilter(field="town", op="eq", value="Vera")]
    hits = index.search("villa with private pool", 3, filters)
    [sent] = client.store[index.name].queries
    assert sent["query"] == "villa with private pool" and sent["limit"] == 3
    # alpha is the dense share of the rule weights (Weaviate fuses the keyword and vector lists only)
    weights = rules.retrieval
    expected_alpha = weights.dense_weight / (weights.lexical_weight + weights.dense_weight)
    assert sent["fusion_type"] == HybridFusion.RANKED and sent["alpha"] == pytest.approx(expected_alpha)
    assert sent["filters"].target == "f_town" and sent["filters"].value == "vera"
    assert [h.rank for h in hits] == [1, 2, 3]
    assert all(-1.0 <= h.dense_score <= 1.0 for h in hits)
    assert hits[0].dense_score >= hits[-1].dense_score


def test_unknown_passage_from_the_server_is_an_error(rules: RetrievalRules) -> None:
    client = FakeClient()
    index = _index(rules, client)
    client.store[index.name].objects[0].properties["passage_id"] = "ghost.md#x"
    client.store[index.name].objects = client.store[index.name].objects[:1]
    with pytest.raises(BackendError) as info:
        index.search("anything", 1)
    assert info.value.code == "retrieval.backend.out_of_sync"


def test_answerer_over_the_weaviate_backend(rules: RetrievalRules) -> None:
    answerer = build_answerer(
        REAL_ESTATE, rules=project_rules(), backend="weaviate", client=FakeClient(), embedder="hashing", use_cache=False
    )
    assert isinstance(answerer, GroundedAnswerer)
    answer = answerer.answer("Are there international schools near the homes?", "en")
    assert answer.is_question and not answer.supported
    assert answerer.answer("I need a garden.", "en").is_question is False


@pytest.mark.weaviate
@pytest.mark.skipif(not os.environ.get("WEAVIATE_URL"), reason="needs a Weaviate server (WEAVIATE_URL)")
def test_live_weaviate_round_trip() -> None:
    from engine.retrieval.weaviate_backend import connect

    client = connect(os.environ["WEAVIATE_URL"], int(os.environ.get("WEAVIATE_GRPC_PORT", "50051")))
    prefix = f"GraceTest{uuid.uuid4().hex[:8]}"
    try:
        answerer = build_answerer(
            REAL_ESTATE,
            rules=project_rules(),
            backend="weaviate",
            client=client,
            collection_prefix=prefix,
            use_cache=False,
        )
        hits = answerer.retriever.search(
            "villa with private pool", 3, [FieldFilter(field="town", op="eq", value="Mojácar")]
        )
        assert hits and all(h.passage.fields.get("town") == "Mojácar" for h in hits)
        answer = answerer.answer("Do you have houses with a swimming pool?", "en")
        assert answer.supported and "pool" in answer.text
    finally:
        for name in list(client.collections.list_all()):
            if str(name).startswith(prefix):
                client.collections.delete(name)
        client.close()
