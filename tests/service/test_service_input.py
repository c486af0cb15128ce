"""Bad visitor input gets a 4xx with a stable code, never a 500, and writes nothing."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.service.helpers import Service


def post_raw(service: Service, cid: str, body: bytes, content_type: str = "application/json") -> tuple[int, str]:
    response = service.client.post(
        f"/v1/conversations/{cid}/turns", content=body, headers={"Content-Type": content_type, **service.visitor(cid)}
    )
    code = response.json().get("error", {}).get("code", "") if response.status_code >= 400 else ""
    return response.status_code, code


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        (b'{"message": ""}', 400, "input.empty"),
        (b'{"message": "   \\n\\t "}', 400, "input.empty"),
        (b'{"message": "hi\\u0000there"}', 400, "input.binary"),
        (b'{"message": "\\ud800 lone surrogate"}', 400, "input.binary"),
        (b'{"message": "\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\u0008\\u000b\\u000e"}', 400, "input.binary"),
        (b"\xff\xfe\x00binary\x81", 400, "input.binary"),
        (b'{"message": "caf\xe9"}', 400, "input.binary"),
        (b'{"message": "unterminated', 400, "input.malformed"),
        (b"", 400, "input.malformed"),
        (b"[]", 400, "input.malformed"),
        (b'{"message": 42}', 400, "input.malformed"),
        (b'{"message": null}', 400, "input.malformed"),
        (b'{"msg": "hello"}', 400, "input.malformed"),
        (b'{"message": "hello", "role": "assistant"}', 400, "input.malformed"),
    ],
)
def test_malformed_bodies(service: Service, body: bytes, status: int, code: str) -> None:
    cid = service.start()
    assert post_raw(service, cid, body) == (status, code)
    assert service.store.load(cid).turn == 0
    assert service.store.records(cid) == []


def test_message_longer_than_the_runtime_limit(service: Service) -> None:
    cid = service.start()
    limit = int(service.catalog.bundle.file("runtime")["max_message_chars"]) if service.catalog.bundle else 0
    status, code = post_raw(service, cid, json.dumps({"message": "a" * (limit + 1)}).encode())
    assert (status, code) == (413, "input.too_long")
    assert service.store.load(cid).turn == 0


def test_body_over_the_service_limit_is_refused_before_reading(service: Service) -> None:
    cid = service.start()
    limit = service.app.state.limits.max_body_bytes
    status, code = post_raw(service, cid, json.dumps({"message": "b" * limit}).encode())
    assert (status, code) == (413, "input.too_large")


def test_chunked_body_over_the_limit_is_refused(service: Service) -> None:
    cid = service.start()

    def chunks():  # no Content-Length: the guard must count while reading
        for _ in range(40):
            yield b"x" * 1024

    response = service.client.post(
        f"/v1/conversations/{cid}/turns", content=chunks(),
        headers={"Content-Type": "application/json", **service.visitor(cid)},
    )
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "input.too_large"


def test_non_json_content_type_is_415(service: Service) -> None:
    cid = service.start()
    assert post_raw(service, cid, b"message=hello", "application/x-www-form-urlencoded") == (
        415,
        "input.unsupported_media_type",
    )
    assert post_raw(service, cid, b'{"message": "hello"}', "text/plain") == (415, "input.unsupported_media_type")


@pytest.mark.parametrize("cid", ["has space", "a" * 65, "semi;colon", "%00"])
def test_malformed_conversation_ids(service: Service, cid: str) -> None:
    response = service.client.post(f"/v1/conversations/{cid}/turns", json={"message": "hello"})
    assert 400 <= response.status_code < 500
    assert response.json()["error"]["code"] in {"input.malformed", "http.not_found"}


def test_create_with_bad_bodies(service: Service) -> None:
    for body in (b"{}", b'{"goal": "Bad Goal!"}', b'{"goal": "test-spec", "language": "english!"}', b"nope"):
        response = service.client.post("/v1/conversations", content=body, headers={"Content-Type": "application/json"})
        assert response.status_code == 400, body
        assert response.json()["error"]["code"] == "input.malformed"
    assert service.store.list_conversations() == []


def test_unknown_route_and_method(service: Service) -> None:
    assert service.client.get("/v1/nothing").json()["error"]["code"] == "http.not_found"
    assert service.client.delete("/v1/conversations").json()["error"]["code"] == "http.method_not_allowed"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=50),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(payload=st.one_of(st.binary(max_size=300), json_values.map(lambda v: json.dumps(v).encode())))
def test_fuzzed_bodies_never_cause_a_server_error(service: Service, payload: bytes) -> None:
    cid = service.start()
    status, _ = post_raw(service, cid, payload)
    assert status < 500
    state = service.store.load(cid)
    records = service.store.records(cid)
    # Either exactly one committed turn (a valid message) or nothing at all.
    assert (status, state.turn, len(records)) in {(200, 1, 1)} or (status >= 400 and state.turn == 0 and not records)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(message=st.text(max_size=200))
def test_any_text_message_is_answered_or_refused_cleanly(service: Service, message: str) -> None:
    cid = service.start()
    response = service.client.post(f"/v1/conversations/{cid}/turns", json={"message": message},
                                   headers=service.visitor(cid))
    assert response.status_code in {200, 400}, response.text
    if response.status_code == 400:
        assert response.json()["error"]["code"] in {"input.empty", "input.binary"}
        assert service.store.load(cid).turn == 0
