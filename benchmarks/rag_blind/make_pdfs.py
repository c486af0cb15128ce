"""Regenerate the PDF documents of the blind held-out company sets from their text sources.

    .venv/bin/python -m benchmarks.rag_blind.make_pdfs      # rewrites <company>/corpus/<name>.pdf

A source ``<company>/<name>.txt`` becomes ``<company>/corpus/<name>.pdf``, in the same source format and with the
same minimal, deterministic PDF writer as the other labelled sets (benchmarks/rag_sets/make_pdfs.py).
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.rag_sets.make_pdfs import parse_source, pdf_bytes

HERE = Path(__file__).resolve().parent


def regenerate(folder: Path) -> list[Path]:
    """Write every ``<company>/corpus/<name>.pdf`` of ``folder`` from its ``<company>/<name>.txt`` source."""
    written: list[Path] = []
    for source in sorted(folder.glob("*/*.txt")):
        title, pages = parse_source(source.read_text(encoding="utf-8"))
        target = source.parent / "corpus" / f"{source.stem}.pdf"
        target.write_bytes(pdf_bytes(pages, title))
        written.append(target)
        print(f"wrote {target.relative_to(folder)} ({len(pages)} pages)")
    return written


def main() -> int:
    regenerate(HERE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
