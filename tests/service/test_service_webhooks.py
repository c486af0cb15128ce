"""Completion over HTTP: the closing turn says so, queues one signed webhook, and dead letters reach the console API."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from engine.kernel.commands import Span, Stop
from engine.kernel.goal_models import Criterion, GoalSpec, Objective
from engine.leads.notifier import LeadNotifier
from engine.leads.outbox import Outbox
from engine.leads.webhook import DeliverySettings, WebhookDispatcher, WebhookTarget, verify_signature
from engine.rules.loader import DEFAULT_RULES_DIR, RuleBundle, load_bundle
from tests.conftest import copy_core_rules, publish
from tests.leads.test_webhook import Receiver
from tests.service.helpers import AUDIT_KEY, TOKEN, ScriptProposer, make_service
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
    frozen = datetime.now(UTC)  # attempts take no time: a retry falls due exactly one backoff after its pass
    return LeadNotifier(WebhookDispatcher(Outbox(tmp_path / "outbox.db"), {"shop": WebhookTarget("shop", url, SECRET)},
                                          SETTINGS, clock=lambda: frozen))


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


# -- issue 30: erasure reaches the outbox, requeue answers 404/409, the sweep recovers every closing reason -------

EMAIL = "erase.me@example.org"


def test_erasure_cancels_a_queued_lead_and_leaves_no_personal_data_in_the_data_folder(
    factory: StoreFactory, arc_bundle: RuleBundle, tmp_path: Path, receivers: Any
) -> None:
    """Seen failing before the fix: the lead queued while the receiver was down was delivered after erasure,
    and the outbox (and its WAL) kept the address."""
    receiver = receivers([500])  # down at completion time
    notifier = _notifier(tmp_path, receiver.url)
    service = make_service(factory.open(AUDIT_KEY), arc_bundle, _spec(), notifier=notifier)
    cid = service.start("shop")
    service.turn(cid, f"budget 90000 EUR and mail {EMAIL}")
    [failed] = notifier.dispatcher.run_due(datetime.now(UTC))
    assert failed.status == "pending" and len(receiver.requests) == 1
    auth = {"Authorization": f"Bearer {TOKEN}"}
    assert service.client.post(f"/v1/operator/conversations/{cid}/erase", headers=auth).status_code == 200
    assert notifier.dispatcher.outbox.get(failed.delivery_id).status == "erased"
    assert notifier.dispatcher.run_due(datetime.now(UTC) + timedelta(hours=1)) == []
    assert len(receiver.requests) == 1  # never sent again
    assert notifier.sweep(service.store) == 0  # nor queued again by the crash-recovery sweep
    notifier.close()
    service.store.close()
    scanned = 0
    for path in tmp_path.rglob("*"):
        if path.is_file():
            scanned += 1
            assert EMAIL.encode() not in path.read_bytes(), path.name
    assert scanned >= 1  # the outbox at least (and with SQLite the database, its WAL and shm)


def test_requeue_answers_404_for_an_unknown_and_409_for_a_delivered_id(
    factory: StoreFactory, arc_bundle: RuleBundle, tmp_path: Path, receivers: Any
) -> None:
    """Seen failing before the fix: both answered 500."""
    receiver = receivers([])
    notifier = _notifier(tmp_path, receiver.url)
    service = make_service(factory.open(AUDIT_KEY), arc_bundle, _spec(), notifier=notifier)
    cid = service.start("shop")
    service.turn(cid, "budget 90000 EUR and mail lu@example.org")
    [delivered] = notifier.dispatcher.run_due(datetime.now(UTC))
    auth = {"Authorization": f"Bearer {TOKEN}"}
    unknown = service.client.post(f"/v1/operator/deliveries/{'0' * 32}/requeue", headers=auth)
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (404, "leads.delivery_unknown")
    done = service.client.post(f"/v1/operator/deliveries/{delivered.delivery_id}/requeue", headers=auth)
    assert (done.status_code, done.json()["error"]["code"]) == (409, "leads.not_dead_letter")


class _StoppingProposer(ScriptProposer):
    """The scripted proposer, plus a stop when the visitor says they want no more questions."""

    def propose(self, request: Any) -> Any:
        proposal = super().propose(request)
        text = request.message.text
        at = text.find("no more questions")
        if at < 0:
            return proposal
        span = Span(turn=request.turn, start=at, end=at + len("no more questions"), quote="no more questions")
        return proposal.model_copy(update={"commands": [*proposal.commands, Stop(span=span)]})


def test_the_startup_sweep_recovers_a_lead_closed_by_a_stop(
    factory: StoreFactory, arc_bundle: RuleBundle, tmp_path: Path, receivers: Any
) -> None:
    """Seen failing before the fix: only conversations with every objective complete were swept."""
    receiver = receivers([])
    store = factory.open(AUDIT_KEY)
    service = make_service(store, arc_bundle, _spec(), proposer=_StoppingProposer())  # no notifier: a crash
    cid = service.start("shop")
    service.turn(cid, "budget 90000 EUR")
    last = service.turn(cid, "no more questions please").json()
    assert last["state"] == "10"
    notifier = _notifier(tmp_path, receiver.url)
    assert notifier.sweep(store) == 1
    [delivered] = notifier.dispatcher.run_due(datetime.now(UTC))
    assert delivered.status == "delivered"
    event = json.loads(receiver.requests[0][1])
    assert event["conversation_id"] == cid and event["reason"] == "visitor_stopped"
