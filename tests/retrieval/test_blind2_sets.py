"""The second blind held-out answering sets stay well labelled: they load, their section ids are passages the loader
produces, their facts are written in those passages, each keeps the promised shape (24/6/5/5, 6 to 10 cross-lingual
messages), and their PDFs are the ones their text sources make (tests/retrieval/test_labelled_set_pdfs.py). A change
to ingestion that moves ids or text fails here instead of silently mislabelling them.

Labelling only: this never runs the answerer on them (benchmarks/rag_blind2/README.md: never tune on them).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.rag_blind.check_sets import check_shape
from benchmarks.rag_blind2.check_sets import CROSS_LINGUAL, check_all, check_languages
from benchmarks.rag_heldout.check_sets import check

BLIND2 = Path(__file__).resolve().parents[2] / "benchmarks" / "rag_blind2"
SETS = sorted(BLIND2.glob("*/set.json"))
SOURCES = sorted(BLIND2.glob("*/*.txt"))


def test_there_are_five_sets_two_with_pdf_sources() -> None:
    assert [p.parent.name for p in SETS] == [
        "kids_club",
        "photo_studio",
        "removals_spain",
        "sailing_school",
        "solar_installer",
    ]
    assert [s.parent.name for s in SOURCES] == ["kids_club", "removals_spain"]


@pytest.mark.parametrize("set_path", SETS, ids=lambda p: p.parent.name)
def test_labels_point_at_real_passages_and_written_facts(set_path: Path) -> None:
    assert check(set_path) == []


@pytest.mark.parametrize("set_path", SETS, ids=lambda p: p.parent.name)
def test_each_set_keeps_its_shape_and_languages(set_path: Path) -> None:
    assert check_shape(set_path) == []
    assert check_languages(set_path) == []


def test_the_whole_folder_passes_and_ids_are_unique() -> None:
    assert check_all(BLIND2) == []



def _copy_with(tmp_path: Path, edit: str) -> Path:
    original = SETS[0]
    folder = tmp_path / original.parent.name
    folder.mkdir()
    (folder / "corpus").symlink_to(original.parent / "corpus")
    data = json.loads(original.read_text(encoding="utf-8"))
    crossed = [i for i in data["items"] if "cross_lingual" in i["tags"]]
    if edit == "too_few":
        for item in crossed[CROSS_LINGUAL[0] - 1 :]:
            item["tags"].remove("cross_lingual")
    elif edit == "language":
        data["items"][0]["language"] = "fr"
    (folder / "set.json").write_text(json.dumps(data), encoding="utf-8")
    return folder / "set.json"


def test_language_check_reports_too_few_cross_lingual_messages(tmp_path: Path) -> None:
    problems = check_languages(_copy_with(tmp_path, "too_few"))
    assert any("cross-lingual messages, expected" in p for p in problems)


def test_language_check_reports_a_message_language_the_corpus_does_not_have(tmp_path: Path) -> None:
    problems = check_languages(_copy_with(tmp_path, "language"))
    assert any("message language 'fr'" in p for p in problems)
