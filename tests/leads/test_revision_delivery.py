"""A value corrected after the lead was delivered is delivered again as a revision (issue 32, spec/adr/0006): a
``conversation.revised`` webhook event and the export's ``revised`` column, from real turns in a real store."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime
from pathlib import Path

from engine.goals.publication import load_published
from engine.kernel.turn import TurnRuntime
from engine.leads.export import LeadFilter, collect_leads, to_csv
from engine.leads.notifier import LeadNotifier
from engine.leads.outbox import Outbox
from engine.leads.webhook import DeliverySettings, WebhookDispatcher, WebhookTarget
from engine.rules.loader import DEFAULT_RULES_DIR, load_bundle
from engine.storage import SQLiteStore
from llm_adapters.offline import OfflineProposer

ROOT = Path(__file__).resolve().parents[2]
SPEC_DIR = ROOT / "demos" / "real_estate" / "published" / "real-estate"
SETTINGS = DeliverySettings(backoff_seconds=(10.0,), timeout_seconds=5.0, signature_tolerance_seconds=300)


def test_a_correction_after_the_closing_is_delivered_as_a_revision(tmp_path: Path) -> None:
    bundle = load_bundle(DEFAULT_RULES_DIR, require_published=False)
    spec = load_published(max(SPEC_DIR.glob("v*.json"), key=lambda p: int(p.stem[1:])))
    store = SQLiteStore(tmp_path / "grace.db")
    runtime = TurnRuntime(spec=spec, bundle=bundle, proposer=OfflineProposer.from_bundle(bundle), answerer=None,
                          store=store, audit_key=b"k" * 32)
    sent: list[tuple[dict[str, str], dict[str, object]]] = []

    def transport(url: str, body: bytes, headers: dict[str, str], timeout: float) -> int:
        sent.append((headers, json.loads(body)))
        return 200

    dispatcher = WebhookDispatcher(Outbox(tmp_path / "outbox.db"),
                                   {"real-estate": WebhookTarget("real-estate", "https://crm.example/hook", b"s" * 32)},
                                   SETTINGS, transport)
    notifier = LeadNotifier(dispatcher)
    state = runtime.start(conversation_id="lead1")
    for text in ("My budget is 450000 euros", "Somewhere in Madrid please", "I need 3 bedrooms and a garage",
                 "my email is ana.lopez@example.org", "Actually my budget is 500000 euros", "thanks!"):
        outcome = runtime.handle(state.conversation_id, text)
        notifier.on_commit(outcome.new_state, outcome.record)
    dispatcher.run_due(datetime.now(UTC))

    events = [body["event"] for _, body in sent]
    assert events == ["conversation.completed", "conversation.revised"]  # "thanks!" revises nothing
    headers, revised = sent[1]
    assert headers["X-Grace-Event"] == "conversation.revised"
    assert revised["revised"] == ["budget"]
    assert revised["values"]["budget"] == "500000 EUR"  # type: ignore[index]
    assert revised["revisions"] == {"budget": ["450000 EUR", "500000 EUR"]}
    assert sent[0][0]["X-Grace-Delivery"] != headers["X-Grace-Delivery"]  # one delivery id per turn

    rows = list(csv.DictReader(io.StringIO(to_csv(collect_leads(store, LeadFilter())))))
    assert rows[0]["budget"] == "500000 EUR"
    assert rows[0]["revised"] == "budget: 450000 EUR > 500000 EUR"
    assert notifier.sweep(store) == 0  # both already queued: stable delivery ids, nothing sent twice
    store.close()
