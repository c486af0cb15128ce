"""Idempotent turn submission and per-conversation ordering, including races between two service processes
sharing one database (simulated deterministically: the second service commits from inside the first one's
proposer call, i.e. exactly between the first one's load and its commit)."""

from __future__ import annotations

from typing import Any

import pytest

from engine.kernel.goal_models import PublishedGoalSpec
from engine.kernel.ports import ProposerInput
from engine.rules.loader import RuleBundle
from tests.service.helpers import OTHER_ENGINE, ScriptProposer, Service, make_service
from tests.storage.backends import StoreFactory


def test_retry_with_same_key_returns_first_response_without_second_transition(service: Service) -> None:
    cid = service.start()
    first = service.turn(cid, "budget 120000 EUR", key="k-1")
    again = service.turn(cid, "budget 120000 EUR", key="k-1")
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert "Idempotent-Replayed" not in first.headers
    assert service.store.load(cid).turn == 1
    assert len(service.store.records(cid)) == 1
    assert service.proposer.calls == 1


def test_stored_response_is_committed_with_the_turn(service: Service) -> None:
    cid = service.start()
    response = service.turn(cid, "budget 120000 EUR", key="k-stored").json()
    entry = service.store.idempotent(cid, "k-stored")
    assert entry is not None
    # quick replies and the handoff box are derived (stored response, pinned spec, the message and the company's
    # handoff data), not stored
    assert entry.response == {k: v for k, v in response.items() if k not in ("choices", "handoff")}
    assert entry.turn == 1


def test_same_key_with_another_message_is_409(service: Service) -> None:
    cid = service.start()
    service.turn(cid, "budget 120000 EUR", key="k-2")
    clash = service.turn(cid, "budget 999999 EUR", key="k-2")
    assert clash.status_code == 409
    assert clash.json()["error"]["code"] == "idempotency.key_reused"
    assert service.store.load(cid).turn == 1


def test_keys_are_scoped_to_a_conversation(service: Service) -> None:
    one, two = service.start(), service.start()
    assert service.turn(one, "budget 120000 EUR", key="shared").status_code == 200
    assert service.turn(two, "budget 130000 EUR", key="shared").json()["state"] == "1000"
    assert service.store.load(two).turn == 1


@pytest.mark.parametrize("key", ["", "x" * 129, "has space", "ñ"])
def test_invalid_keys_are_refused(service: Service, key: str) -> None:
    cid = service.start()
    headers = {"Idempotency-Key": key.encode("utf-8"), **service.visitor(cid)}  # type: ignore[dict-item]
    response = service.client.post(f"/v1/conversations/{cid}/turns", json={"message": "hi"}, headers=headers)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "idempotency.key_invalid"
    assert service.store.load(cid).turn == 0


def test_turns_without_key_each_count(service: Service) -> None:
    cid = service.start()
    service.turn(cid, "hello")
    service.turn(cid, "hello")
    assert service.store.load(cid).turn == 2


def _two_services(
    factory: StoreFactory, bundle: RuleBundle, spec: PublishedGoalSpec, hook: Any
) -> tuple[Service, Service]:
    """Two independent service instances (own runtimes, locks, limiters) on one database, like two processes."""
    other = make_service(factory.open(), bundle, spec, engine=OTHER_ENGINE)
    first = make_service(factory.open(), bundle, spec, proposer=ScriptProposer(hook=lambda req: hook(other, req)))
    other.tokens = first.tokens  # the same visitor, talking to either process
    return first, other


def test_concurrent_turn_from_another_process_is_not_lost(
    factory: StoreFactory, bundle: RuleBundle, published_spec: PublishedGoalSpec
) -> None:
    injected: list[int] = []

    def race(other: Service, request: ProposerInput) -> None:
        if not injected:  # only on the first attempt: commit a competing turn in between
            injected.append(request.turn)
            assert other.turn(request_cid[0], "write to eva@example.org", key="B").status_code == 200

    request_cid: list[str] = []
    first, _ = _two_services(factory, bundle, published_spec, race)
    request_cid.append(first.start())
    cid = request_cid[0]
    response = first.turn(cid, "budget 150000 EUR", key="A")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["turn"] == 2  # re-run on top of the competing turn, not over it
    assert body["state"] == "1001"  # both updates survived
    state = first.store.load(cid)
    assert [m.text for m in state.messages if m.role.value == "visitor"] == [
        "write to eva@example.org",
        "budget 150000 EUR",
    ]
    records = first.store.records(cid)
    assert [r["turn"] for r in records] == [1, 2]
    assert [r["seq"] for r in records] == [0, 1]
    status = first.client.get(f"/v1/operator/conversations/{cid}/audit/verify", headers=first.headers).json()
    assert status["ok"] is True, status


def test_same_key_racing_in_two_processes_makes_one_transition(
    factory: StoreFactory, bundle: RuleBundle, published_spec: PublishedGoalSpec
) -> None:
    replies: list[Any] = []

    def race(other: Service, request: ProposerInput) -> None:
        if not replies:
            replies.append(other.turn(cid_box[0], "budget 150000 EUR", key="same").json())

    cid_box: list[str] = []
    first, _ = _two_services(factory, bundle, published_spec, race)
    cid_box.append(first.start())
    cid = cid_box[0]
    response = first.turn(cid, "budget 150000 EUR", key="same")
    assert response.status_code == 200
    assert response.json() == replies[0]  # the loser returns the winner's response
    assert response.headers.get("Idempotent-Replayed") == "true"
    assert first.store.load(cid).turn == 1
    assert len(first.store.records(cid)) == 1


def test_retries_are_bounded_when_the_conversation_stays_busy(
    factory: StoreFactory, bundle: RuleBundle, published_spec: PublishedGoalSpec
) -> None:
    def always_race(other: Service, request: ProposerInput) -> None:
        other.turn(cid_box[0], "hello from elsewhere")

    cid_box: list[str] = []
    first, _ = _two_services(factory, bundle, published_spec, always_race)
    cid_box.append(first.start())
    response = first.turn(cid_box[0], "budget 150000 EUR", key="never")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "conversation.busy"
    attempts = first.app.state.submitter.attempts
    state = first.store.load(cid_box[0])
    assert state.turn == attempts  # only the competing turns were committed
    assert all(m.text == "hello from elsewhere" for m in state.messages if m.role.value == "visitor")
    assert first.store.idempotent(cid_box[0], "never") is None
