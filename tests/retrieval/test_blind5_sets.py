"""The fifth blind answering sets stay well labelled: they load, their section ids are passages the loader produces,
their facts are written in those passages, and each keeps what the sets promise (benchmarks/rag_blind5/README.md:
at least 30 items with every kind, long messages of 1,500 to 4,000 characters, two-part items described in their
sidecar, with one part covered or both, tags that match the message and the cited passages' language). The check is
the shared one in benchmarks/rag_blind4/check_sets.py, given this folder.

Labelling only: this never runs the answerer on them (they are run once, by the lead).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks.rag_blind4.check_sets import check, check_all, main

BLIND5 = Path(__file__).resolve().parents[2] / "benchmarks" / "rag_blind5"
SETS = sorted(BLIND5.glob("*/set.json"))


def test_there_are_five_sets() -> None:
    assert [p.parent.name for p in SETS] == [
        "campervan_hire",
        "dance_school",
        "locksmith",
        "tattoo_studio",
        "winery",
    ]


@pytest.mark.parametrize("set_path", SETS, ids=lambda p: p.parent.name)
def test_each_set_is_well_labelled(set_path: Path) -> None:
    problems, _ = check(set_path)
    assert problems == []


def test_the_whole_folder_passes_with_unique_ids_and_both_languages() -> None:
    assert check_all(BLIND5) == []


def test_the_shared_check_takes_the_folder_as_an_argument() -> None:
    assert main([str(BLIND5)]) == 0
    assert main([str(BLIND5 / "no-such-folder")]) == 2


def _both_answered(data: dict[str, Any], sidecar: dict[str, Any]) -> dict[str, Any]:
    return next(i for i in data["items"] if sidecar["items"].get(i["id"], {}).get("also_answered"))


def _copy_with(tmp_path: Path, edit: str) -> Path:
    original = next(p for p in SETS if p.parent.name == "winery")
    folder = tmp_path / original.parent.name
    folder.mkdir()
    (folder / "corpus").symlink_to(original.parent / "corpus")
    data = json.loads(original.read_text(encoding="utf-8"))
    sidecar = json.loads((original.parent / "multi_part.json").read_text(encoding="utf-8"))
    if edit == "fact_in_no_section":
        _both_answered(data, sidecar)["facts"].append("un dato que ningún pasaje escribe")
    elif edit == "section_without_fact":
        _both_answered(data, sidecar)["facts"].pop()
    elif edit == "both_keys":
        item_id = _both_answered(data, sidecar)["id"]
        sidecar["items"][item_id]["not_answered"] = "something"
    elif edit == "cross_lingual":
        plain = next(i for i in data["items"] if i["kind"] == "statement")
        plain["tags"].append("cross_lingual")
    (folder / "set.json").write_text(json.dumps(data), encoding="utf-8")
    (folder / "multi_part.json").write_text(json.dumps(sidecar), encoding="utf-8")
    return folder / "set.json"


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        ("fact_in_no_section", "not written in any of"),
        ("section_without_fact", "holds none of the facts"),
        ("both_keys", "exactly one of 'not_answered' or 'also_answered'"),
        ("cross_lingual", "cross_lingual tag set"),
    ],
)
def test_the_check_reports_a_labelling_error(tmp_path: Path, edit: str, expected: str) -> None:
    problems, _ = check(_copy_with(tmp_path, edit))
    assert any(expected in p for p in problems), problems
