"""Visitor flow: create a conversation, post turns, read the state; answers carry citations."""

from __future__ import annotations

from tests.service.helpers import Service


def test_create_conversation_for_a_published_goal(service: Service) -> None:
    response = service.client.post("/v1/conversations", json={"goal": "test-spec", "language": "es"})
    assert response.status_code == 201
    body = response.json()
    assert body["goal_ref"] == "test-spec/v1"
    assert body["language"] == "es"
    assert body["state"] == "0000"
    assert [o["id"] for o in body["objectives"]] == ["budget", "location", "notes", "contact"]
    assert service.store.load(body["conversation_id"]).goal_ref == "test-spec/v1"


def test_goal_can_be_named_by_ref_or_alias(service: Service) -> None:
    for goal in ("test-spec/v1", "test"):
        assert service.client.post("/v1/conversations", json={"goal": goal}).status_code == 201


def test_unknown_goal_and_language_are_refused(service: Service) -> None:
    missing = service.client.post("/v1/conversations", json={"goal": "nope"})
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "goal.not_found")
    language = service.client.post("/v1/conversations", json={"goal": "test-spec", "language": "fr"})
    assert (language.status_code, language.json()["error"]["code"]) == (400, "input.language")
    assert service.store.list_conversations() == []


def test_turn_returns_state_question_and_answer(service: Service) -> None:
    cid = service.start()
    response = service.turn(cid, "My budget is 250000 EUR. Do you work downtown?")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["turn"] == 1
    assert body["state"] == "1000"
    assert body["bits"] == [1, 0, 0, 0]
    assert body["action"].startswith("ASK(")
    assert body["question"]
    assert body["answer"]["text"] == "We work in the whole city."
    # What a person is shown first (the label), then the machine references (not for display).
    assert body["answer"]["citations"] == [
        {
            "label": "Service areas › Where do you work?",
            "quote": "We work in the whole city.",
            "source": "areas.md",
            "passage_id": "areas.md#where-do-you-work",
        }
    ]
    assert body["response_text"] == f"We work in the whole city.\n\n{body['question']}"
    assert body["fail_closed"] is None
    assert body["record_seq"] == 0


def test_state_accumulates_over_turns_and_is_readable(service: Service) -> None:
    cid = service.start()
    service.turn(cid, "budget 90000 EUR")
    second = service.turn(cid, "write to ana@example.org").json()
    assert second["state"] == "1001"
    view = service.client.get(f"/v1/conversations/{cid}", headers=service.visitor(cid))
    assert view.status_code == 200
    body = view.json()
    assert (body["turn"], body["state"]) == (2, "1001")
    assert [(m["role"], m["turn"]) for m in body["messages"]] == [
        ("visitor", 1),
        ("assistant", 1),
        ("visitor", 2),
        ("assistant", 2),
    ]
    assert body["messages"][2]["text"] == "write to ana@example.org"


def test_unknown_conversation_is_404(service: Service) -> None:
    unknown = service.visitor("doesnotexist")
    for response in (service.turn("doesnotexist", "hello"),
                     service.client.get("/v1/conversations/doesnotexist", headers=unknown)):
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "conversation.not_found"


def test_health_reports_backend_and_goals(service: Service) -> None:
    body = service.client.get("/healthz").json()
    assert body == {"status": "ok", "store": service.store.backend, "goals": ["test-spec/v1"]}
