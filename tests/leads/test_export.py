"""Lead export from a real SQLite store filled by real turns: CSV/JSON, filters, coded errors."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from engine.cli import main
from engine.goals.publication import load_published
from engine.kernel.turn import TurnRuntime
from engine.leads.export import Lead, to_csv
from engine.rules.loader import DEFAULT_RULES_DIR, load_bundle
from engine.storage import SQLiteStore
from llm_adapters.offline import OfflineProposer

ROOT = Path(__file__).resolve().parents[2]
SPEC_DIR = ROOT / "demos" / "real_estate" / "published" / "real-estate"


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("leads") / "grace.db"
    bundle = load_bundle(DEFAULT_RULES_DIR, require_published=False)
    spec = load_published(max(SPEC_DIR.glob("v*.json"), key=lambda p: int(p.stem[1:])))
    store = SQLiteStore(path)
    runtime = TurnRuntime(spec=spec, bundle=bundle, proposer=OfflineProposer.from_bundle(bundle), answerer=None,
                          store=store, audit_key=b"k" * 32)
    done = runtime.start(conversation_id="complete1")
    for text in ("My budget is 450000 euros", "Somewhere in Madrid please", "I need 3 bedrooms and a garage",
                 "my email is ana.lopez@example.org"):
        runtime.handle(done.conversation_id, text)
    partial = runtime.start(conversation_id="partial1")
    runtime.handle(partial.conversation_id, "My budget is 300000 euros")
    store.close()
    return f"sqlite:///{path}"


def _export(database: str, out: Path, *extra: str) -> int:
    return main(["leads", "export", "--db", database, "--out", str(out), "--by", "Ana Auditor", *extra])


def test_csv_has_one_row_per_conversation_and_a_column_per_objective(database: str, tmp_path: Path) -> None:
    out = tmp_path / "leads.csv"
    assert _export(database, out) == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    by_id = {row["conversation_id"]: row for row in rows}
    assert set(by_id) == {"complete1", "partial1"}
    assert by_id["complete1"]["completed"] == "true" and by_id["complete1"]["state"] == "1111"
    assert by_id["complete1"]["contact"] == "ana.lopez@example.org"
    assert by_id["complete1"]["budget"] == "450000 EUR"
    assert by_id["partial1"]["completed"] == "false" and by_id["partial1"]["contact"] == ""


def test_json_filters_by_completion_goal_and_dates(database: str, tmp_path: Path) -> None:
    out = tmp_path / "leads.json"
    assert _export(database, out, "--completed-only", "--goal", "real-estate") == 0
    leads = json.loads(out.read_text(encoding="utf-8"))["leads"]
    assert [lead["conversation_id"] for lead in leads] == ["complete1"]
    assert leads[0]["values"]["location"] == "Madrid"
    assert _export(database, out, "--goal", "cleaning") == 0
    assert json.loads(out.read_text(encoding="utf-8"))["leads"] == []
    assert _export(database, out, "--since", "2999-01-01") == 0
    assert json.loads(out.read_text(encoding="utf-8"))["leads"] == []


@pytest.mark.parametrize(("extra", "code"), [
    (("--since", "yesterday"), "leads.date_invalid"),
    (("--since", "2026-02-01", "--until", "2026-01-01"), "leads.date_range_empty"),
])
def test_bad_selection_is_a_coded_error(database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        extra: tuple[str, ...], code: str) -> None:
    out = tmp_path / "leads.csv"
    assert _export(database, out, *extra) == 2
    assert capsys.readouterr().err.startswith(f"error {code}:")
    assert not out.exists()


def test_missing_database_is_not_created(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.db"
    assert _export(f"sqlite:///{missing}", tmp_path / "leads.csv") == 2
    assert capsys.readouterr().err.startswith("error leads.db_missing:")
    assert not missing.exists()


def test_spreadsheet_formulas_are_never_exported_live() -> None:
    lead = Lead("c", "g/v1", "en", "t", "t", "1", True, False, {"notes": "=HYPERLINK(\"http://x\")", "n": "@SUM(1)"})
    row = next(iter(csv.DictReader(io.StringIO(to_csv([lead])))))
    assert row["notes"].startswith("'=") and row["n"].startswith("'@")


def test_relative_sqlite_url_is_read_from_the_working_directory(
    database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    absolute = Path(database.removeprefix("sqlite:///"))
    monkeypatch.chdir(absolute.parent.parent)
    relative = f"sqlite:///{absolute.parent.name}/{absolute.name}"  # as the README writes .grace/grace.db
    assert _export(relative, tmp_path / "leads.json") == 0
