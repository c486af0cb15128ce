"""Operator endpoints: token required; conversations, state, audit trail, chain verification, specs, bundles."""

from __future__ import annotations

import pytest

from tests.service.helpers import TOKEN, Service
from tests.storage.backends import StoreFactory

OPERATOR_PATHS = [
    "/v1/operator/conversations",
    "/v1/operator/goal-specs",
    "/v1/operator/rule-bundles",
    "/v1/operator/conversations/{cid}",
    "/v1/operator/conversations/{cid}/audit",
    "/v1/operator/conversations/{cid}/audit/verify",
]


@pytest.mark.parametrize("path", OPERATOR_PATHS)
def test_operator_endpoints_need_the_token(service: Service, path: str) -> None:
    url = path.format(cid=service.start())
    missing = service.client.get(url)
    assert (missing.status_code, missing.json()["error"]["code"]) == (401, "auth.missing_token")
    assert missing.headers["WWW-Authenticate"] == "Bearer"
    for bad in (f"Bearer {TOKEN}x", "Bearer ", f"Basic {TOKEN}", TOKEN):
        wrong = service.client.get(url, headers={"Authorization": bad})
        assert wrong.status_code == 401, bad
        assert wrong.json()["error"]["code"] in {"auth.invalid_token", "auth.missing_token"}
    assert service.client.get(url, headers=service.headers).status_code == 200


def test_conversation_list_detail_and_audit(service: Service) -> None:
    cid = service.start()
    service.turn(cid, "budget 80000 EUR")
    service.turn(cid, "mail me at lu@example.com")
    listing = service.client.get("/v1/operator/conversations", headers=service.headers).json()
    assert [(c["conversation_id"], c["state"], c["turn"]) for c in listing["conversations"]] == [(cid, "1001", 2)]

    detail = service.client.get(f"/v1/operator/conversations/{cid}", headers=service.headers).json()
    assert detail["goal_title"] == "Test"
    assert [o["id"] for o in detail["objectives"]] == ["budget", "location", "notes", "contact"]
    assert detail["state"]["bits"] == [1, 0, 0, 1]
    assert detail["state"]["audit_head"]["seq"] == 1

    trail = service.client.get(f"/v1/operator/conversations/{cid}/audit", headers=service.headers).json()
    records = trail["records"]
    assert [r["seq"] for r in records] == [0, 1]
    assert records[1]["prev_hash"] == records[0]["hash"]
    accepted = [c for c in records[0]["candidates"] if c["accepted"]]
    assert accepted[0]["witness"] == {"turn": 1, "start": 7, "end": 16}

    status = service.client.get(f"/v1/operator/conversations/{cid}/audit/verify", headers=service.headers).json()
    assert status["ok"] is True
    assert (status["records"], status["head_seq"], status["anchored_seq"], status["code"]) == (2, 1, 1, None)


def test_verify_detects_an_edited_record(factory: StoreFactory, service: Service) -> None:
    cid = service.start()
    service.turn(cid, "budget 80000 EUR")
    service.turn(cid, "budget 95000 EUR, sorry")
    if factory.backend == "sqlite":
        factory.execute_raw("DROP TRIGGER grace_audit_records_no_update")
    else:
        factory.execute_raw("ALTER TABLE grace_audit_records DISABLE TRIGGER grace_audit_records_append_only")
    factory.execute_raw(
        "UPDATE grace_audit_records SET record_json = replace(record_json, '\"turn\":1', '\"turn\":7') WHERE seq = 1"
    )
    status = service.client.get(f"/v1/operator/conversations/{cid}/audit/verify", headers=service.headers).json()
    assert status["ok"] is False
    assert status["code"] == "audit.hash_mismatch"
    assert status["failed_seq"] == 0


def test_verify_detects_a_dropped_tail(factory: StoreFactory, service: Service) -> None:
    cid = service.start()
    service.turn(cid, "budget 80000 EUR")
    service.turn(cid, "hello again")
    if factory.backend == "sqlite":
        factory.execute_raw("DROP TRIGGER grace_audit_records_no_delete")
    else:
        factory.execute_raw("ALTER TABLE grace_audit_records DISABLE TRIGGER grace_audit_records_append_only")
    factory.execute_raw("DELETE FROM grace_audit_records WHERE seq = 2")
    status = service.client.get(f"/v1/operator/conversations/{cid}/audit/verify", headers=service.headers).json()
    assert (status["ok"], status["code"]) == (False, "audit.truncated")


def test_goal_specs_and_rule_bundles(service: Service) -> None:
    specs = service.client.get("/v1/operator/goal-specs", headers=service.headers).json()["goal_specs"]
    assert [(s["ref"], s["id"], s["version"], s["title"]) for s in specs] == [("test-spec/v1", "test-spec", 1, "Test")]
    assert specs[0]["content_hash"].startswith("sha256:")
    bundles = service.client.get("/v1/operator/rule-bundles", headers=service.headers).json()["rule_bundles"]
    bundle = service.catalog.bundle
    assert bundle is not None
    assert [(b["version"], b["content_hash"]) for b in bundles] == [(bundle.version, bundle.content_hash)]
    assert "policy.json" in bundles[0]["files"] or any(f.startswith("policy") for f in bundles[0]["files"])


def test_visitor_endpoints_need_no_operator_token(service: Service) -> None:
    cid = service.start()
    assert service.turn(cid, "hello").status_code == 200
    assert service.client.get(f"/v1/conversations/{cid}", headers=service.visitor(cid)).status_code == 200


def test_unknown_conversation_on_operator_endpoints(service: Service) -> None:
    for suffix in ("", "/audit", "/audit/verify"):
        response = service.client.get(f"/v1/operator/conversations/nope{suffix}", headers=service.headers)
        assert (response.status_code, response.json()["error"]["code"]) == (404, "conversation.not_found")
