"""One embedding cache for a whole test run, shared by every xdist worker and every server the tests start.

The cache (``engine.retrieval.cache``) is keyed by the corpus content hash and the model id and written
atomically, so sharing it can only save time: each demo corpus is embedded once per run instead of once per
test, worker and server process. The cold path (embedding, storing, a damaged entry) keeps its own tests in
tests/retrieval/test_index.py, which use a fresh folder.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's shared cache folder: beside the workers' own temporary folders under xdist."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = root / "shared-embeddings"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def link_embeddings(data_dir: Path, cache: Path) -> Path:
    """Point a service data folder's embedding cache (``<data-dir>/embeddings``) at the shared cache."""
    data_dir.mkdir(parents=True, exist_ok=True)
    link = data_dir / "embeddings"
    if not link.exists():
        link.symlink_to(cache, target_is_directory=True)
    return data_dir
