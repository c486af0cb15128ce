"""One embedding cache for a whole test run, shared by every xdist worker and every server the tests start.

The cache (``engine.retrieval.cache``) is keyed by the corpus content hash and the model id and written
atomically, so sharing it can only save time: each demo corpus is embedded once per run instead of once per
test, worker and server process. The cold path (embedding, storing, a damaged entry) keeps its own tests in
tests/retrieval/test_index.py, which use a fresh folder.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEMO_CORPORA = (ROOT / "demos" / "real_estate" / "corpus", ROOT / "demos" / "cleaning" / "corpus")


def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's shared cache folder (beside the workers' own temporary folders under xdist), holding the demo
    corpora's embeddings before any test uses it.

    The slow modules (servers, benchmarks, the demo answerers) run first on every worker and all need the demo
    corpora: without this, each worker and each server it starts would embed them at once, on a cold cache. One
    process embeds them, under a lock; the others wait for it and then read the cache."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = root / "shared-embeddings"
    folder.mkdir(parents=True, exist_ok=True)
    with (root / "shared-embeddings.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        warm = root / "shared-embeddings.warm"
        if not warm.exists():
            _embed_demo_corpora(folder)
            warm.touch()
    return folder


def _embed_demo_corpora(folder: Path) -> None:
    from engine.retrieval import build_answerer
    from tests.retrieval.project_rules import project_rules

    for corpus in DEMO_CORPORA:
        build_answerer(corpus, rules=project_rules(), cache_dir=folder)


def link_embeddings(data_dir: Path, cache: Path) -> Path:
    """Point a service data folder's embedding cache (``<data-dir>/embeddings``) at the shared cache."""
    data_dir.mkdir(parents=True, exist_ok=True)
    link = data_dir / "embeddings"
    if not link.exists():
        link.symlink_to(cache, target_is_directory=True)
    return data_dir
