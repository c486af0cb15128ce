"""Erasure end to end (issue 30): a lead queued while its receiver is down, then the conversation erased over the
operator API. Afterwards no file of the data folder (databases, their WAL and shared-memory files, the outbox)
holds the visitor's e-mail address or phone number, and the receiver never gets them."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from engine.kernel.goal_models import Criterion, GoalSpec, Objective
from engine.leads.notifier import LeadNotifier
from engine.leads.outbox import Outbox
from engine.leads.webhook import DeliverySettings, WebhookDispatcher, WebhookTarget
from engine.rules.loader import DEFAULT_RULES_DIR, RuleBundle, load_bundle
from engine.storage.sqlite import SQLiteStore
from tests.conftest import copy_core_rules, publish
from tests.leads.test_webhook import Receiver
from tests.service.helpers import AUDIT_KEY, make_service

EMAIL = "erasure.scan.visitor@example.org"
PHONE_DIGITS = "4915112345678"
SETTINGS = DeliverySettings(backoff_seconds=(5.0,), timeout_seconds=5.0, signature_tolerance_seconds=300)


@pytest.fixture(scope="module")
def arc_bundle(tmp_path_factory: pytest.TempPathFactory) -> RuleBundle:
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
                  criterion=Criterion(kind="contact", description="contact", params={"channels": ["email", "phone"]}),
                  weight=Decimal("0.5"), order=2),
    ]
    return publish(GoalSpec(id="shop", title="Shop", default_language="en", languages=["en"], objectives=objectives))


def _needles() -> list[bytes]:
    """The contact values in the encodings a file could hold them in (UTF-8, UTF-16 as SQLite may, JSON)."""
    found = []
    for value in (EMAIL, PHONE_DIGITS, "+" + PHONE_DIGITS, "151 1234 5678"):
        found += [value.encode(), value.encode("utf-16-le"), json.dumps(value).encode()]
    return found


def _holders(folder: Path) -> list[str]:
    needles = _needles()
    return sorted(
        path.name for path in folder.rglob("*") if path.is_file() and any(n in path.read_bytes() for n in needles)
    )


def test_erasure_leaves_no_contact_data_in_any_file_of_the_data_folder(arc_bundle: RuleBundle, tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    receiver = Receiver([503])  # down for the first attempt: the lead waits in the outbox
    try:
        dispatcher = WebhookDispatcher(Outbox(data / "outbox.db"),
                                       {"shop": WebhookTarget("shop", receiver.url, b"w" * 32)}, SETTINGS)
        notifier = LeadNotifier(dispatcher)
        store = SQLiteStore(data / "grace.db", audit_key=AUDIT_KEY)
        notifier.watch(store)
        service = make_service(store, arc_bundle, _spec(), notifier=notifier)
        cid = service.start("shop")
        assert service.turn(cid, "budget 90000 EUR").status_code == 200
        last = service.turn(cid, f"write to {EMAIL} or call +{PHONE_DIGITS}").json()
        assert last["completed"] is True
        [first] = dispatcher.run_due(datetime.now(UTC))
        assert first.status != "delivered"  # the receiver answered 503: the lead is queued with the contact data
        assert EMAIL.encode() in dispatcher.outbox.get(first.delivery_id).body
        assert _holders(data) != []  # the scan sees the queued lead (so an empty scan later means something)

        erased = service.client.post(f"/v1/operator/conversations/{cid}/erase", headers=service.headers)
        assert erased.status_code == 200
        later = dispatcher.run_due(datetime.now(UTC) + timedelta(days=366))
        assert all(d.status != "delivered" for d in later)
        assert all(EMAIL.encode() not in body for _, body in receiver.requests[1:])
        assert _holders(data) == []  # live files, WAL and -shm included, while the store is still open
        store.close()
        dispatcher.outbox.close()
        assert _holders(data) == []  # and after the checkpoints that closing runs
    finally:
        receiver.server.shutdown()
