from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cli import main


def run(args: list[str]) -> int:
    return main(args)


def test_batch_run_writes_the_answer_file(small_files: tuple[Path, Path], tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    directory, mapping = small_files
    queries = tmp_path / "q.json"
    queries.write_text(json.dumps({"reference_date": "2026-03-04", "queries": [
        {"id": "a", "text": "TEFAP pantries in Oak County", "extra": 1},
        {"id": 2, "text": "free food please"},
        {"id": "c", "text": "food in Walnut County"},
        {"id": "d", "text": "open tomorrow in Riverbend", "reference_date": "2026-03-04T08:00"},
    ]}))
    out = tmp_path / "a.json"
    code = run(["trace", "run", "--directory", str(directory), "--mapping", str(mapping),
                "--queries", str(queries), "--out", str(out)])
    assert code == 0 and "wrote 4 answers" in capsys.readouterr().out
    answers = json.loads(out.read_text())["queries"]
    assert [a["id"] for a in answers] == ["a", 2, "c", "d"]
    assert [a["status"] for a in answers] == ["results", "clarify", "no_match", "results"]
    first = answers[0]
    assert {r["source_index"] for r in first["results"]} == {0, 7} and first["question"] is None
    assert all(set(r) >= {"source_index", "name", "evidence"} for r in first["results"])
    assert answers[1]["results"] == [] and answers[1]["question"]
    assert [r["source_index"] for r in answers[3]["results"]] == [0, 1]  # Thursday 5 March: Riverbend openings


@pytest.mark.parametrize(("payload", "code"), [
    ({"items": []}, "directory.queries_shape"),
    ({"queries": [{"text": "x"}]}, "directory.queries_item"),
    ({"queries": [{"id": "a", "text": "x"}, {"id": "a", "text": "y"}]}, "directory.queries_duplicate"),
    ({"queries": [{"id": "a", "text": "x", "reference_date": "next week"}]}, "directory.usage_reference_date"),
])
def test_bad_query_files_fail_closed(small_files: tuple[Path, Path], tmp_path: Path, payload: object, code: str,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    directory, mapping = small_files
    queries = tmp_path / "q.json"
    queries.write_text(json.dumps(payload))
    out = tmp_path / "a.json"
    assert run(["trace", "run", "--directory", str(directory), "--mapping", str(mapping),
                "--queries", str(queries), "--out", str(out)]) == 2
    assert code in capsys.readouterr().err and not out.exists()


def test_ask_prints_citations(small_files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    directory, mapping = small_files
    assert run(["trace", "ask", "pantries for students in Lakeview", "--directory", str(directory),
                "--mapping", str(mapping), "--reference-date", "2026-03-04"]) == 0
    printed = capsys.readouterr().out
    assert "Campus Cupboard (students)" in printed and "[testdir#2]" in printed


def test_ask_json(small_files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    directory, mapping = small_files
    assert run(["trace", "ask", "pantries in Millbrook", "--json", "--directory", str(directory),
                "--mapping", str(mapping)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "results" and {r["source_index"] for r in data["results"]} == {6, 7}


def test_bench_reports_every_variant(small_files: tuple[Path, Path], tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    directory, mapping = small_files
    report = tmp_path / "report.json"
    queries = tmp_path / "queries.json"
    assert run(["trace", "bench", "--directory", str(directory), "--mapping", str(mapping), "--seed", "3",
                "--latency-queries", "20", "--json-out", str(report), "--queries-out", str(queries)]) == 0
    printed = capsys.readouterr().out
    assert all(v in printed for v in ("KG-0", "KG-1", "KG-2", "KG-3")) and "p50=" in printed
    data = json.loads(report.read_text())
    assert set(data["variants"]) == {"KG-0", "KG-1", "KG-2", "KG-3"}
    assert data["variants"]["KG-3"]["all"]["queries"] == 1000
    assert data["variants"]["KG-3"]["all"]["hallucination"] == 0.0
    assert len(json.loads(queries.read_text())["queries"]) == 1000


def test_missing_directory_file(tmp_path: Path, small_files: tuple[Path, Path],
                                capsys: pytest.CaptureFixture[str]) -> None:
    _, mapping = small_files
    assert run(["trace", "ask", "x", "--directory", str(tmp_path / "nope.json"), "--mapping", str(mapping)]) == 2
    assert "directory.file_unreadable" in capsys.readouterr().err
