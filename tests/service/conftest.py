"""Service tests run on SQLite and, when GRACE_TEST_POSTGRES_URL is set, on PostgreSQL."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.bundle_loader import DEFAULT_RULES_DIR, RuleBundle, load_bundle
from engine.goals.models import PublishedGoalSpec
from tests.conftest import copy_core_rules
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


@pytest.fixture(scope="module")
def arc_bundle(tmp_path_factory: pytest.TempPathFactory) -> RuleBundle:
    """The core rule files plus the arc wording (the closing turn is worded from rules/arc)."""
    root = copy_core_rules(tmp_path_factory.mktemp("rules"))
    shutil.copytree(DEFAULT_RULES_DIR / "arc", root / "arc")
    shutil.copy(DEFAULT_RULES_DIR / "schemas" / "arc.schema.json", root / "schemas")
    return load_bundle(root, require_published=False)
