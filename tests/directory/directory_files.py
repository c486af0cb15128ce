"""A directory made of test records: written to a fresh folder under ``tmp_path`` with a plain JSON mapping, and
loaded into a ``TraceRetriever`` with the project's rules. Shared by the region test modules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.directory.directory_rules import DirectoryRules
from engine.directory.ingest import load_directory
from engine.directory.retriever import TraceRetriever

FIELDS: dict[str, Any] = {"name": "name", "address": "address", "city": "city", "state": "state", "zip": "zip",
                          "hours": "hours", "notes": ["notes"]}


def retriever_over(tmp_path: Path, records: list[dict[str, Any]], state: str, rules: DirectoryRules,
                   *, fields: dict[str, Any] | None = None, **mapping: Any) -> TraceRetriever:
    """``fields`` adds to (or replaces) the plain field mapping; ``mapping`` adds top-level mapping keys (e.g.
    ``coordinates``). Each call gets its own folder, so a test may build several directories."""
    folder = tmp_path / f"directory-{len(list(tmp_path.iterdir()))}"
    folder.mkdir()
    path = folder / "records.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    mapping_path = folder / "mapping.json"
    mapping_path.write_text(json.dumps({
        "version": "1.0.0", "description": "test", "directory_id": "t", "format": "json",
        "fields": {**FIELDS, **(fields or {})}, "defaults": {"state": state}, **mapping}), encoding="utf-8")
    return TraceRetriever(load_directory(path, mapping_path, rules), rules)
