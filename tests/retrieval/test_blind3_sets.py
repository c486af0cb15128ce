"""The third blind held-out answering sets stay well labelled: they load, their section ids are passages the loader
produces, their facts are written in those passages, each keeps the promised shape (24/6/5/5, 6 to 10 cross-lingual
messages, tags that match the message and the cited passages' language), and their PDFs are the ones their text
sources make (tests/retrieval/test_labelled_set_pdfs.py). A change to ingestion that moves ids or text fails here
instead of silently mislabelling them.

Labelling only: this never runs the answerer on them (benchmarks/rag_blind3/README.md: run once, by the lead).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.rag_blind.check_sets import check_shape
from benchmarks.rag_blind2.check_sets import check_languages
from benchmarks.rag_blind3.check_sets import check_all, check_tags
from benchmarks.rag_heldout.check_sets import check

BLIND3 = Path(__file__).resolve().parents[2] / "benchmarks" / "rag_blind3"
SETS = sorted(BLIND3.glob("*/set.json"))
SOURCES = sorted(BLIND3.glob("*/*.txt"))


def test_there_are_five_sets_three_with_pdf_sources() -> None:
    assert [p.parent.name for p in SETS] == [
        "dog_daycare",
        "escape_room",
        "laundry",
        "optician",
        "student_residence",
    ]
    assert [s.parent.name for s in SOURCES] == ["laundry", "optician", "student_residence"]


@pytest.mark.parametrize("set_path", SETS, ids=lambda p: p.parent.name)
def test_labels_point_at_real_passages_and_written_facts(set_path: Path) -> None:
    assert check(set_path) == []


@pytest.mark.parametrize("set_path", SETS, ids=lambda p: p.parent.name)
def test_each_set_keeps_its_shape_languages_and_tags(set_path: Path) -> None:
    assert check_shape(set_path) == []
    assert check_languages(set_path) == []
    assert check_tags(set_path) == []


def test_the_whole_folder_passes_and_ids_are_unique() -> None:
    assert check_all(BLIND3) == []



def _copy_with(tmp_path: Path, edit: str) -> Path:
    original = next(p for p in SETS if p.parent.name == "optician")
    folder = tmp_path / original.parent.name
    folder.mkdir()
    (folder / "corpus").symlink_to(original.parent / "corpus")
    data = json.loads(original.read_text(encoding="utf-8"))
    first_answerable = next(i for i in data["items"] if i["kind"] == "answerable")
    if edit == "fact":
        first_answerable["facts"] = ["a fact no passage writes"]
    elif edit == "cross_lingual":
        first_answerable["tags"].append("cross_lingual")
    elif edit == "question_mark":
        first_answerable["message"] = first_answerable["message"] + "?"
    (folder / "set.json").write_text(json.dumps(data), encoding="utf-8")
    return folder / "set.json"


def test_the_check_reports_a_fact_the_passage_does_not_write(tmp_path: Path) -> None:
    problems = check(_copy_with(tmp_path, "fact"))
    assert any("not written in" in p for p in problems)


def test_the_tag_check_reports_a_wrong_cross_lingual_tag(tmp_path: Path) -> None:
    problems = check_tags(_copy_with(tmp_path, "cross_lingual"))
    assert any("cross_lingual tag set" in p for p in problems)


def test_the_tag_check_reports_a_stale_no_question_mark_tag(tmp_path: Path) -> None:
    problems = check_tags(_copy_with(tmp_path, "question_mark"))
    assert any("no_question_mark tag wrong" in p for p in problems)
