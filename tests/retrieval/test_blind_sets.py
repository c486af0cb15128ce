"""The blind held-out answering sets stay well labelled: they load, their section ids are passages the loader produces,
their facts are written in those passages, each keeps the promised shape, and their PDFs are the ones their text
sources make (tests/retrieval/test_labelled_set_pdfs.py). A change to ingestion that moves ids or text fails here
instead of mislabelling them.

Labelling only: this never runs the answerer on them (benchmarks/rag_blind/README.md: never tune on them).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmarks.rag_blind.check_sets import SHAPE, check_folder, check_shape
from benchmarks.rag_heldout.check_sets import check
from benchmarks.rag_sets.make_pdfs import regenerate

BLIND = Path(__file__).resolve().parents[2] / "benchmarks" / "rag_blind"
SETS = sorted(BLIND.glob("*/set.json"))
SOURCES = sorted(BLIND.glob("*/*.txt"))


def test_there_are_five_blind_sets_with_pdf_sources() -> None:
    assert [p.parent.name for p in SETS] == [
        "b2b_software",
        "car_workshop",
        "dental_clinic",
        "language_school",
        "wedding_venue",
    ]
    assert len(SOURCES) == 3


@pytest.mark.parametrize("set_path", SETS, ids=lambda p: p.parent.name)
def test_labels_point_at_real_passages_and_written_facts(set_path: Path) -> None:
    assert check(set_path) == []


@pytest.mark.parametrize("set_path", SETS, ids=lambda p: p.parent.name)
def test_each_set_keeps_its_shape(set_path: Path) -> None:
    assert check_shape(set_path) == []


def test_item_ids_are_unique_across_the_folder() -> None:
    assert check_folder(BLIND) == []



def test_regenerating_into_a_copy_gives_the_same_bytes(tmp_path: Path) -> None:
    company = SOURCES[0].parent
    copy = tmp_path / company.name
    shutil.copytree(company, copy)
    for pdf in (copy / "corpus").glob("*.pdf"):
        pdf.unlink()
    written = regenerate(tmp_path)
    assert written
    for target in written:
        assert target.read_bytes() == (company / "corpus" / target.name).read_bytes()


def _broken_copy(tmp_path: Path, edit: str) -> Path:
    original = SETS[0]
    folder = tmp_path / original.parent.name
    folder.mkdir()
    (folder / "corpus").symlink_to(original.parent / "corpus")
    data = json.loads(original.read_text(encoding="utf-8"))
    answerable = next(i for i in data["items"] if i["kind"] == "answerable")
    near_miss = next(i for i in data["items"] if i["kind"] == "near_miss")
    if edit == "labels":
        answerable["relevant"] = [*answerable["relevant"], "nowhere.md#nothing"]
        answerable["facts"] = [*answerable["facts"], "a fact no document states 12345"]
    elif edit == "shape":
        data["items"].remove(answerable)
        near_miss["near"] = []
        near_miss["tags"] = [*near_miss["tags"], "sarcastic"]
    (folder / "set.json").write_text(json.dumps(data), encoding="utf-8")
    return folder / "set.json"


def test_check_reports_a_wrong_section_id_and_a_missing_fact(tmp_path: Path) -> None:
    problems = check(_broken_copy(tmp_path, "labels"))
    assert any("no passage nowhere.md#nothing" in p for p in problems)
    assert any("a fact no document states 12345" in p for p in problems)


def test_shape_check_reports_a_missing_item_an_empty_near_list_and_an_unknown_tag(tmp_path: Path) -> None:
    problems = check_shape(_broken_copy(tmp_path, "shape"))
    assert any(f"expected {SHAPE}" in p for p in problems)
    assert any("a near miss without near sections" in p for p in problems)
    assert any("unknown tag 'sarcastic'" in p for p in problems)


def test_folder_check_reports_an_id_used_twice(tmp_path: Path) -> None:
    for name in ("one", "two"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "corpus").symlink_to(SETS[0].parent / "corpus")
        shutil.copy(SETS[0], folder / "set.json")
    problems = check_folder(tmp_path)
    assert any("is used 2 times" in p for p in problems)
