"""HTML pages (a company's website) → sections, one per h1–h3 heading.

Page chrome is not company content: navigation, scripts, styles, forms, asides and footers are dropped before
the text is read. Block elements (paragraphs, list items, table cells …) become lines; inline markup inside a
block stays inside its line. Text before the first heading forms a section titled with the page title.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from selectolax.lexbor import LexborHTMLParser, LexborNode

from engine.text import normalize

_DROP = frozenset(
    {
        "script",
        "style",
        "noscript",
        "nav",
        "footer",
        "aside",
        "form",
        "template",
        "svg",
        "iframe",
        "button",
        "select",
        "input",
        "textarea",
        "head",
        "-comment",
    }
)
_SECTION_HEADINGS = frozenset({"h1", "h2", "h3"})
_BLOCKS = frozenset(
    {
        "p",
        "li",
        "pre",
        "blockquote",
        "td",
        "th",
        "dd",
        "dt",
        "h4",
        "h5",
        "h6",
        "figcaption",
        "address",
        "caption",
        "summary",
    }
)
_CONTAINERS = frozenset(
    {
        "html",
        "body",
        "main",
        "article",
        "section",
        "div",
        "header",
        "ul",
        "ol",
        "dl",
        "table",
        "thead",
        "tbody",
        "tfoot",
        "tr",
        "figure",
        "details",
        "center",
        "hgroup",
    }
)
_SPACES = re.compile(r"\s+")
_BEFORE_PUNCT = re.compile(r"\s+([.,;:!?])")
_LANG = re.compile(r"^([a-z]{2})(?:[-_].*)?$", re.IGNORECASE)


@dataclass
class HtmlSection:
    title: str
    level: int  # 0 for text before the first heading
    path: list[str]
    lines: list[str] = field(default_factory=list)

    def body(self) -> str:
        return "\n".join(self.lines).strip()


@dataclass
class HtmlDocument:
    title: str  # <title>, else the first h1, else the caller's default
    language: str | None  # <html lang="..."> when it is a two-letter code
    sections: list[HtmlSection]


def _text(node: LexborNode) -> str:
    return _clean(node.text(deep=True, separator=" "))


def _clean(text: str) -> str:
    """Collapsed spaces; no space before punctuation (inline markup is joined with spaces)."""
    return _BEFORE_PUNCT.sub(r"\1", _SPACES.sub(" ", normalize(text))).strip()


class _Walker:
    def __init__(self, page_title: str) -> None:
        self.current = HtmlSection(title=page_title, level=0, path=[])
        self.sections = [self.current]
        self.stack: list[tuple[int, str]] = []
        self.inline: list[str] = []

    def flush_inline(self) -> None:
        line = _clean(" ".join(self.inline))
        self.inline = []
        if line:
            self.current.lines.append(line)

    def heading(self, level: int, title: str) -> None:
        self.flush_inline()
        self.stack = [(lvl, t) for lvl, t in self.stack if lvl < level] + [(level, title)]
        self.current = HtmlSection(title=title, level=level, path=[t for _, t in self.stack])
        self.sections.append(self.current)

    def walk(self, node: LexborNode) -> None:
        for child in node.iter(include_text=True):
            tag = child.tag
            if tag in _DROP:
                continue
            if tag == "-text":
                self.inline.append(child.text(deep=False))
            elif tag in _SECTION_HEADINGS:
                title = _text(child)
                if title:
                    self.heading(int(tag[1]), title)
            elif tag in _BLOCKS:
                self.flush_inline()
                text = _text(child)
                if text:
                    self.current.lines.append(f"- {text}" if tag == "li" else text)
            elif tag in _CONTAINERS:
                self.flush_inline()
                self.walk(child)
                self.flush_inline()
            elif tag == "br":
                self.flush_inline()
            else:  # inline markup (a, span, strong, em …) continues the current line
                self.inline.append(child.text(deep=True, separator=" "))


def parse_html(text: str, default_title: str) -> HtmlDocument:
    tree = LexborHTMLParser(text)
    title_node = tree.css_first("title")
    first_h1 = tree.css_first("h1")
    page_title = (
        (_text(title_node) if title_node is not None else "")
        or (_text(first_h1) if first_h1 is not None else "")
        or default_title
    )
    lang_attr = (tree.root.attributes.get("lang") or "") if tree.root is not None else ""
    match = _LANG.match(lang_attr)
    walker = _Walker(page_title)
    if tree.body is not None:
        walker.walk(tree.body)
        walker.flush_inline()
    sections = [s for s in walker.sections if s.body()]
    return HtmlDocument(title=page_title, language=match.group(1).lower() if match else None, sections=sections)
