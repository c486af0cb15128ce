"""The sixth to ninth blind answering sets stay well labelled: they load, their section ids are passages the loader
produces, their facts are written in those passages, and each keeps what the sets promise
(benchmarks/rag_blind<N>/README.md). The check is the shared one in benchmarks/rag_blind4/check_sets.py, given each
folder (its own behaviour is tested in test_blind4_sets.py and test_blind5_sets.py).

Labelling only: this never runs the answerer on them (they are run once, by the lead).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.rag_blind4.check_sets import check, check_all

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
# batch -> the six companies its author wrote
COMPANIES = {
    6: ["boat_trips", "chimney_sweep", "exam_academy", "golf_range", "riding_centre", "tailor_alterations"],
    7: ["archery_club", "cooking_school", "piano_tuner", "podiatry_clinic", "print_shop", "watch_repair"],
    8: ["beekeeping", "bookbinder", "dive_centre", "garden_nursery", "hearing_centre", "speech_therapy"],
    9: ["cobbler", "nutritionist", "observatory", "pest_control", "surf_school", "upholstery"],
}
SETS = [(batch, path) for batch in COMPANIES for path in sorted((BENCHMARKS / f"rag_blind{batch}").glob("*/set.json"))]


@pytest.mark.parametrize("batch", sorted(COMPANIES))
def test_there_are_six_sets(batch: int) -> None:
    assert [p.parent.name for b, p in SETS if b == batch] == COMPANIES[batch]


@pytest.mark.parametrize(("batch", "set_path"), SETS, ids=[f"{b}-{p.parent.name}" for b, p in SETS])
def test_each_set_is_well_labelled(batch: int, set_path: Path) -> None:
    problems, _ = check(set_path)
    assert problems == []


@pytest.mark.parametrize("batch", sorted(COMPANIES))
def test_the_whole_folder_passes_with_unique_ids_and_both_languages(batch: int) -> None:
    assert check_all(BENCHMARKS / f"rag_blind{batch}") == []
