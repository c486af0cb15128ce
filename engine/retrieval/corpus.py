"""A company corpus folder → an ordered, hashed list of passages.

Layout: ``corpus.json`` (manifest) beside Markdown/text FAQ files, HTML pages, PDF brochures and the CSV/JSON
record files the manifest declares. Anything unreadable fails the whole load (nothing half-indexed); files of
other types are skipped with a warning.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import structlog
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.errors import first_validation_error
from engine.retrieval.errors import CorpusError
from engine.retrieval.html import parse_html
from engine.retrieval.markdown import parse_markdown, slugify
from engine.retrieval.models import FieldValue, Passage
from engine.retrieval.pdf import parse_pdf
from engine.retrieval.records import RecordFileConfig, parse_records

log = structlog.get_logger("grace.retrieval")

MANIFEST = "corpus.json"
INGEST_FORMAT = "grace-corpus/2"  # bump when ingestion changes passage text or ids (invalidates caches)
_TEXT_SUFFIXES = (".md", ".markdown", ".txt")
_HTML_SUFFIXES = (".html", ".htm")
_PDF_SUFFIXES = (".pdf",)
_LABEL_SEPARATOR = " › "
_RECORD_SUFFIXES = (".json", ".csv")


class CorpusManifest(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: str = Field(min_length=1)
    description: str = Field(min_length=1)
    company: str = Field(min_length=1)
    default_language: str = Field(min_length=2)
    records: dict[str, RecordFileConfig] = Field(default_factory=dict)


@dataclass(frozen=True)
class Corpus:
    root: Path
    manifest: CorpusManifest
    passages: tuple[Passage, ...]
    content_hash: str

    def by_id(self) -> dict[str, Passage]:
        return {p.id: p for p in self.passages}


def _read(path: Path, rel: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CorpusError(
            f"{rel}: cannot read as UTF-8 ({exc.__class__.__name__})", code="retrieval.corpus.read"
        ) from None


def implicit_manifest(company: str, language: str) -> CorpusManifest:
    """The manifest of a plain folder of documents (what ``grace compile --corpus`` reads): the company and the
    language come from the goal spec; record files (CSV/JSON) need a real ``corpus.json`` declaring them."""
    return CorpusManifest(version="0", description=f"plain folder without {MANIFEST}", company=company,
                          default_language=language)


def _load_manifest(root: Path, default: CorpusManifest | None = None) -> CorpusManifest:
    path = root / MANIFEST
    if not path.is_file():
        if default is not None:
            return default
        raise CorpusError(
            f"{root}: no {MANIFEST} manifest (a JSON object with version, description, company, default_language and "
            f"optional records; see README 'Add your company')", code="retrieval.corpus.manifest")
    try:
        return CorpusManifest.model_validate_json(_read(path, MANIFEST))
    except ValidationError as exc:
        where, message = first_validation_error(exc, ".", "(root)")
        raise CorpusError(f"{MANIFEST}: {where}: {message}", code="retrieval.corpus.manifest") from None


def _label(document_title: str, path: list[str]) -> str:
    """The document title, then the headings down to the section ("Services and prices › Vaccinations")."""
    parts: list[str] = []
    for part in [document_title, *path]:
        if part and (not parts or part != parts[-1]):
            parts.append(part)
    return _LABEL_SEPARATOR.join(parts)


class _SectionSink:
    """Passages of one document: unique slug ids, labels and fields."""

    def __init__(self, rel: str, language: str) -> None:
        self.rel = rel
        self.language = language
        self.used: dict[str, int] = {}
        self.passages: list[Passage] = []

    def add(self, title: str, body: str, label: str, fields: dict[str, FieldValue]) -> None:
        slug = slugify(title)
        self.used[slug] = self.used.get(slug, 0) + 1
        if self.used[slug] > 1:
            slug = f"{slug}-{self.used[slug]}"
        self.passages.append(
            Passage(
                id=f"{self.rel}#{slug}",
                source=self.rel,
                title=title,
                text=body,
                language=self.language,
                kind="section",
                label=label,
                fields=fields,
            )
        )


def _pretty_stem(path: Path) -> str:
    return path.stem.split(".")[0].replace("-", " ").replace("_", " ")


def _markdown_passages(path: Path, rel: str, default_language: str) -> list[Passage]:
    doc = parse_markdown(_read(path, rel), rel, default_title=_pretty_stem(path))
    sink = _SectionSink(rel, doc.meta.get("language", default_language))
    document_title = doc.meta.get("title") or next((s.path[0] for s in doc.sections if s.path), _pretty_stem(path))
    for section in doc.sections:
        sink.add(
            section.title,
            section.body(),
            _label(document_title, section.path or [section.title]),
            {"section_path": " > ".join(section.path)} if section.path else {},
        )
    return sink.passages


def _html_passages(path: Path, rel: str, default_language: str) -> list[Passage]:
    doc = parse_html(_read(path, rel), default_title=_pretty_stem(path))
    sink = _SectionSink(rel, doc.language or default_language)
    for section in doc.sections:
        fields: dict[str, FieldValue] = {"section_path": " > ".join(section.path)} if section.path else {}
        sink.add(
            section.title,
            section.body(),
            _label(doc.title, section.path[1:] or section.path or [section.title]),
            fields,
        )
    return sink.passages


def _pdf_passages(path: Path, rel: str, default_language: str) -> list[Passage]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CorpusError(f"{rel}: cannot read ({exc.__class__.__name__})", code="retrieval.corpus.read") from None
    doc = parse_pdf(data, rel, default_title=_pretty_stem(path))
    sink = _SectionSink(rel, default_language)
    for section in doc.sections:
        sink.add(section.title, section.body(), _label(doc.title, [section.title]), {"page": section.page})
    return sink.passages


def content_hash(passages: tuple[Passage, ...]) -> str:
    digest = hashlib.sha256(INGEST_FORMAT.encode())
    for passage in passages:
        digest.update(json.dumps(passage.model_dump(mode="json"), sort_keys=True, ensure_ascii=False).encode())
        digest.update(b"\x00")
    return "sha256:" + digest.hexdigest()


def load_corpus(root: Path, default_manifest: CorpusManifest | None = None) -> Corpus:
    """Ingest every file of the corpus folder; passage order is by relative path, then document order.
    ``default_manifest``: used when the folder has no ``corpus.json`` (a plain folder of documents)."""
    root = Path(root)
    if not root.is_dir():
        raise CorpusError(f"corpus folder not found: {root}", code="retrieval.corpus.missing")
    manifest = _load_manifest(root, default_manifest)
    for declared in manifest.records:
        if not (root / declared).is_file():
            raise CorpusError(
                f"{MANIFEST}: declared record file {declared} is missing", code="retrieval.corpus.manifest"
            )
    passages: list[Passage] = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root).as_posix()
        if rel == MANIFEST or any(part.startswith(".") for part in path.relative_to(root).parts):
            continue
        suffix = path.suffix.lower()
        if rel in manifest.records:
            passages.extend(parse_records(_read(path, rel), rel, manifest.records[rel], manifest.default_language))
        elif suffix in _TEXT_SUFFIXES:
            passages.extend(_markdown_passages(path, rel, manifest.default_language))
        elif suffix in _HTML_SUFFIXES:
            passages.extend(_html_passages(path, rel, manifest.default_language))
        elif suffix in _PDF_SUFFIXES:
            passages.extend(_pdf_passages(path, rel, manifest.default_language))
        elif suffix in _RECORD_SUFFIXES and manifest is default_manifest:
            # A plain folder declares no record fields: its CSV/JSON files cannot be read as records.
            log.warning("retrieval.corpus.record_skipped", path=rel, reason=f"no {MANIFEST} declares it")
        elif suffix in _RECORD_SUFFIXES:
            raise CorpusError(f"{rel}: record file not declared in {MANIFEST}", code="retrieval.corpus.undeclared")
        else:
            log.warning("retrieval.corpus.file_skipped", path=rel)
    ids = [p.id for p in passages]
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise CorpusError(f"duplicate passage id {dup}", code="retrieval.corpus.duplicate_id")
    if not passages:
        raise CorpusError(f"{root}: corpus has no passages", code="retrieval.corpus.empty")
    frozen = tuple(passages)
    corpus = Corpus(root=root, manifest=manifest, passages=frozen, content_hash=content_hash(frozen))
    log.info("retrieval.corpus.loaded", root=str(root), passages=len(frozen), hash=corpus.content_hash)
    return corpus
