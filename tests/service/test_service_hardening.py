"""Issue 11 hardening of the HTTP service: the visitor capability, the rate limiter's client address, coded
400s for malformed requests, the OpenAPI statuses, hostile messages through the real offline proposer, and a
slow conversation that must not hold up the others."""

from __future__ import annotations

import socket
import threading
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.kernel.goal_models import PublishedGoalSpec
from engine.kernel.ports import ProposerInput
from engine.rules.loader import RuleBundle
from engine.service.app import create_app
from engine.service.catalog_build import GoalSource, build_catalog
from engine.service.config import ServiceConfig
from engine.service.visitor_access import token_hash
from engine.storage.sqlite import SQLiteStore
from tests.browser.live import LiveServer
from tests.core.test_turn_fail_closed import hostile
from tests.proposer.helpers import demo_spec, project_bundle, proposer
from tests.service.helpers import AUDIT_KEY, TOKEN, ScriptProposer, Service, generous_limits, make_service

# -- visitor capability ---------------------------------------------------------------------------------------------


def test_the_conversation_id_alone_grants_nothing(service: Service) -> None:
    cid = service.start()
    token = service.tokens[cid]
    assert len(token) >= 43  # 256 bits, URL-safe base64
    assert service.turn(cid, "budget 90000 EUR").status_code == 200

    for headers, status, code in (({}, 401, "visitor.token_missing"),
                                  ({"X-Visitor-Token": ""}, 401, "visitor.token_missing"),
                                  ({"X-Visitor-Token": token[:-1]}, 404, "conversation.not_found"),
                                  ({"X-Visitor-Token": token + "x"}, 404, "conversation.not_found")):
        read = service.client.get(f"/v1/conversations/{cid}", headers=headers)
        post = service.client.post(f"/v1/conversations/{cid}/turns", json={"message": "mail a@b.example"},
                                   headers=headers)
        for response in (read, post):
            assert (response.status_code, response.json()["error"]["code"]) == (status, code)
            assert "budget" not in response.text
    assert service.store.load(cid).turn == 1  # nothing was posted without the token

    other = service.start()  # another visitor's token opens only the other conversation
    foreign = service.client.get(f"/v1/conversations/{cid}", headers=service.visitor(other))
    assert foreign.status_code == 404
    assert service.client.get(f"/v1/conversations/{cid}", headers=service.visitor(cid)).status_code == 200


def test_only_the_token_hash_is_stored(service: Service) -> None:
    cid = service.start()
    token = service.tokens[cid]
    state = service.store.load(cid)
    assert state.visitor_key == token_hash(token)
    assert token not in state.model_dump_json()
    operator = service.client.get(f"/v1/operator/conversations/{cid}", headers=service.headers)
    assert token not in operator.text
    tokens = {service.client.post("/v1/conversations", json={"goal": "test"}).json()["visitor_token"]
              for _ in range(20)}
    assert len(tokens) == 20


# -- rate limiter key -----------------------------------------------------------------------------------------------


def _tight(factory: Any, bundle: RuleBundle, spec: PublishedGoalSpec, **config: Any) -> Service:
    limits = generous_limits(rate_limits={
        "visitor_turn": {"capacity": 100, "refill_per_second": 1.0},
        "visitor_create": {"capacity": 2, "refill_per_second": 0.001},
        "visitor_read": {"capacity": 100, "refill_per_second": 1.0},
        "operator": {"capacity": 100, "refill_per_second": 1.0},
    })
    service = make_service(factory.open(), bundle, spec, limits=limits)
    if config:
        catalog = service.catalog
        app = create_app(config=ServiceConfig(operator_token=TOKEN, limits=limits, **config), store=service.store,
                         catalog=catalog, audit_key=AUDIT_KEY, clock=service.clock)
        service.app, service.client = app, TestClient(app, raise_server_exceptions=False)
    return service


def test_forwarded_for_does_not_rekey_the_rate_limiter(
    factory: Any, bundle: RuleBundle, published_spec: PublishedGoalSpec
) -> None:
    service = _tight(factory, bundle, published_spec)
    codes = [service.client.post("/v1/conversations", json={"goal": "test"},
                                 headers={"X-Forwarded-For": f"10.0.0.{i}"}).status_code for i in range(4)]
    assert codes == [201, 201, 429, 429]


def test_forwarded_for_does_not_rekey_the_rate_limiter_behind_uvicorn(
    factory: Any, bundle: RuleBundle, published_spec: PublishedGoalSpec
) -> None:
    import httpx

    service = _tight(factory, bundle, published_spec)
    with LiveServer(service.app) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        codes = [client.post("/v1/conversations", json={"goal": "test"},
                             headers={"X-Forwarded-For": f"10.0.0.{i}"}).status_code for i in range(4)]
    assert codes == [201, 201, 429, 429]  # uvicorn's proxy headers are off: the loopback peer is the client


def test_trusted_proxy_keys_by_the_entry_it_appended(
    factory: Any, bundle: RuleBundle, published_spec: PublishedGoalSpec
) -> None:
    service = _tight(factory, bundle, published_spec, trust_forwarded=True)
    # the client controls everything left of the proxy's own entry
    spoofed = [service.client.post("/v1/conversations", json={"goal": "test"},
                                   headers={"X-Forwarded-For": f"10.0.0.{i}, 192.0.2.7"}).status_code for i in range(3)]
    assert spoofed == [201, 201, 429]
    other = service.client.post("/v1/conversations", json={"goal": "test"}, headers={"X-Forwarded-For": "192.0.2.8"})
    assert other.status_code == 201


# -- malformed requests and the documented statuses -----------------------------------------------------------------


@pytest.mark.parametrize("offset", ["99999999999999999999", "-1", "1e3", "x"])
def test_operator_offset_out_of_range_is_a_coded_400(service: Service, offset: str) -> None:
    response = service.client.get(f"/v1/operator/conversations?offset={offset}", headers=service.headers)
    assert (response.status_code, response.json()["error"]["code"]) == (400, "input.malformed")


@pytest.mark.parametrize(
    ("body", "content_type", "status", "code"),
    [(b"{", "application/json", 400, "input.malformed"), (b"[]", "application/json", 400, "input.malformed"),
     (b'{"message": 5}', "application/json", 400, "input.malformed"), (b"null", "application/json", 400,
                                                                       "input.malformed"),
     (b'{"message": "hi"}', "text/plain", 415, "input.unsupported_media_type"),
     (b"\xff\xfe", "application/json", 400, "input.binary")],
)
def test_malformed_bodies_get_coded_json(service: Service, body: bytes, content_type: str, status: int,
                                         code: str) -> None:
    cid = service.start()
    response = service.client.post(f"/v1/conversations/{cid}/turns", content=body,
                                   headers={"Content-Type": content_type, **service.visitor(cid)})
    assert (response.status_code, response.json()["error"]["code"]) == (status, code)


@pytest.mark.parametrize("raw", [b"GARBAGE\r\n\r\n", b"GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",
                                 b"GET /\x00 HTTP/1.1\r\n\r\n"])
def test_unparseable_http_gets_a_json_400(service: Service, raw: bytes) -> None:
    with LiveServer(service.app) as server, socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(raw)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400")
    assert b"content-type: application/json" in head.lower()
    assert body == b'{"error": {"code": "http.malformed", "message": "the HTTP request could not be parsed"}}'


def test_openapi_advertises_the_statuses_the_api_returns(service: Service) -> None:
    document = service.client.get("/openapi.json").json()
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            statuses = set(operation["responses"])
            assert "422" not in statuses, (method, path)
            if operation.get("parameters") or operation.get("requestBody"):
                assert "400" in statuses, (method, path)
    turn = document["paths"]["/v1/conversations/{conversation_id}/turns"]["post"]
    assert {"400", "401", "404", "409", "413", "415", "429", "500", "503"} <= set(turn["responses"])
    assert any(p["name"] == "X-Visitor-Token" for p in turn["parameters"])
    assert "HTTPValidationError" not in document["components"]["schemas"]


# -- hostile messages and slow conversations ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def offline_service(tmp_path_factory: pytest.TempPathFactory) -> Service:
    store = SQLiteStore(Path(tmp_path_factory.mktemp("hostile")) / "hostile.db")
    catalog = build_catalog(store=store, bundle=project_bundle(), proposer=proposer(),
                            goals=[GoalSource(demo_spec("re"), None, aliases=("re",))], audit_key=AUDIT_KEY)
    app = create_app(config=ServiceConfig(operator_token=TOKEN, limits=generous_limits()), store=store,
                     catalog=catalog, audit_key=AUDIT_KEY)
    return Service(app, TestClient(app, raise_server_exceptions=False), store, catalog, ScriptProposer(),
                   clock=None)  # type: ignore[arg-type]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(st.one_of(hostile(), st.text(max_size=300)))
def test_hostile_messages_through_the_service_never_give_a_500(offline_service: Service, text: str) -> None:
    service = offline_service
    cid = service.start("re")
    response = service.turn(cid, text)
    assert response.status_code in {200, 400, 413}, response.text
    body = response.json()
    if response.status_code != 200:
        assert body["error"]["code"].startswith("input.")
        return
    records = service.client.get(f"/v1/operator/conversations/{cid}/audit", headers=service.headers).json()
    fail_closed = records["records"][-1]["fail_closed"]
    assert fail_closed is None or not fail_closed["code"].endswith(".crashed"), fail_closed
    verify = service.client.get(f"/v1/operator/conversations/{cid}/audit/verify", headers=service.headers).json()
    assert verify["ok"] is True


def test_a_slow_conversation_does_not_hold_up_the_others(
    factory: Any, bundle: RuleBundle, published_spec: PublishedGoalSpec
) -> None:
    entered, release = threading.Event(), threading.Event()

    def hook(request: ProposerInput) -> None:
        if "slow" in request.message.text:
            entered.set()
            release.wait(timeout=60)

    service = make_service(factory.open(), bundle, published_spec, proposer=ScriptProposer(hook=hook))
    slow, fast = service.start(), service.start()
    results: dict[str, int] = {}
    worker = threading.Thread(target=lambda: results.update(slow=service.turn(slow, "slow budget 1000 EUR")
                                                            .status_code))
    worker.start()
    try:
        assert entered.wait(timeout=60)
        # the slow turn is inside its proposer; another conversation's turn completes meanwhile
        response = service.turn(fast, "budget 90000 EUR")
        assert response.status_code == 200 and response.json()["state"] == "1000"
        assert not release.is_set() and worker.is_alive()
    finally:
        release.set()
        worker.join(timeout=60)
    assert results == {"slow": 200}


def test_non_numeric_content_length_is_a_coded_400() -> None:
    import asyncio
    import json
    import threading

    from engine.service.middleware import BodyGuard

    async def app(scope: Any, receive: Any, send: Any) -> None:  # never reached
        raise AssertionError("the guard let a malformed request through")

    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/v1/conversations",
             "headers": [(b"content-length", b"12abc"), (b"content-type", b"application/json")]}
    # A thread of its own: an earlier test (the browser's sync API) may leave an event loop running on this one.
    errors: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(BodyGuard(app, max_body_bytes=1024)(scope, receive, send))
        except BaseException as exc:  # re-raised below, in the test's thread
            errors.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    if errors:
        raise errors[0]
    assert sent[0]["status"] == 400
    assert json.loads(sent[1]["body"])["error"]["code"] == "input.malformed"
