"""Service tests run on SQLite and, when GRACE_TEST_POSTGRES_URL is set, on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.kernel.goal_models import PublishedGoalSpec
from engine.rules.loader import RuleBundle
from tests.service.helpers import AUDIT_KEY, Service, make_service
from tests.storage.backends import BACKENDS, StoreFactory


@pytest.fixture(params=BACKENDS)
def factory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreFactory]:
    made = StoreFactory(request.param, tmp_path)
    yield made
    made.cleanup()


@pytest.fixture
def service(factory: StoreFactory, bundle: RuleBundle, published_spec: PublishedGoalSpec) -> Service:
    return make_service(factory.open(AUDIT_KEY), bundle, published_spec)
