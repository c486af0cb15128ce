"""Regenerate the PDF brochures of the labelled company sets from their text sources (no binary without a source).

    .venv/bin/python -m benchmarks.rag_sets.make_pdfs [FOLDER ...]   # <company>/corpus/<name>.pdf; default: here

A source ``<company>/<name>.txt`` becomes ``<company>/corpus/<name>.pdf``. Source lines: ``# `` a title (large
bold), ``## `` a heading (bold), ``---`` a page break, anything else body text, wrapped as a word processor would.
The writer is a minimal PDF 1.4 (standard Helvetica fonts, WinAnsi text): deterministic bytes, no dependency.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
Line = tuple[str, str]  # (style, text): style is "title", "heading" or "body"

_STYLE = {"title": ("F2", 18, 28), "heading": ("F2", 12, 22), "body": ("F1", 10, 14)}
_WRAP = 95  # characters per body line at 10 pt on A4 with 50 pt margins


def _escape(text: str) -> str:
    out: list[str] = []
    for byte in text.encode("cp1252"):
        char = chr(byte)
        if char in "()\\":
            out.append("\\" + char)
        elif 32 <= byte < 127:
            out.append(char)
        else:
            out.append(f"\\{byte:03o}")
    return "".join(out)


def _content(lines: Sequence[Line]) -> bytes:
    y = 800
    ops: list[str] = []
    for style, text in lines:
        font, size, leading = _STYLE[style]
        pieces = textwrap.wrap(text, _WRAP) if style == "body" else [text]
        for index, piece in enumerate(pieces):
            y -= leading if index == 0 else 14
            ops.append(f"BT /{font} {size} Tf 50 {y} Td ({_escape(piece)}) Tj ET")
    return "\n".join(ops).encode("latin-1")


def pdf_bytes(pages: Sequence[Sequence[Line]], title: str = "") -> bytes:
    """A PDF document whose pages hold the given styled lines."""
    objects: list[bytes] = []
    font_ids = (3, 4)
    page_ids = [5 + 2 * i for i in range(len(pages))]
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    kids = " ".join(f"{pid} 0 R" for pid in page_ids)
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    for base in ("Helvetica", "Helvetica-Bold"):
        objects.append(f"<< /Type /Font /Subtype /Type1 /BaseFont /{base} /Encoding /WinAnsiEncoding >>".encode())
    for pid, lines in zip(page_ids, pages, strict=True):
        fonts = f"/F1 {font_ids[0]} 0 R /F2 {font_ids[1]} 0 R"
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << {fonts} >> >> "
            f"/Contents {pid + 1} 0 R >>".encode()
        )
        stream = _content(lines)
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    info_id = len(objects) + 1
    objects.append(f"<< /Title ({_escape(title)}) >>".encode())
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets: list[int] = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info {info_id} 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return bytes(out)


def parse_source(text: str) -> tuple[str, list[list[Line]]]:
    """(document title, pages of styled lines) from the source format described above."""
    pages: list[list[Line]] = [[]]
    title = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line == "---":
            pages.append([])
        elif line.startswith("## "):
            pages[-1].append(("heading", line[3:].strip()))
        elif line.startswith("# "):
            title = title or line[2:].strip()
            pages[-1].append(("title", line[2:].strip()))
        else:
            pages[-1].append(("body", line))
    return title, [page for page in pages if page]


def regenerate(folder: Path) -> list[Path]:
    """Write every ``<company>/corpus/<name>.pdf`` of ``folder`` from its ``<company>/<name>.txt`` source (the
    labelled sets, the former held-out sets and the blind sets all keep their PDFs this way)."""
    written: list[Path] = []
    for source in sorted(folder.glob("*/*.txt")):
        title, pages = parse_source(source.read_text(encoding="utf-8"))
        target = source.parent / "corpus" / f"{source.stem}.pdf"
        target.write_bytes(pdf_bytes(pages, title))
        written.append(target)
        print(f"wrote {target.relative_to(folder)} ({len(pages)} pages)")
    return written


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.rag_sets.make_pdfs [FOLDER ...]``: every labelled-set folder given (default: this one)."""
    folders = [Path(a) for a in (sys.argv[1:] if argv is None else argv)] or [HERE]
    for folder in folders:
        regenerate(folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
