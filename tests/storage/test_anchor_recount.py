"""The PostgreSQL rollback check reads the anchor before it recounts the log (spec/adr/0007). Row locks are per
conversation: another thread or worker of the host may commit, and raise the anchor, after this transaction's
locked read. Seen as a false store.rollback_detected in `grace bench crash --backend postgres` before the recount."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.errors import IntegrityError
from engine.storage.postgres import PostgresStore
from tests.storage.backends import PG_URL, StoreFactory

pytestmark = pytest.mark.skipif(not PG_URL, reason="GRACE_TEST_POSTGRES_URL is not set")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[PostgresStore]:
    factory = StoreFactory("postgres", tmp_path)
    opened = factory.open(anchor=True)
    assert isinstance(opened, PostgresStore) and opened.anchor is not None
    opened.anchor.advance(5)
    opened.anchor.flush()
    yield opened
    factory.cleanup()


def test_a_commit_after_the_locked_read_is_no_rollback(store: PostgresStore) -> None:
    calls: list[int] = []
    store.check_anchor(3, lambda: calls.append(5) or 5)
    assert calls == [5]  # consulted because the locked read (3) was below the anchor (5)


def test_a_log_still_short_after_the_recount_is_a_rollback(store: PostgresStore) -> None:
    with pytest.raises(IntegrityError) as refused:
        store.check_anchor(3, lambda: 4)
    assert refused.value.code == "store.rollback_detected"


def test_a_current_locked_read_needs_no_recount(store: PostgresStore) -> None:
    def never() -> int:
        raise AssertionError("recounted although the locked read was current")

    store.check_anchor(5, never)
    store.check_anchor(9, never)
