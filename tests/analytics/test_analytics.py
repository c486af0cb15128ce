"""Conversation analytics (issue 32 item 10): counted from the store's summaries and sealed audit records, per goal
and period, with no key to open any personal value; the CLI writes JSON and CSV, the console reads the endpoint."""

from __future__ import annotations

import csv
import io
import json
import re
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from engine.analytics.collect import collect
from engine.analytics.report import selection
from engine.cli import main
from engine.errors import GraceError
from engine.kernel.commands import Command, Complete, Correct, Refuse, Span
from engine.kernel.ports import GroundedAnswer, Proposal, ProposerInput
from engine.kernel.turn import TurnRuntime
from engine.kernel.turn_context import TurnContext
from engine.rules.loader import RuleBundle
from engine.storage.sqlite import SQLiteStore
from tests.service.test_service_webhooks import _spec, arc_bundle  # noqa: F401 (fixture)

KEY = b"a" * 32
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
AMOUNT = re.compile(r"(\d{4,}) EUR")


class Proposer:
    """Amounts complete (or, with 'actually', correct) the budget; e-mails the contact; 'no contact' refuses it."""

    name, version = "analytics-test", "1"

    def propose(self, request: ProposerInput) -> Proposal:
        text, turn = request.message.text, request.turn
        commands: list[Command] = []
        for match in AMOUNT.finditer(text):
            span = Span(turn=turn, start=match.start(), end=match.end(), quote=match.group(0))
            kind = Correct if "actually" in text else Complete
            commands.append(kind(objective="budget", value=f"{match.group(1)} EUR", span=span))
        for match in EMAIL.finditer(text):
            span = Span(turn=turn, start=match.start(), end=match.end(), quote=match.group(0))
            commands.append(Complete(objective="contact", value=match.group(0), span=span))
        if "no contact" in text:
            commands.append(Refuse(objective="contact", span=Span(turn=turn, start=0, end=len(text), quote=text)))
        return Proposal(commands=commands, adapter=self.name, adapter_version=self.version)


class Answerer:
    """A question about opening hours is answered from the documents; any other question is not."""

    def answer(self, message: str, language: str, history: Sequence[str] = (),
               context: TurnContext | None = None) -> GroundedAnswer:
        if "?" not in message:
            return GroundedAnswer()
        return GroundedAnswer(text="We open at 9.", supported="open" in message, is_question=True)


@pytest.fixture
def database(tmp_path: Path, arc_bundle: RuleBundle) -> Path:  # noqa: F811
    path = tmp_path / "grace.db"
    store = SQLiteStore(path, audit_key=KEY)
    runtime = TurnRuntime(spec=_spec(), bundle=arc_bundle, proposer=Proposer(), answerer=Answerer(), store=store,
                          audit_key=KEY)

    def talk(*messages: str) -> None:
        cid = runtime.start().conversation_id
        for text in messages:
            runtime.handle(cid, text)

    talk("budget 90000 EUR", "actually 95000 EUR", "write to ana@example.org")  # completed, one correction
    talk("When do you open?", "budget 80000 EUR", "no contact please")  # contact refused, rest declined
    talk("Do you sell boats?")  # a question the documents cannot answer; then the visitor leaves
    store.close()
    return path


def _later(hours: float) -> datetime:
    return datetime.now(UTC) + timedelta(hours=hours)


def test_report_counts_outcomes_drop_off_refusals_questions_and_corrections(database: Path) -> None:
    store = SQLiteStore(database)  # no audit key: nothing sealed can be opened
    try:
        [report] = collect(store, selection(None, None, None, 24), {"shop": ["budget", "contact"]}, now=_later(48))
        assert json.dumps(report.__dict__, default=str).count("ana@example.org") == 0
        records = [r for s in store.summaries() for r in store.records(s.conversation_id)]
    finally:
        store.close()
    assert any("enc:siv:" in json.dumps(r) for r in records)  # the values the report never opened
    assert (report.goal, report.started, report.completed, report.abandoned, report.open) == ("shop", 3, 1, 2, 0)
    assert (report.corrections, report.questions, report.unanswered_questions) == (1, 2, 1)
    assert report.unanswered_refs and report.unanswered_refs[0].endswith("#1")
    by_id = {o.objective: o for o in report.objectives}
    assert [o.objective for o in report.objectives] == ["budget", "contact"]
    assert (by_id["budget"].completed, by_id["budget"].corrections) == (2, 1)
    assert by_id["contact"].refused == 1 and by_id["contact"].completed == 1
    assert by_id["budget"].dropped == 1  # the visitor who asked about boats left at the budget question


def test_recent_conversations_are_open_not_abandoned(database: Path) -> None:
    store = SQLiteStore(database)
    try:
        [report] = collect(store, selection("shop", None, None, 24), now=_later(1))
    finally:
        store.close()
    assert (report.abandoned, report.open) == (0, 2)


def test_cli_writes_json_and_csv_and_refuses_bad_selections(database: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{database}"
    time.sleep(0.05)
    assert main(["analytics", "--db", url, "--goal", "shop", "--idle-hours", "0.00001"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["goals"][0]["started"] == 3 and data["goals"][0]["abandoned"] == 2
    out = tmp_path / "analytics.csv"
    assert main(["analytics", "--db", url, "--out", str(out)]) == 0
    assert "wrote analytics of 3 conversation(s)" in capsys.readouterr().out
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert rows[0]["goal"] == "shop" and rows[0]["started"] == "3"
    assert {r["objective"] for r in rows[1:]} == {"budget", "contact"}
    tomorrow = (datetime.now(UTC) + timedelta(days=1)).date().isoformat()
    assert main(["analytics", "--db", url, "--since", tomorrow]) == 0
    assert json.loads(capsys.readouterr().out) == {"goals": []}
    assert main(["analytics", "--db", url, "--since", "2026-02-01", "--until", "2026-01-01"]) == 2
    assert "analytics.date_range_empty" in capsys.readouterr().err
    assert main(["analytics", "--db", f"sqlite:///{tmp_path / 'none.db'}"]) == 2
    assert "analytics.db_missing" in capsys.readouterr().err


def test_selection_rejects_bad_dates() -> None:
    with pytest.raises(GraceError) as info:
        selection(None, "yesterday", None)
    assert info.value.code == "analytics.date_invalid"
