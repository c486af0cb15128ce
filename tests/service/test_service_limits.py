"""Rate limits (token buckets on an injected clock), CORS, and the limits file's own validation."""

from __future__ import annotations

import json

import pytest

from engine.kernel.goal_models import PublishedGoalSpec
from engine.rules.loader import RuleBundle
from engine.service.errors import LimitsError
from engine.service.limits import DEFAULT_LIMITS, ServiceLimits, load_limits
from engine.service.ratelimit import RateLimiter
from tests.service.helpers import Service, generous_limits, make_service
from tests.storage.backends import StoreFactory


def limited_service(factory: StoreFactory, bundle: RuleBundle, spec: PublishedGoalSpec, **buckets: object) -> Service:
    base = json.loads(DEFAULT_LIMITS.read_text())["rate_limits"]
    for name in base:
        base[name] = {"capacity": 1000, "refill_per_second": 100.0}
    base.update(buckets)
    return make_service(factory.open(), bundle, spec, limits=generous_limits(rate_limits=base))


def test_turns_are_rate_limited_per_client(
    factory: StoreFactory, bundle: RuleBundle, published_spec: PublishedGoalSpec
) -> None:
    service = limited_service(factory, bundle, published_spec, visitor_turn={"capacity": 3, "refill_per_second": 0.5})
    cid = service.start()
    assert [service.turn(cid, f"hello {i}").status_code for i in range(3)] == [200, 200, 200]
    refused = service.turn(cid, "one too many")
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate.limited"
    assert refused.headers["Retry-After"] == "2"
    assert service.store.load(cid).turn == 3  # the refused turn wrote nothing
    service.clock.now += 2.0
    assert service.turn(cid, "after waiting").status_code == 200


def test_operator_calls_are_limited_too(
    factory: StoreFactory, bundle: RuleBundle, published_spec: PublishedGoalSpec
) -> None:
    service = limited_service(factory, bundle, published_spec, operator={"capacity": 2, "refill_per_second": 1.0})
    codes = [service.client.get("/v1/operator/goal-specs", headers=service.headers).status_code for _ in range(3)]
    assert codes == [200, 200, 429]


def test_limiter_refills_and_caps_at_capacity() -> None:
    now = [0.0]
    limits = generous_limits().rate_limits
    limits["visitor_turn"] = type(limits["visitor_turn"])(capacity=2, refill_per_second=1.0)
    limiter = RateLimiter(limits, max_clients=10, clock=lambda: now[0])
    limiter.check("visitor_turn", "a")
    limiter.check("visitor_turn", "a")
    limiter.check("visitor_turn", "b")  # clients are independent
    now[0] = 100.0  # a long pause refills only up to capacity
    limiter.check("visitor_turn", "a")
    limiter.check("visitor_turn", "a")
    with pytest.raises(Exception, match="too many"):
        limiter.check("visitor_turn", "a")


def test_limiter_forgets_least_recent_clients_beyond_the_bound() -> None:
    limiter = RateLimiter(generous_limits().rate_limits, max_clients=3, clock=lambda: 0.0)
    for client in "abcdef":
        limiter.check("visitor_turn", client)
    assert len(limiter._state) == 3


def test_cors_allows_only_configured_origins(
    factory: StoreFactory, bundle: RuleBundle, published_spec: PublishedGoalSpec
) -> None:
    service = make_service(factory.open(), bundle, published_spec, cors=("https://shop.example",))
    preflight = service.client.options(
        "/v1/conversations/abc/turns",
        headers={
            "Origin": "https://shop.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type,idempotency-key",
        },
    )
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == "https://shop.example"
    assert "idempotency-key" in preflight.headers["access-control-allow-headers"].lower()
    allowed = service.client.post(
        "/v1/conversations", json={"goal": "test"}, headers={"Origin": "https://shop.example"}
    )
    assert allowed.headers["access-control-allow-origin"] == "https://shop.example"
    other = service.client.post("/v1/conversations", json={"goal": "test"}, headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in other.headers


def test_no_cors_headers_by_default(service: Service) -> None:
    response = service.client.post("/v1/conversations", json={"goal": "test"}, headers={"Origin": "https://x.example"})
    assert "access-control-allow-origin" not in response.headers


def test_committed_limits_file_is_valid() -> None:
    limits = load_limits()
    assert isinstance(limits, ServiceLimits)
    assert limits.max_body_bytes > 0


@pytest.mark.parametrize(
    "patch",
    [{"max_body_bytes": 0}, {"rate_limits": {}}, {"version": "one"}, {"unexpected": 1}, {"turn_commit_attempts": 0}],
)
def test_invalid_limits_are_refused(patch: dict[str, object]) -> None:
    data = json.loads(DEFAULT_LIMITS.read_text())
    data.update(patch)
    with pytest.raises(LimitsError) as info:
        ServiceLimits.from_dict(data)
    assert info.value.code == "service.limits_invalid"
