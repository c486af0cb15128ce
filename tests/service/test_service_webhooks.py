"""Completion over HTTP: the closing turn says so, queues one signed webhook, and dead letters reach the console API."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from engine.bundle_loader import DEFAULT_RULES_DIR, RuleBundle, load_bundle
from engine.goals.models import Criterion, GoalSpec, Objective
from engine.leads.notifier import LeadNotifier
from engine.leads.outbox import Outbox
from engine.leads.webhook import DeliverySettings, WebhookDispatcher, WebhookTarget, verify_signature
from tests.conftest import copy_core_rules, publish
from tests.leads.test_webhook import Receiver
from tests.service.helpers import AUDIT_KEY, TOKEN, make_service
from tests.storage.backends import StoreFactory

SECRET = b"w" * 32
SETTINGS = DeliverySettings(backoff_seconds=(5.0,), timeout_seconds=5.0, signature_tolerance_seconds=300)


@pytest.fixture(scope="module")
def arc_bundle(tmp_path_factory: pytest.TempPathFactory) -> RuleBundle:
    """The core rule files plus the arc wording (the closing turn is worded from rules/arc)."""
    root = copy_core_rules(tmp_path_factory.mktemp("rules"))
    shutil.copytree(DEFAULT_RULES_DIR / "arc", root / "arc")
    shutil.copy(DEFAULT_RULES_DIR / "schemas" / "arc.schema.json", root / "schemas")
    return load_bundle(root, require_published=False)


def _spec() -> Any:
    objectives = [
        Objective(id="budget", name="Budget", questions={"en": "What is your budget?"},
                  criterion=Criterion(kind="money", description="budget", params={"currency": "EUR"}),
                  weight=Decimal("0.5"), order=1),
        Objective(id="contact", name="Contact", questions={"en": "How can we reach you?"},
                  criterion=Criterion(kind="contact", description="contact", params={"channels": ["email"]}),
                  weight=Decimal("0.5"), order=2),
    ]
    return publish(GoalSpec(id="shop", title="Shop", default_language="en", languages=["en"], objectives=objectives))


def _notifier(tmp_path: Path, url: str) -> LeadNotifier:
    return LeadNotifier(WebhookDispatcher(Outbox(tmp_path / "outbox.db"), {"shop": WebhookTarget("shop", url, SECRET)},
                                          SETTINGS))


@pytest.fixture
def receivers() -> Any:
    made: list[Receiver] = []
    yield lambda statuses: made.append(Receiver(statuses)) or made[-1]
    for receiver in made:
        receiver.server.shutdown()


def test_closing_turn_is_flagged_and_queues_one_signed_webhook(
    factory: StoreFactory, arc_bundle: RuleBundle, tmp_path: Path, receivers: Any
) -> None:
    receiver = receivers([])
    notifier = _notifier(tmp_path, receiver.url)
    service = make_service(factory.open(AUDIT_KEY), arc_bundle, _spec(), notifier=notifier)
    cid = service.start("shop")
    first = service.turn(cid, "budget 90000 EUR").json()
    assert first["completed"] is False
    last = service.turn(cid, "write to me at lu@example.org").json()
    assert last["completed"] is True and last["state"] == "11"
    # The spec names no company (no closing or widget company_name): the next step never uses its title as a name
    assert "lu@example.org" in last["response_text"] and "Our team will follow up" in last["response_text"]
    [delivered] = notifier.dispatcher.run_due(datetime.now(UTC))
    assert delivered.status == "delivered"
    [(headers, body)] = receiver.requests
    event = json.loads(body)
    assert event["event"] == "conversation.completed" and event["conversation_id"] == cid
    assert event["values"] == {"budget": "90000 EUR", "contact": "lu@example.org"}
    assert verify_signature(body, headers["x-grace-signature"], SECRET, now=int(datetime.now(UTC).timestamp()),
                            tolerance=300)
    # a crash-recovery sweep finds the same completion and queues nothing new
    assert notifier.sweep(service.store) == 0
    assert notifier.dispatcher.run_due(datetime.now(UTC)) == []


def test_dead_letters_are_listed_and_requeued_by_an_operator(
    factory: StoreFactory, arc_bundle: RuleBundle, tmp_path: Path, receivers: Any
) -> None:
    receiver = receivers([500, 500])
    notifier = _notifier(tmp_path, receiver.url)
    service = make_service(factory.open(AUDIT_KEY), arc_bundle, _spec(), notifier=notifier)
    cid = service.start("shop")
    service.turn(cid, "budget 90000 EUR and mail lu@example.org")
    now = datetime.now(UTC)
    notifier.dispatcher.run_due(now)
    notifier.dispatcher.run_due(now + timedelta(seconds=5))
    auth = {"Authorization": f"Bearer {TOKEN}"}
    assert service.client.get("/v1/operator/deliveries/dead").status_code == 401
    dead = service.client.get("/v1/operator/deliveries/dead", headers=auth).json()["deliveries"]
    assert [d["status"] for d in dead] == ["dead"] and dead[0]["last_error"] == "HTTP 500"
    assert "lu@example.org" not in json.dumps(dead)  # the console never shows the values
    again = service.client.post(f"/v1/operator/deliveries/{dead[0]['delivery_id']}/requeue", headers=auth)
    assert again.status_code == 200 and again.json()["status"] == "pending"
    [delivered] = notifier.dispatcher.run_due(datetime.now(UTC) + timedelta(seconds=1))
    assert delivered.status == "delivered" and len(receiver.requests) == 3
