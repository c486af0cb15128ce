"""Golden scripted handoff conversations (tests/golden/handoff_conversations.json): a visitor asks for a person in
their own words; the reply carries the company's contact, the turn's audit record says so, what the visitor said
before or in the same message is still recorded, and the company's webhook receives those values. Handoff is a
service decision (the turn runtime never sees it), so these run over HTTP, with the real offline proposer and the
cleaning demo's published spec and answerer."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from engine.demos import load_demo
from engine.handoff.config import load_handoff
from engine.leads.notifier import LeadNotifier
from engine.leads.outbox import Outbox
from engine.leads.webhook import WebhookDispatcher, WebhookTarget
from engine.rules.loader import DEFAULT_RULES_DIR, RuleBundle, load_bundle
from engine.runtimes import demo_answerer
from engine.service.runner import DEMO_HANDOFF
from engine.storage.sqlite import SQLiteStore
from llm_adapters.offline import OfflineProposer
from tests.leads.test_webhook import Receiver
from tests.service.helpers import AUDIT_KEY, Service, make_service
from tests.service.test_service_webhooks import SECRET, SETTINGS

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "handoff_conversations.json"
DATA = json.loads(GOLDEN.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def bundle() -> RuleBundle:
    return load_bundle(DEFAULT_RULES_DIR, require_published=False)


@pytest.fixture
def desk(tmp_path: Path, bundle: RuleBundle) -> Iterator[tuple[Service, Receiver, LeadNotifier]]:
    demo = load_demo(DATA["demo"])
    goal = demo.spec.spec.id
    receiver = Receiver([200])
    frozen = datetime.now(UTC)
    notifier = LeadNotifier(WebhookDispatcher(Outbox(tmp_path / "outbox.db"),
                                              {goal: WebhookTarget(goal, receiver.url, SECRET)},
                                              SETTINGS, clock=lambda: frozen))
    config = dataclasses.replace(load_handoff(DEMO_HANDOFF)[goal], webhook=True)
    service = make_service(SQLiteStore(tmp_path / "h.db", audit_key=AUDIT_KEY), bundle, demo.spec,
                           notifier=notifier, handoff={goal: config},
                           understanding=OfflineProposer.from_bundle(bundle), answerer=demo_answerer(demo, bundle))
    yield service, receiver, notifier
    receiver.server.shutdown()
    service.store.close()


def test_every_handoff_behaviour_has_english_and_spanish_conversations() -> None:
    languages: dict[str, set[str]] = {}
    for conversation in DATA["conversations"]:
        languages.setdefault(conversation["behaviour"], set()).add(conversation["language"])
    assert all(found >= {"en", "es"} for found in languages.values()), languages


@pytest.mark.parametrize("conversation", DATA["conversations"], ids=lambda c: c["id"])
def test_scripted_handoff_conversation(desk: tuple[Service, Receiver, LeadNotifier],
                                       conversation: dict[str, Any]) -> None:
    service, receiver, notifier = desk
    cid = service.start("test", language=conversation["language"])
    for number, turn in enumerate(conversation["turns"], start=1):
        response = service.turn(cid, turn["visitor"])
        assert response.status_code == 200, response.text
        body = response.json()
        where = f"{conversation['id']} turn {number} ({turn['visitor']!r}): {body.get('response_text')!r}"
        if "state" in turn:
            assert body["state"] == turn["state"], where
        handoff = body.get("handoff")
        assert (handoff is not None) is turn["handoff"], where
        for text in turn.get("handoff_has", []):
            assert text in handoff["text"], f"{where}: handoff lacks {text!r}: {handoff['text']!r}"
        [record] = [r for r in service.store.records(cid) if r["turn"] == number]
        for note in turn.get("notes_have", []):
            assert note in record["notes"], f"{where}: note {note!r} not in {record['notes']}"
        for note in turn.get("notes_lack", []):
            assert note not in record["notes"], f"{where}: unexpected note {note!r}"
    notifier.dispatcher.run_due(datetime.now(UTC))
    events = [json.loads(body) for _, body in receiver.requests]
    handoffs = [e for e in events if e["event"] == "conversation.handoff"]
    expected = conversation.get("inbox")
    if expected is None:
        assert handoffs == []
        return
    [event] = handoffs
    assert event["conversation_id"] == cid and event["turn"] == expected["turn"]
    assert event["values"] == expected["values"]  # what was recorded by that turn, nothing later
