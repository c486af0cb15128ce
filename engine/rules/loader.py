"""Loading, validating and publishing the versioned rule bundle under ``rules/``.

A bundle is every JSON rule file under the rules folder (except ``published/`` and ``schemas/``), the schemas
and the manifest ``bundle.json``. Its content hash covers every file. ``grace rules approve`` writes
``published/<version>.json``; loading a published bundle re-hashes every file and refuses any modification.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonschema
import structlog

from engine.errors import GraceError, IntegrityError, PublicationError, RuleBundleError

log = structlog.get_logger("grace.rules")

DEFAULT_RULES_DIR = Path(__file__).resolve().parents[2] / "rules"
DRAFT_ENV = "GRACE_RULES_DRAFT"  # "1": serve an unpublished (draft) bundle; a modified published one never loads
_EXCLUDED_DIRS = ("published", "schemas")


@dataclass(frozen=True)
class Vocabulary:
    id: str
    kind: str
    options: dict[str, dict[str, list[str]]]
    allow_unlisted: bool = False

    def terms(self, option: str) -> list[str]:
        return [term for terms in self.options.get(option, {}).values() for term in terms]


@dataclass(frozen=True)
class RuleBundle:
    """A loaded, schema-valid bundle. ``files`` maps relative path (without .json) to parsed content."""

    root: Path
    version: str
    content_hash: str
    file_hashes: dict[str, str]
    files: dict[str, dict[str, Any]]
    published: dict[str, Any] | None = None
    vocabularies: dict[str, Vocabulary] = field(default_factory=dict)
    # The JSON Schemas the files were validated against ("schemas/x.schema.json" -> document), read in the
    # same pass as the files: users of a schema (spec vocabularies) need not re-read the folder later.
    schemas: dict[str, dict[str, Any]] = field(default_factory=dict)

    def file(self, name: str) -> dict[str, Any]:
        try:
            return self.files[name]
        except KeyError:
            raise RuleBundleError(f"rule file {name}.json is not in the bundle", code="rules.file_missing") from None

    def has(self, name: str) -> bool:
        return name in self.files


def _sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _bundle_paths(root: Path) -> list[Path]:
    paths = []
    for path in sorted(root.rglob("*.json")):
        rel = path.relative_to(root)
        if rel.parts[0] == "published":
            continue
        paths.append(path)
    changelog = root / "CHANGELOG.md"
    if changelog.exists():
        paths.append(changelog)
    return paths


def compute_hashes(root: Path) -> tuple[str, dict[str, str]]:
    """Per-file hashes and the bundle hash (hash of the sorted ``path=hash`` lines)."""
    file_hashes = {p.relative_to(root).as_posix(): _sha256(p.read_bytes()) for p in _bundle_paths(root)}
    listing = "\n".join(f"{k}={v}" for k, v in sorted(file_hashes.items())).encode()
    return _sha256(listing), file_hashes


def _schema_for(rel: str, patterns: dict[str, str]) -> str | None:
    stem = Path(rel).stem
    for pattern, schema in patterns.items():
        if fnmatch.fnmatch(rel, pattern):
            return schema.replace("{stem}", stem)
    return None


def read_json_object(path: Path, *, error: type[GraceError] = RuleBundleError,
                     code: str = "rules.json_invalid") -> dict[str, Any]:
    """The one reader of rule files (and their schemas): a JSON object, or ``error`` with ``code``."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise error(f"{path.name}: not readable JSON ({exc})", code=code) from exc
    if not isinstance(data, dict):
        raise error(f"{path.name}: top level must be an object", code=code)
    return data


_VALIDATORS: dict[str, Any] = {}  # canonical schema text -> a validator whose schema passed its metaschema
_VALIDATORS_LOCK = threading.Lock()
_VALIDATORS_MAX = 512


def _validator(schema: Mapping[str, Any], *, metaschema_checked: bool = False) -> Any:
    """A validator for ``schema``, checked against its metaschema once per process and schema content.

    The metaschema check is most of what validating a bundle costs (41 schemas against Draft 2020-12), and its
    answer depends only on the schema's content: a schema seen before is not checked again, nor is one whose exact
    bytes were checked when the bundle was approved (``metaschema_checked``: a published bundle whose content hash
    matches its publication record). A schema that fails the check raises ``jsonschema.SchemaError`` every time
    (``check_schema`` reports it as ``rules.schema_invalid``).
    """
    key = json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    validator = _VALIDATORS.get(key)
    if validator is None:
        cls = jsonschema.validators.validator_for(schema)
        if not metaschema_checked:
            cls.check_schema(schema)
        validator = cls(schema)
        with _VALIDATORS_LOCK:
            if len(_VALIDATORS) < _VALIDATORS_MAX:
                _VALIDATORS[key] = validator
    return validator


def check_schema(data: Mapping[str, Any], schema: Mapping[str, Any], where: str, *,
                 error: type[GraceError] = RuleBundleError, code: str = "rules.schema_violation",
                 metaschema_checked: bool = False) -> None:
    """``data`` against its JSON Schema; the first violation becomes ``error`` naming ``where`` and the path."""
    try:
        # What jsonschema.validate does (metaschema check, then the best-matching error), with the check cached.
        validator = _validator(schema, metaschema_checked=metaschema_checked)
        violation = jsonschema.exceptions.best_match(validator.iter_errors(data))
        if violation is not None:
            raise violation
    except jsonschema.ValidationError as exc:
        at = "/".join(str(p) for p in exc.absolute_path) or "(top)"
        raise error(f"{where}: at {at}: {exc.message}", code=code) from exc
    except jsonschema.SchemaError as exc:
        raise error(f"{where}: its schema is not a valid JSON Schema: {exc.message}",
                    code="rules.schema_invalid") from exc


def validate_files(
    root: Path, schemas: dict[str, dict[str, Any]] | None = None, *, published_unchanged: bool = False
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """Schema-validate every rule file. Returns (manifest, files by name without extension); ``schemas``, when
    given, receives every schema document used, by its path relative to ``root``. ``published_unchanged`` (the
    content hash equals the publication record's) skips re-checking the schemas against their metaschema, which
    approval did on these exact bytes; every rule file is still validated against its schema."""
    manifest_path = root / "bundle.json"
    if not manifest_path.exists():
        raise RuleBundleError(f"no bundle.json in {root}", code="rules.manifest_missing")
    manifest = read_json_object(manifest_path)
    patterns = manifest.get("schemas")
    if not isinstance(patterns, dict):
        raise RuleBundleError("bundle.json: 'schemas' must map file patterns to schemas", code="rules.manifest_invalid")
    files: dict[str, dict[str, Any]] = {}
    for path in _bundle_paths(root):
        rel = path.relative_to(root).as_posix()
        if path.suffix != ".json" or rel.startswith("schemas/"):
            continue
        data = read_json_object(path)
        schema_rel = _schema_for(rel, patterns)
        if schema_rel is None:
            raise RuleBundleError(f"{rel}: no schema pattern in bundle.json matches this file", code="rules.no_schema")
        schema_path = root / schema_rel
        if not schema_path.exists():
            raise RuleBundleError(f"{rel}: schema {schema_rel} is missing", code="rules.schema_missing")
        for required in ("version", "description"):
            if required not in data:
                raise RuleBundleError(f"{rel}: missing required field '{required}'", code="rules.field_missing")
        schema = read_json_object(schema_path)
        if schemas is not None:
            schemas[schema_rel] = schema
        check_schema(data, schema, rel, metaschema_checked=published_unchanged)
        files[rel[: -len(".json")]] = data
    return manifest, files


def _vocabularies(files: dict[str, dict[str, Any]]) -> dict[str, Vocabulary]:
    vocabularies: dict[str, Vocabulary] = {}
    for name, data in files.items():
        if not name.startswith("vocabularies/"):
            continue
        vocab_id = str(data.get("id", name.split("/", 1)[1]))
        if vocab_id in vocabularies:
            raise RuleBundleError(f"vocabulary id {vocab_id} defined twice", code="rules.vocabulary_duplicate")
        vocabularies[vocab_id] = vocabulary_from_json(vocab_id, data)
    return vocabularies


def vocabulary_from_json(vocab_id: str, data: Mapping[str, Any]) -> Vocabulary:
    """One schema-valid vocabulary document (a bundle file or a goal spec's own, spec/adr/0003)."""
    return Vocabulary(
        id=vocab_id,
        kind=str(data.get("kind", "enumeration")),
        options={str(k): {str(lang): [str(t) for t in terms] for lang, terms in v.items()}
                 for k, v in data.get("options", {}).items()},
        allow_unlisted=bool(data.get("allow_unlisted", False)),
    )


def _publication_record(root: Path) -> dict[str, Any] | None:
    """The publication record of the version ``bundle.json`` names, if there is one (read before validation, so
    that validation knows whether these bytes were approved; a missing or broken manifest is validation's to
    report)."""
    manifest = root / "bundle.json"
    if not manifest.exists():
        return None
    version = read_json_object(manifest).get("version")
    record = root / "published" / f"{version}.json"
    return read_json_object(record) if isinstance(version, str) and record.exists() else None


def load_bundle(root: Path = DEFAULT_RULES_DIR, *, require_published: bool = True) -> RuleBundle:
    """Load and validate a bundle; with ``require_published`` refuse unpublished or modified bundles."""
    root = root.resolve()
    schemas: dict[str, dict[str, Any]] = {}
    content_hash, file_hashes = compute_hashes(root)
    published = _publication_record(root)
    manifest, files = validate_files(
        root, schemas, published_unchanged=published is not None and published.get("content_hash") == content_hash)
    version = str(manifest["version"])
    if published is not None:
        if published.get("content_hash") != content_hash:
            changed = sorted(
                k for k in set(file_hashes) | set(published.get("files", {}))
                if file_hashes.get(k) != published.get("files", {}).get(k)
            )
            raise IntegrityError(
                f"bundle {version} was modified after publication: {', '.join(changed) or 'listing'}",
                code="rules.modified_after_publication",
                changed=changed,
            )
    elif require_published and os.environ.get(DRAFT_ENV) != "1":
        raise PublicationError(f"rule bundle {version} is not published", code="rules.not_published")
    elif require_published:
        # Draft mode is for policy teams iterating locally; every record still carries the draft's content hash.
        log.warning("rules.bundle.draft_in_use", version=version, content_hash=content_hash)
    bundle = RuleBundle(
        root=root,
        version=version,
        content_hash=content_hash,
        file_hashes=file_hashes,
        files=files,
        published=published,
        vocabularies=_vocabularies(files),
        schemas=schemas,
    )
    log.debug("rules.bundle.loaded", version=version, content_hash=content_hash)
    return bundle


def approve_bundle(root: Path, approved_by: str, *, now: datetime | None = None,
                   proofs: list[dict[str, str]] | None = None) -> dict[str, Any]:
    """Publish the bundle's current version as an immutable record; a changed bundle needs a new version.
    ``proofs`` (name, status, description per Z3 property) are kept in the record for compliance readers."""
    if not approved_by.strip():
        raise PublicationError("an approver name is required", code="rules.approver_missing")
    root = root.resolve()
    manifest, _ = validate_files(root)
    content_hash, file_hashes = compute_hashes(root)
    version = str(manifest["version"])
    target = root / "published" / f"{version}.json"
    if target.exists():
        existing = read_json_object(target)
        if existing.get("content_hash") == content_hash:
            return existing
        raise PublicationError(
            f"version {version} is already published with other content: bump bundle.json 'version'",
            code="rules.version_exists",
        )
    record = {
        "version": version,
        "content_hash": content_hash,
        "files": file_hashes,
        "approved_by": approved_by.strip(),
        "approved_at": (now or datetime.now(UTC)).isoformat(),
        **({"proofs": proofs} if proofs is not None else {}),
    }
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".tmp")
    tmp.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(target)
    log.info("rules.bundle.published", version=version, content_hash=content_hash, approved_by=approved_by)
    return record


class BundleHolder:
    """Serves the last good bundle: a failed reload (modified, invalid) keeps the version already in service."""

    def __init__(self, root: Path = DEFAULT_RULES_DIR, loader: Callable[[Path], RuleBundle] | None = None) -> None:
        self._root = root
        self._lock = threading.Lock()
        self._load = loader or load_bundle
        self._bundle = self._load(root)

    @property
    def bundle(self) -> RuleBundle:
        return self._bundle

    def reload(self) -> RuleBundle:
        try:
            fresh = self._load(self._root)
        except (RuleBundleError, IntegrityError, PublicationError) as exc:
            log.warning("rules.bundle.reload_refused", code=exc.code, message=exc.message,
                        serving=self._bundle.version)
            raise
        with self._lock:
            self._bundle = fresh
        return fresh
