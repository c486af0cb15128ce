"""Fixtures: every storage test runs against SQLite and, when GRACE_TEST_POSTGRES_URL is set, PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engine.kernel.conversation import ConversationState
from engine.storage.base import DurableStore
from tests.storage.backends import BACKENDS, StoreFactory


@pytest.fixture(params=BACKENDS)
def factory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreFactory]:
    made = StoreFactory(request.param, tmp_path)
    yield made
    made.cleanup()


@pytest.fixture
def store(factory: StoreFactory) -> DurableStore:
    return factory.open()


@pytest.fixture
def make_state() -> Callable[..., ConversationState]:
    def make(conversation_id: str | None = None, **overrides: object) -> ConversationState:
        fields: dict[str, object] = {
            "conversation_id": conversation_id or uuid.uuid4().hex,
            "goal_ref": "demo-goal@v1",
            "goal_hash": "sha256:" + "a" * 64,
            "bundle_hash": "sha256:" + "b" * 64,
            "language": "en",
            "bits": [0, 0, 0, 0],
        }
        fields.update(overrides)
        return ConversationState.model_validate(fields)

    return make
