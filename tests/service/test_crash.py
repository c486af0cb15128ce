"""kill -9 of the HTTP service at random points while clients post turns, then a consistency check.

CI size: 3 kills with 4 clients on SQLite (and 2 on PostgreSQL when GRACE_TEST_POSTGRES_URL is set), seeded;
``grace bench crash --kills 10`` (or GRACE_CRASH_KILLS here) runs more.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from benchmarks.crash_bench import crash_run

KILLS = int(os.environ.get("GRACE_CRASH_KILLS", "3"))
POSTGRES_URL = os.environ.get("GRACE_TEST_POSTGRES_URL", "")


def test_sqlite_survives_kill_9(tmp_path: Path) -> None:
    outcome = crash_run("sqlite", f"sqlite:///{tmp_path / 'grace.db'}", tmp_path, kills=KILLS, clients=4,
                        seed=20261201, min_gap=1.0, max_gap=3.0)
    print(outcome.render())
    assert outcome.kills == KILLS and outcome.acknowledged > 0
    assert outcome.consistent, outcome.render()


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES_URL, reason="GRACE_TEST_POSTGRES_URL is not set")
def test_postgres_survives_kill_9(tmp_path: Path) -> None:
    from benchmarks.load_bench import _drop_schema, _postgres_schema_url

    schema = f"grace_crash_{uuid.uuid4().hex[:12]}"
    url = _postgres_schema_url(POSTGRES_URL, schema)
    try:
        outcome = crash_run("postgres", url, tmp_path, kills=max(1, KILLS - 1), clients=4, seed=20261202,
                            min_gap=1.0, max_gap=3.0)
    finally:
        _drop_schema(POSTGRES_URL, schema)
    print(outcome.render())
    assert outcome.acknowledged > 0
    assert outcome.consistent, outcome.render()
