"""Markdown / plain-text FAQ files → passages, one per heading section or Q&A pair.

Front matter (optional, between ``---`` lines at the top) may set ``language`` and ``title``. Code fences are
kept as body text (a ``#`` inside a fence is not a heading).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engine.retrieval.errors import CorpusError
from engine.text import fold, normalize

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
# Plain-text Q&A layouts ("Q: ...", "Pregunta: ...") start a passage; answer prefixes are dropped.
_QUESTION_LINE = re.compile(r"^\s*(?:\*\*)?(?:q|p|question|pregunta)\s*:(?:\*\*)?\s*(.+)$", re.IGNORECASE)
_ANSWER_PREFIX = re.compile(r"^\s*(?:\*\*)?(?:a|r|answer|respuesta)\s*:(?:\*\*)?\s*", re.IGNORECASE)
_FRONT_MATTER_KEYS = ("language", "title")


@dataclass
class Section:
    title: str
    path: list[str]
    lines: list[str] = field(default_factory=list)

    def body(self) -> str:
        return "\n".join(self.lines).strip()


@dataclass
class ParsedDocument:
    meta: dict[str, str]
    sections: list[Section]


def slugify(text: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", fold(text)).strip("-")
    return slug or "section"


def _front_matter(lines: list[str], source: str) -> tuple[dict[str, str], list[str]]:
    if not lines or lines[0].strip() != "---":
        return {}, lines
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            meta: dict[str, str] = {}
            for raw in lines[1:end]:
                if not raw.strip():
                    continue
                key, sep, value = raw.partition(":")
                key = key.strip().lower()
                if not sep or key not in _FRONT_MATTER_KEYS:
                    raise CorpusError(
                        f"{source}: front matter line {raw.strip()!r} is not one of {', '.join(_FRONT_MATTER_KEYS)}",
                        code="retrieval.corpus.front_matter",
                    )
                meta[key] = value.strip()
            return meta, lines[end + 1 :]
    raise CorpusError(f"{source}: front matter is not closed by '---'", code="retrieval.corpus.front_matter")


def parse_markdown(text: str, source: str, default_title: str) -> ParsedDocument:
    lines = normalize(text).splitlines()
    meta, body = _front_matter(lines, source)
    stack: list[str] = []
    current = Section(title=meta.get("title", default_title), path=[])
    sections = [current]
    in_fence = False
    for line in body:
        if _FENCE.match(line):
            in_fence = not in_fence
            current.lines.append(line)
            continue
        heading = None if in_fence else _HEADING.match(line)
        question = None if in_fence or heading else _QUESTION_LINE.match(line)
        if heading:
            level = len(heading.group(1))
            title = heading.group(2).strip()
            stack = [*stack[: level - 1], title]
            current = Section(title=title, path=list(stack))
            sections.append(current)
        elif question:
            title = question.group(1).strip()
            current = Section(title=title, path=[*stack, title])
            sections.append(current)
        else:
            current.lines.append(_ANSWER_PREFIX.sub("", line, count=1))
    if in_fence:
        raise CorpusError(f"{source}: unterminated code fence", code="retrieval.corpus.markdown")
    return ParsedDocument(meta=meta, sections=[s for s in sections if s.body()])
