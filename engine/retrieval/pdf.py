"""PDF brochures → sections, from their heading lines (pypdf text extraction, page by page).

A heading is a short line set in bold or in a larger type than the body text. When a PDF uses one style
throughout, short title-like lines between sentences count as headings (no final punctuation, capitalised,
followed by text). Lines a word processor wrapped are joined back into sentences; sections continue across
page breaks and remember the page they start on.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pypdf
from pypdf.errors import PyPdfError

from engine.retrieval.errors import CorpusError
from engine.text import normalize

_BOLD = re.compile(r"bold|black|heavy|semibold|demi", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?:;…]$")
_SPACES = re.compile(r"[ \t]+")
_MAX_HEADING_WORDS = 12
_MAX_PLAIN_HEADING_WORDS = 8
_LARGER = 1.15  # a run this much larger than the body size is display type


@dataclass
class PdfSection:
    title: str
    page: int
    lines: list[str] = field(default_factory=list)

    def body(self) -> str:
        return "\n".join(self.lines).strip()


@dataclass
class PdfDocument:
    title: str
    sections: list[PdfSection]


def _clean(text: str) -> str:
    return _SPACES.sub(" ", normalize(text)).strip()


def _page_lines(page: pypdf.PageObject) -> tuple[list[str], list[tuple[str, float, bool]]]:
    runs: list[tuple[str, float, bool]] = []

    def visit(text: str, cm: Any, tm: Any, font: Any, size: Any) -> None:
        cleaned = _clean(text)
        if not cleaned:
            return
        name = str(font.get("/BaseFont", "")) if isinstance(font, dict) else ""
        scale = abs(float(tm[3])) if tm else 1.0
        runs.append((cleaned, float(size or 0) * (scale or 1.0), bool(_BOLD.search(name))))

    text = page.extract_text(visitor_text=visit) or ""
    return [_clean(line) for line in text.splitlines() if _clean(line)], runs


def _looks_like_plain_heading(line: str, previous: str | None, has_next: bool) -> bool:
    words = line.split()
    return (
        has_next
        and 0 < len(words) <= _MAX_PLAIN_HEADING_WORDS
        and not _SENTENCE_END.search(line)
        and not line.endswith(",")
        and "@" not in line
        and (line[0].isupper() or line[0].isdigit())
        and (previous is None or bool(_SENTENCE_END.search(previous)))
    )


def parse_pdf(data: bytes, source: str, default_title: str) -> PdfDocument:
    try:
        reader = pypdf.PdfReader(io.BytesIO(data))
        pages = [_page_lines(page) for page in reader.pages]
        meta_title = _clean(str(reader.metadata.title)) if reader.metadata and reader.metadata.title else ""
    except (PyPdfError, ValueError, KeyError, TypeError, OSError) as exc:
        raise CorpusError(
            f"{source}: not a readable PDF ({exc.__class__.__name__})", code="retrieval.corpus.pdf"
        ) from None
    sizes: Counter[float] = Counter()
    for _, runs in pages:
        for text, size, bold in runs:
            if not bold:
                sizes[round(size, 1)] += len(text)
    body_size = sizes.most_common(1)[0][0] if sizes else 0.0
    styled = {text for _, runs in pages for text, size, bold in runs if bold or size > body_size * _LARGER}
    plain_layout = not styled
    first_title = ""
    sections: list[PdfSection] = []
    current = PdfSection(title=meta_title or default_title, page=1)
    sections.append(current)
    previous: str | None = None
    for number, (lines, _) in enumerate(pages, start=1):
        for index, line in enumerate(lines):
            has_next = index + 1 < len(lines) or number < len(pages)
            if plain_layout:
                is_heading = _looks_like_plain_heading(line, previous, has_next)
            else:
                is_heading = line in styled and len(line.split()) <= _MAX_HEADING_WORDS
            if is_heading:
                first_title = first_title or line
                current = PdfSection(title=line, page=number)
                sections.append(current)
                previous = None
                continue
            if current.lines and previous is not None and not _SENTENCE_END.search(current.lines[-1]):
                current.lines[-1] = f"{current.lines[-1]} {line}"  # a wrapped line continues its sentence
            else:
                current.lines.append(line)
            previous = line
    title = meta_title or first_title or default_title
    if sections and sections[0].title == (meta_title or default_title) and not meta_title:
        sections[0].title = title
    return PdfDocument(title=title, sections=[s for s in sections if s.body()])
