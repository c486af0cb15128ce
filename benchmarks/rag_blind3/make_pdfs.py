"""Regenerate the PDF documents of the third blind held-out company sets from their text sources.

    .venv/bin/python -m benchmarks.rag_blind3.make_pdfs      # rewrites <company>/corpus/<name>.pdf

A source ``<company>/<name>.txt`` becomes ``<company>/corpus/<name>.pdf``, in the same source format and with the
same minimal, deterministic PDF writer as the other labelled sets (benchmarks/rag_sets/make_pdfs.py).
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.rag_sets.make_pdfs import regenerate

HERE = Path(__file__).resolve().parent


def main() -> int:
    regenerate(HERE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
