"""The ninth blind answering sets stay well labelled: they load, their section ids are passages the loader produces,
their facts are written in those passages, and each keeps what the sets promise (benchmarks/rag_blind9/README.md).
The check is the shared one in benchmarks/rag_blind4/check_sets.py, given this folder (its own behaviour is tested
in test_blind5_sets.py).

Labelling only: this never runs the answerer on them (they are run once, by the lead).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.rag_blind4.check_sets import check, check_all

BLIND9 = Path(__file__).resolve().parents[2] / "benchmarks" / "rag_blind9"
SETS = sorted(BLIND9.glob("*/set.json"))


def test_there_are_six_sets() -> None:
    assert [p.parent.name for p in SETS] == [
        "cobbler",
        "nutritionist",
        "observatory",
        "pest_control",
        "surf_school",
        "upholstery",
    ]


@pytest.mark.parametrize("set_path", SETS, ids=lambda p: p.parent.name)
def test_each_set_is_well_labelled(set_path: Path) -> None:
    problems, _ = check(set_path)
    assert problems == []


def test_the_whole_folder_passes_with_unique_ids_and_both_languages() -> None:
    assert check_all(BLIND9) == []
