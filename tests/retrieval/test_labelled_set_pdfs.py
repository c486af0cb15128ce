"""Every committed PDF of a labelled-set company (benchmarks/rag_*/<company>/corpus/*.pdf) is the one its text
source beside the set makes (``python -m benchmarks.rag_sets.make_pdfs FOLDER``): a change to the generator or a
hand-edited PDF fails here, for every folder at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.rag_sets.make_pdfs import parse_source, pdf_bytes

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
SOURCES = sorted(BENCHMARKS.glob("rag_*/*/*.txt"))


def test_every_labelled_set_folder_with_pdfs_is_covered() -> None:
    assert {s.parents[1].name for s in SOURCES} == {"rag_sets", "rag_heldout", "rag_blind", "rag_blind2", "rag_blind3"}


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: f"{p.parents[1].name}/{p.parent.name}/{p.name}")
def test_committed_pdf_is_regenerated_from_its_source(source: Path) -> None:
    title, pages = parse_source(source.read_text(encoding="utf-8"))
    assert (source.parent / "corpus" / f"{source.stem}.pdf").read_bytes() == pdf_bytes(pages, title)
