"""Helpers for the state-seal and erasure tests: a real turn runtime on a durable store, and raw SQL access
around the application (what an attacker with database access can do)."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from engine.demos import load_demo
from engine.kernel.turn import TurnRuntime
from engine.rules.loader import DEFAULT_RULES_DIR, RuleBundle, load_bundle
from engine.storage.base import DurableStore
from llm_adapters.offline import OfflineProposer
from tests.storage.backends import PG_URL, StoreFactory

AUDIT_KEY = b"seal-test-audit-key-0123456789ab"


@lru_cache(maxsize=1)
def full_bundle() -> RuleBundle:
    """The project's whole rule bundle (the demo spec's vocabularies and the offline proposer need it)."""
    return load_bundle(DEFAULT_RULES_DIR, require_published=False)


def demo_runtime(store: DurableStore, bundle: RuleBundle | None = None) -> TurnRuntime:
    bundle = bundle or full_bundle()
    return TurnRuntime(spec=load_demo("real-estate").spec, bundle=bundle,
                       proposer=OfflineProposer.from_bundle(bundle), answerer=None, store=store, audit_key=AUDIT_KEY)


def raw(factory: StoreFactory, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Parameterised SQL straight on the database (``?`` placeholders; translated for PostgreSQL)."""
    if factory.backend == "sqlite":
        import sqlite3

        with sqlite3.connect(factory.path) as conn:
            return conn.execute(sql, params).fetchall()
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True, options=f"-c search_path={factory.schema}") as conn:
        cursor = conn.execute(sql.replace("?", "%s").encode(), params)
        return cursor.fetchall() if cursor.description else []


def write_state(factory: StoreFactory, cid: str, state: dict[str, Any]) -> None:
    bits = "".join(str(b) for b in state["bits"])
    raw(factory, "UPDATE grace_conversations SET state_json = ?, state_bits = ?, turn = ? WHERE id = ?",
        (json.dumps(state, sort_keys=True, separators=(",", ":")), bits, state["turn"], cid))


def drop_append_only(factory: StoreFactory, table: str) -> None:
    if factory.backend == "sqlite":
        for suffix in ("no_update", "no_delete"):
            raw(factory, f"DROP TRIGGER IF EXISTS {table}_{suffix}")
    else:
        raw(factory, f"ALTER TABLE {table} DISABLE TRIGGER {table}_append_only")
