"""``grace eval``: writes the per-turn results file, prints metrics beside the paper's and the mismatch diff."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cli import main
from tests.proposer.helpers import DEMO_SPECS

DATASET = {
    "name": "cli-test",
    "paper_results": {"real_estate": {"STA": "1/2"}},
    "configs": {"real_estate": {"language": "en", "objectives": [
        {"id": "budget"}, {"id": "location"}, {"id": "requirements"}, {"id": "contact"}]}},
    "conversations": [{"id": "c1", "config": "real_estate", "turns": [
        {"turn": 1, "visitor": "My budget is below 350.000 EUR", "reference": "1000", "scored": True},
        {"turn": 2, "visitor": "I want to live in Mojácar.", "reference": "1110", "scored": True},
        {"turn": 3, "visitor": "Bye", "reference": None, "scored": False}]}],
}


def _args(dataset: Path, out: Path) -> list[str]:
    args = ["eval", str(dataset), "--out", str(out), "--unpublished-rules", "--no-answerer"]
    for path in DEMO_SPECS.values():
        args += ["--candidate-spec", str(path)]
    return args


def test_eval_writes_results_and_prints_diff(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dataset = tmp_path / "d.json"
    dataset.write_text(json.dumps(DATASET), encoding="utf-8")
    out = tmp_path / "results.json"
    assert main(_args(dataset, out)) == 0
    results = json.loads(out.read_text(encoding="utf-8"))
    turns = results["conversations"][0]["turns"]
    assert [t["state"] for t in turns] == ["1000", "1100", "1100"]
    assert turns[0]["action"] == "ASK(location)" and turns[0]["question"]
    assert results["metrics"]["real_estate"]["STA"] == "1/2"
    printed = capsys.readouterr().out
    assert "1/2 (50.0%)" in printed  # ours and the dataset's paper figure
    assert "c1 t2: recorded 1100 reference 1110 (requirements missing)" in printed


def test_eval_rejects_a_malformed_dataset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dataset = tmp_path / "bad.json"
    dataset.write_text("{not json", encoding="utf-8")
    out = tmp_path / "results.json"
    assert main(_args(dataset, out)) == 2
    assert "eval.dataset_unreadable" in capsys.readouterr().err
    assert not out.exists()


def test_unknown_demo_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dataset = tmp_path / "d.json"
    dataset.write_text(json.dumps(DATASET), encoding="utf-8")
    assert main([*_args(dataset, tmp_path / "r.json"), "--demo", "bakery"]) == 2
    assert "eval.demo_unknown" in capsys.readouterr().err
