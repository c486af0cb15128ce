"""Published rule bundles kept whole: every file of every published version, stored by its content hash.

A publication record (``published/<version>.json``) lists each file's sha256. ``grace rules approve`` also copies
each file's bytes into ``published/blobs/<hex>`` (content-addressed, so versions share unchanged files), which lets
any pinned version be rebuilt byte for byte — to serve or replay a conversation pinned to it, or to hand a
compliance reader the exact rules a decision used — without digging the files out of version control.
Rebuilding re-checks every file hash and the bundle hash before anything is loaded.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import structlog

from engine.errors import IntegrityError, PublicationError
from engine.rules.loader import DEFAULT_RULES_DIR, RuleBundle, compute_hashes, load_bundle

log = structlog.get_logger("grace.rules.archive")

BLOBS = "blobs"


def _blob_dir(root: Path) -> Path:
    return root / "published" / BLOBS


def _hex(file_hash: str) -> str:
    if not file_hash.startswith("sha256:") or len(file_hash) != 71:
        raise IntegrityError(f"not a sha256 file hash: {file_hash!r}", code="rules.archive.bad_hash")
    return file_hash.split(":", 1)[1]


def store_blobs(root: Path, file_hashes: dict[str, str]) -> int:
    """Copy every bundle file into the blob store (idempotent); returns how many blobs were new."""
    target = _blob_dir(root)
    target.mkdir(parents=True, exist_ok=True)
    new = 0
    for rel, file_hash in file_hashes.items():
        blob = target / _hex(file_hash)
        if blob.exists():
            continue
        data = (root / rel).read_bytes()
        if "sha256:" + hashlib.sha256(data).hexdigest() != file_hash:
            raise IntegrityError(f"{rel} changed while it was archived", code="rules.archive.changed")
        tmp = blob.with_suffix(".tmp")
        tmp.write_bytes(data)
        tmp.replace(blob)
        new += 1
    return new


def publication(root: Path, version: str) -> dict[str, Any]:
    path = root / "published" / f"{version}.json"
    if not path.exists():
        known = ", ".join(published_versions(root)) or "none"
        raise PublicationError(f"rule bundle {version} is not published (published: {known})",
                               code="rules.archive.unknown_version")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def published_versions(root: Path = DEFAULT_RULES_DIR) -> list[str]:
    folder = root / "published"
    versions = [p.stem for p in folder.glob("*.json")] if folder.is_dir() else []
    return sorted(versions, key=lambda v: tuple(int(part) for part in v.split(".")))


def missing_blobs(root: Path, version: str) -> list[str]:
    """Files of a published version whose bytes the archive does not hold."""
    files: dict[str, str] = publication(root, version).get("files", {})
    return sorted(rel for rel, h in files.items() if not (_blob_dir(root) / _hex(h)).exists())


def version_of_hash(root: Path, content_hash: str) -> str | None:
    """The published version whose bundle hash is ``content_hash`` (what a conversation or record is pinned to)."""
    for version in published_versions(root):
        if publication(root, version).get("content_hash") == content_hash:
            return version
    return None


def materialize(root: Path, version: str, target: Path) -> Path:
    """Write published ``version`` into ``target`` (a new or empty folder) exactly as it was approved."""
    record = publication(root, version)
    missing = missing_blobs(root, version)
    if missing:
        raise IntegrityError(f"bundle {version} is not archived whole: {len(missing)} file(s) missing, "
                             f"e.g. {missing[0]}", code="rules.archive.incomplete")
    if target.exists() and any(target.iterdir()):
        raise PublicationError(f"{target} is not empty", code="rules.archive.target_not_empty")
    for rel, file_hash in record["files"].items():
        data = (_blob_dir(root) / _hex(file_hash)).read_bytes()
        if "sha256:" + hashlib.sha256(data).hexdigest() != file_hash:
            raise IntegrityError(f"archived blob of {rel} in bundle {version} was altered",
                                 code="rules.archive.blob_altered")
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (target / "published").mkdir(parents=True, exist_ok=True)
    (target / "published" / f"{version}.json").write_text(json.dumps(record, indent=2, sort_keys=True) + "\n",
                                                          encoding="utf-8")
    content_hash, _ = compute_hashes(target)
    if content_hash != record["content_hash"]:
        raise IntegrityError(f"rebuilt bundle {version} hashes to {content_hash}, not {record['content_hash']}",
                             code="rules.archive.hash_mismatch")
    log.info("rules.archive.materialized", version=version, content_hash=content_hash, files=len(record["files"]))
    return target


@contextmanager
def published_bundle(version: str, root: Path = DEFAULT_RULES_DIR) -> Iterator[RuleBundle]:
    """The published bundle ``version`` rebuilt from the archive in a temporary folder, loaded as published."""
    folder = Path(tempfile.mkdtemp(prefix=f"grace-rules-{version}-"))
    try:
        materialize(root, version, folder)
        yield load_bundle(folder, require_published=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
