"""The turn route validates and encodes its reply on its own thread (engine/service/replies.ModelReply) instead
of FastAPI's second hop to the thread pool: held to FastAPI's own serialisation of the route's response model,
byte for byte, and to the same refusal of an invalid reply."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from fastapi.exceptions import ResponseValidationError
from fastapi.routing import APIRoute, serialize_response
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.service.replies import ModelReply
from engine.service.schemas import TurnResponse
from tests.service.helpers import Service

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
CITATION = st.fixed_dictionaries({"label": TEXT, "quote": TEXT, "source": TEXT, "passage_id": TEXT})
ANSWER = st.fixed_dictionaries({"text": TEXT, "supported": st.booleans(), "citations": st.lists(CITATION, max_size=2)})
JUNK = st.none() | st.integers() | st.floats(allow_nan=False) | TEXT | st.lists(st.integers(0, 1), max_size=3)
FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "conversation_id": TEXT, "turn": st.integers(0, 10**6), "state": st.text("01", max_size=6),
    "bits": st.lists(st.integers(0, 1), max_size=6), "action": TEXT, "question": st.none() | TEXT,
    "answer": ANSWER, "response_text": TEXT, "fail_closed": st.none() | TEXT, "stopped": st.booleans(),
    "choices": st.lists(TEXT, max_size=3), "completed": st.booleans(), "record_seq": st.none() | st.integers(1, 99),
}


@st.composite
def replies(draw: st.DrawFn) -> dict[str, Any]:
    """Mostly valid replies (with the route's extra keys, as the stored visitor view has), some missing or
    mistyped fields."""
    content = {name: draw(strategy) for name, strategy in FIELDS.items()}
    for name in draw(st.lists(st.sampled_from(sorted(FIELDS)), max_size=2)):
        if draw(st.booleans()):
            content.pop(name, None)
        else:
            content[name] = draw(JUNK)
    content.update(draw(st.dictionaries(st.sampled_from(["notice", "closing", "extra"]), TEXT, max_size=2)))
    return content


def _route_field() -> Any:
    route = APIRoute("/turns", endpoint=lambda: None, response_model=TurnResponse, methods=["POST"])
    return route.response_field


def _fastapi(content: dict[str, Any]) -> bytes | list[Any]:
    """What FastAPI answers for a sync route returning ``content``: its bytes or its validation errors."""
    try:
        return asyncio.run(serialize_response(field=_route_field(), response_content=content, is_coroutine=False,
                                              dump_json=True))
    except ResponseValidationError as exc:
        return list(exc.errors())


def _ours(content: dict[str, Any]) -> bytes | list[Any]:
    try:
        return ModelReply(TurnResponse).body(content)
    except ResponseValidationError as exc:
        return list(exc.errors())


@settings(max_examples=150, deadline=None)
@given(content=replies())
def test_model_reply_is_fastapis_serialisation(content: dict[str, Any]) -> None:
    assert _ours(content) == _fastapi(content)


@pytest.mark.parametrize("factory", ["sqlite"], indirect=True)
def test_turn_route_answers_fastapis_bytes_and_marks_replays(service: Service) -> None:
    cid = service.start()
    first = service.turn(cid, "hello there", key="k-1")
    again = service.turn(cid, "hello there", key="k-1")
    assert first.status_code == again.status_code == 200
    assert first.headers["content-type"] == "application/json"
    assert "idempotent-replayed" not in first.headers
    assert again.headers["idempotent-replayed"] == "true"
    assert first.content == again.content == _fastapi(json.loads(first.content))
    assert first.headers["content-length"] == str(len(first.content))
