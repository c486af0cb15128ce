"""Approval and publication of goal specs as immutable, hashed versions (Algorithm 1, step 5)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import structlog

from engine.errors import GoalSpecError, IntegrityError, PublicationError
from engine.goals.validation import validate_spec
from engine.kernel.goal_models import GoalSpec, PublishedGoalSpec
from engine.kernel.goal_models import spec_hash as spec_hash  # where publishers look for it
from engine.rules.loader import RuleBundle

log = structlog.get_logger("grace.goals")
_VERSION_FILE = re.compile(r"^v(\d+)\.json$")


def load_published(path: Path) -> PublishedGoalSpec:
    """Load a published version and verify its content hash; the runtime accepts nothing else."""
    try:
        published = PublishedGoalSpec.model_validate_json(path.read_bytes())
    except OSError as exc:
        raise PublicationError(f"{path}: {exc.strerror}", code="goalspec.published_unreadable") from exc
    except ValueError as exc:
        raise PublicationError(f"{path.name}: not a published goal spec", code="goalspec.not_published") from exc
    actual = spec_hash(published.spec)
    if actual != published.content_hash:
        raise IntegrityError(f"{path.name}: content changed after publication", code="goalspec.hash_mismatch")
    return published


def list_published(root: Path) -> list[PublishedGoalSpec]:
    found = []
    for path in sorted(root.glob("*/v*.json")):
        if _VERSION_FILE.match(path.name):
            found.append(load_published(path))
    return sorted(found, key=lambda p: (p.spec.id, p.version))


def latest_published(root: Path, spec_id: str) -> PublishedGoalSpec:
    versions = [p for p in list_published(root) if p.spec.id == spec_id]
    if not versions:
        raise PublicationError(f"no published version of {spec_id} in {root}", code="goalspec.not_published")
    return versions[-1]


def approve(spec: GoalSpec, bundle: RuleBundle, approved_by: str, root: Path,
            *, now: datetime | None = None) -> PublishedGoalSpec:
    """Validate, then publish as the next version; re-approving identical content returns the existing version."""
    if not approved_by.strip():
        raise GoalSpecError([("goalspec.approver_missing", "an approver name is required (--by)")])
    validate_spec(spec, bundle)
    content_hash = spec_hash(spec)
    folder = root / spec.id
    existing = [p for p in list_published(root) if p.spec.id == spec.id] if root.exists() else []
    for published in existing:
        if published.content_hash == content_hash:
            return published
    version = (existing[-1].version + 1) if existing else 1
    published = PublishedGoalSpec(
        spec=spec,
        version=version,
        content_hash=content_hash,
        approved_by=approved_by.strip(),
        approved_at=now or datetime.now(UTC),
    )
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"v{version}.json"
    payload: dict[str, Any] = published.model_dump(mode="json")
    if target.exists():  # published versions are immutable: never overwrite one
        raise PublicationError(f"{target} already exists", code="goalspec.version_exists")
    tmp = target.with_suffix(".tmp")
    tmp.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(target)
    log.info("goals.spec.published", spec=spec.id, version=version, content_hash=content_hash, by=approved_by)
    return published
