"""What the console builds on: who is signed in (/v1/operator/me), per-conversation counts of failed-closed
turns and rejected answers in the summaries (from the audit records), and dead letters by role."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from structlog.testing import capture_logs

from engine.kernel.ports import ProposerInput
from engine.rules.loader import RuleBundle
from engine.service.config import ServiceConfig
from tests.service.helpers import AUDIT_KEY, ScriptProposer, Service, generous_limits, make_service
from tests.service.test_service_operators import TOKENS, _as, operators_file  # noqa: F401 (fixture)
from tests.service.test_service_webhooks import _notifier, _spec, arc_bundle, receivers  # noqa: F401 (fixtures)
from tests.storage.backends import StoreFactory


def _summaries(service: Service) -> dict[str, dict[str, Any]]:
    rows = service.client.get("/v1/operator/conversations", headers=service.headers).json()["conversations"]
    return {row["conversation_id"]: row for row in rows}


def test_summaries_count_failed_closed_turns_and_rejected_answers(
    factory: StoreFactory, bundle: RuleBundle, published_spec: object
) -> None:
    def crash_on_boom(request: ProposerInput) -> None:
        if "boom" in request.message.text:
            raise RuntimeError("proposer exploded")

    service = make_service(factory.open(AUDIT_KEY), bundle, published_spec,  # type: ignore[arg-type]
                           proposer=ScriptProposer(hook=crash_on_boom))
    clean, rejected, crashed = service.start(), service.start(), service.start()
    assert service.turn(clean, "My budget is 250000 EUR").status_code == 200
    service.turn(rejected, "My budget is 250000 EUR")
    service.turn(rejected, "Or maybe 5000 EUR")  # budget already complete: the candidate is rejected
    service.turn(crashed, "boom")
    failed = service.turn(crashed, "boom again").json()
    assert failed["fail_closed"]  # the turn failed closed, it did not crash the service
    rows = _summaries(service)
    assert (rows[clean]["fail_closed_turns"], rows[clean]["rejected_turns"]) == (0, 0)
    assert (rows[rejected]["fail_closed_turns"], rows[rejected]["rejected_turns"]) == (0, 1)
    assert (rows[crashed]["fail_closed_turns"], rows[crashed]["rejected_turns"]) == (2, 0)
    # The counts agree with the audit records they summarise.
    for cid, row in rows.items():
        records = service.store.records(cid)
        assert row["fail_closed_turns"] == sum(1 for r in records if r["fail_closed"])
        assert row["rejected_turns"] == sum(1 for r in records if any(not c["accepted"] for c in r["candidates"]))


@pytest.mark.parametrize("name", sorted(TOKENS))
def test_me_names_the_operator_and_role(factory: StoreFactory, bundle: RuleBundle, published_spec: object,
                                        operators_file: Path, name: str) -> None:  # noqa: F811
    config = ServiceConfig(operator_token="", limits=generous_limits(), operators_file=operators_file)
    service = make_service(factory.open(AUDIT_KEY), bundle, published_spec, config=config)  # type: ignore[arg-type]
    me = service.client.get("/v1/operator/me", headers=_as(name))
    assert me.status_code == 200 and me.json()["name"] == name
    assert me.json()["role"] == {"Vera Viewer": "viewer", "Aldo Auditor": "auditor", "Ada Admin": "admin"}[name]
    assert service.client.get("/v1/operator/me").status_code == 401


def test_only_an_admin_requeues_a_dead_letter_and_it_is_logged(
    factory: StoreFactory, arc_bundle: RuleBundle, tmp_path: Path, receivers: Any,  # noqa: F811
    operators_file: Path,  # noqa: F811
) -> None:
    notifier = _notifier(tmp_path, receivers([500, 500]).url)
    config = ServiceConfig(operator_token="", limits=generous_limits(), operators_file=operators_file)
    service = make_service(factory.open(AUDIT_KEY), arc_bundle, _spec(), notifier=notifier, config=config)
    cid = service.start("shop")
    service.turn(cid, "budget 90000 EUR and mail lu@example.org")
    now = datetime.now(UTC)
    notifier.dispatcher.run_due(now)
    notifier.dispatcher.run_due(now + timedelta(seconds=5))
    assert service.client.get("/v1/operator/deliveries/dead", headers=_as("Vera Viewer")).status_code == 403
    dead = service.client.get("/v1/operator/deliveries/dead", headers=_as("Aldo Auditor")).json()["deliveries"]
    assert len(dead) == 1 and "lu@example.org" not in json.dumps(dead)
    path = f"/v1/operator/deliveries/{dead[0]['delivery_id']}/requeue"
    for name in ("Vera Viewer", "Aldo Auditor"):
        refused = service.client.post(path, headers=_as(name))
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "auth.forbidden"
    assert notifier.dispatcher.outbox.dead_letters()[0].status == "dead"  # untouched by the refusals
    with capture_logs() as logs:
        again = service.client.post(path, headers=_as("Ada Admin"))
    assert again.status_code == 200 and again.json()["status"] == "pending"
    [event] = [e for e in logs if e["event"] == "operator.leads.requeued"]
    assert event["operator"] == "Ada Admin" and event["delivery_id"] == dead[0]["delivery_id"]
