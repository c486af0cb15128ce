"""kill -9 of the HTTP service at random points while clients post turns, then a consistency check.

CI size: 3 kills with 4 clients on SQLite (and 2 on PostgreSQL when GRACE_TEST_POSTGRES_URL is set), seeded;
``grace bench crash --kills 10`` (or GRACE_CRASH_KILLS here) runs more.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from benchmarks.crash_bench import Outcome, check, crash_run
from tests.support.embeddings import link_embeddings

KILLS = int(os.environ.get("GRACE_CRASH_KILLS", "3"))
POSTGRES_URL = os.environ.get("GRACE_TEST_POSTGRES_URL", "")
pytestmark = pytest.mark.slow  # real server processes killed at random points: seconds per kill


def test_sqlite_survives_kill_9(tmp_path: Path, shared_embeddings: Path) -> None:
    link_embeddings(tmp_path, shared_embeddings)  # restarts already reuse it; the first start too
    outcome = crash_run("sqlite", f"sqlite:///{tmp_path / 'grace.db'}", tmp_path, kills=KILLS, clients=4,
                        seed=20261201, min_gap=1.0, max_gap=3.0)
    print(outcome.render())
    assert outcome.kills == KILLS and outcome.acknowledged > 0
    assert outcome.consistent, outcome.render()


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES_URL, reason="GRACE_TEST_POSTGRES_URL is not set")
def test_postgres_survives_kill_9(tmp_path: Path, shared_embeddings: Path) -> None:
    link_embeddings(tmp_path, shared_embeddings)
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


def _fake_service(state: dict[str, Any], ok: bool, records: int) -> httpx.Client:
    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/audit/verify"):
            return httpx.Response(200, json={"ok": ok, "code": None if ok else "audit.chain_broken"})
        if request.url.path.endswith("/audit"):
            return httpx.Response(200, json={"records": [{}] * records})
        return httpx.Response(200, json={"state": state})

    return httpx.Client(base_url="http://test", transport=httpx.MockTransport(handle))


def _state(*texts: str, assistant: int | None = None) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    for turn, text in enumerate(texts, start=1):
        messages.append({"role": "visitor", "turn": turn, "text": text})
        if assistant is None or turn <= assistant:
            messages.append({"role": "assistant", "turn": turn, "text": "ok"})
    return {"turn": len(texts), "messages": messages}


def test_the_consistency_check_can_fail() -> None:
    acknowledged = {"c1": {1: "a", 2: "b"}}
    good = Outcome("fake")
    check(_fake_service(_state("a", "b"), True, 2), acknowledged, good)
    assert good.consistent
    lost = Outcome("fake")
    check(_fake_service(_state("a"), True, 1), acknowledged, lost)
    assert lost.missing_turns == ["c1 turn 2"]
    broken = Outcome("fake")
    check(_fake_service(_state("a", "b"), False, 2), acknowledged, broken)
    assert broken.chain_failures
    half = Outcome("fake")
    check(_fake_service(_state("a", "b", assistant=1), True, 2), acknowledged, half)
    assert half.half_written
    twice = Outcome("fake")
    check(_fake_service(_state("a", "b", "b"), True, 3), acknowledged, twice)
    assert twice.duplicated == ["c1"]
