"""The held-out answering sets stay well labelled: they load, their section ids are passages the loader produces, their
facts are written in those passages, and their PDFs are the ones their text sources make
(tests/retrieval/test_labelled_set_pdfs.py).

Labelling only: this never runs the answerer on them (benchmarks/rag_heldout/README.md: never tune on them).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.rag_heldout.check_sets import check

HELDOUT = Path(__file__).resolve().parents[2] / "benchmarks" / "rag_heldout"
SETS = sorted(HELDOUT.glob("*/set.json"))
SOURCES = sorted(HELDOUT.glob("*/*.txt"))


def test_there_are_held_out_sets() -> None:
    assert len(SETS) >= 4
    assert SOURCES


@pytest.mark.parametrize("set_path", SETS, ids=lambda p: p.parent.name)
def test_labels_point_at_real_passages_and_written_facts(set_path: Path) -> None:
    assert check(set_path) == []



def test_check_reports_a_wrong_section_id_and_a_missing_fact(tmp_path: Path) -> None:
    original = SETS[0]
    text = original.read_text(encoding="utf-8")
    broken = tmp_path / "set.json"
    (tmp_path / "corpus").symlink_to(original.parent / "corpus")
    data = json.loads(text)
    first = next(i for i in data["items"] if i["kind"] == "answerable")
    first["relevant"] = [*first["relevant"], "nowhere.md#nothing"]
    first["facts"] = [*first["facts"], "a fact no document states 12345"]
    broken.write_text(json.dumps(data), encoding="utf-8")
    problems = check(broken)
    assert any("no passage nowhere.md#nothing" in p for p in problems)
    assert any("a fact no document states 12345" in p for p in problems)
