"""Operator erasure over HTTP, and the verify endpoint on tampered stored state (issue 11 items 3-5)."""

from __future__ import annotations

import json

from tests.service.helpers import Service
from tests.storage.backends import StoreFactory
from tests.storage.sealing import raw, write_state

EMAIL = "lu.visitor@example.com"


def _verify(service: Service, cid: str) -> dict[str, object]:
    response = service.client.get(f"/v1/operator/conversations/{cid}/audit/verify", headers=service.headers)
    assert response.status_code == 200
    body: dict[str, object] = response.json()
    return body


def test_erase_needs_the_operator_token(service: Service) -> None:
    cid = service.start()
    response = service.client.post(f"/v1/operator/conversations/{cid}/erase")
    assert (response.status_code, response.json()["error"]["code"]) == (401, "auth.missing_token")
    unknown = service.client.post("/v1/operator/conversations/nope/erase", headers=service.headers)
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (404, "conversation.not_found")


def test_erase_keeps_the_chain_verifiable_and_closes_the_conversation(service: Service) -> None:
    cid = service.start()
    assert service.turn(cid, "budget 80000 EUR").status_code == 200
    assert service.turn(cid, f"mail me at {EMAIL}").status_code == 200
    erased = service.client.post(f"/v1/operator/conversations/{cid}/erase", headers=service.headers)
    assert erased.status_code == 200
    body = erased.json()
    assert body["erased"] is True and body["actor"].startswith("operator-api:operator@") and body["erased_at"]

    status = _verify(service, cid)
    assert status["ok"] is True and status["records"] == 2
    visitor = service.client.get(f"/v1/conversations/{cid}", headers=service.visitor(cid)).json()
    assert EMAIL not in json.dumps(visitor) and {m["text"] for m in visitor["messages"]} == {"[erased]"}
    detail = service.client.get(f"/v1/operator/conversations/{cid}", headers=service.headers).json()
    assert detail["state"]["bits"] == [1, 0, 0, 1] and EMAIL not in json.dumps(detail)
    trail = service.client.get(f"/v1/operator/conversations/{cid}/audit", headers=service.headers).json()
    assert EMAIL not in json.dumps(trail)

    refused = service.turn(cid, "one more thing")
    assert (refused.status_code, refused.json()["error"]["code"]) == (410, "store.erased")


def test_verify_endpoint_fails_on_edited_state_and_null_checkpoint(factory: StoreFactory, service: Service) -> None:
    cid = service.start()
    service.turn(cid, "budget 80000 EUR")
    stored = service.store.stored_state(cid)
    write_state(factory, cid, dict(stored, bits=[1, 1, 1, 1]))
    assert _verify(service, cid)["code"] == "audit.state_mismatch"
    refused = service.turn(cid, "hello")
    assert (refused.status_code, refused.json()["error"]["code"]) == (409, "audit.state_mismatch")  # not 500
    write_state(factory, cid, dict(stored, audit_head=None))
    assert _verify(service, cid)["code"] == "audit.checkpoint_missing"
    assert raw(factory, "SELECT count(*) FROM grace_audit_records WHERE conversation_id = ?", (cid,)) == [(1,)]
