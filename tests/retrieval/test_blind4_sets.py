"""The fourth blind answering sets stay well labelled: they load, their section ids are passages the loader produces,
their facts are written in those passages, and each keeps what the sets promise (benchmarks/rag_blind4/README.md:
at least 30 items with every kind, long messages of 1,500 to 4,000 characters, multi-part items described in their
sidecar, tags that match the message and the cited passages' language). A change to ingestion that moves ids or
text fails here instead of silently mislabelling them.

Labelling only: this never runs the answerer on them (they are run once, by the lead).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.rag_blind4.check_sets import check, check_all

BLIND4 = Path(__file__).resolve().parents[2] / "benchmarks" / "rag_blind4"
SETS = sorted(BLIND4.glob("*/set.json"))


def test_there_are_five_sets() -> None:
    assert [p.parent.name for p in SETS] == [
        "bouldering_gym",
        "florist",
        "phone_repair",
        "pottery_studio",
        "ski_school",
    ]


@pytest.mark.parametrize("set_path", SETS, ids=lambda p: p.parent.name)
def test_each_set_is_well_labelled(set_path: Path) -> None:
    problems, _ = check(set_path)
    assert problems == []


def test_the_whole_folder_passes_with_unique_ids_and_both_languages() -> None:
    assert check_all(BLIND4) == []


def _copy_with(tmp_path: Path, edit: str) -> Path:
    original = next(p for p in SETS if p.parent.name == "florist")
    folder = tmp_path / original.parent.name
    folder.mkdir()
    (folder / "corpus").symlink_to(original.parent / "corpus")
    data = json.loads(original.read_text(encoding="utf-8"))
    sidecar = json.loads((original.parent / "multi_part.json").read_text(encoding="utf-8"))
    answerable = next(
        i for i in data["items"] if i["kind"] == "answerable" and not set(i["tags"]) & {"multi_part", "long_message"}
    )
    if edit == "fact":
        answerable["facts"] = ["un dato que ningún pasaje escribe"]
    elif edit == "cross_lingual":
        answerable["tags"].append("cross_lingual")
    elif edit == "long_message":
        answerable["tags"].append("long_message")
    elif edit == "multi_part":
        sidecar["items"].pop(next(iter(sidecar["items"])))
    (folder / "set.json").write_text(json.dumps(data), encoding="utf-8")
    (folder / "multi_part.json").write_text(json.dumps(sidecar), encoding="utf-8")
    return folder / "set.json"


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        ("fact", "not written in"),
        ("cross_lingual", "cross_lingual tag set"),
        ("long_message", "long_message tag wrong"),
        ("multi_part", "not described in multi_part.json"),
    ],
)
def test_the_check_reports_a_labelling_error(tmp_path: Path, edit: str, expected: str) -> None:
    problems, _ = check(_copy_with(tmp_path, edit))
    assert any(expected in p for p in problems), problems
