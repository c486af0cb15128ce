"""Readiness: what ``/ready`` checks, and the warm-up that loads every model before a worker takes traffic.

Liveness (``/health``) only says the process answers. Readiness says a turn sent here now would be served at
full speed: the store answers, the rule bundle was verified (its Z3 properties proved) and every goal's models
are loaded, and the server is not draining for shutdown. A load balancer routes to ready workers only.

The warm-up runs one throw-away turn per goal and language on an in-memory store: it loads each language's
analyzers, the embedder and the solver encodings, which otherwise stall the first visitors' turns. A proposer
that builds resources on first use (the offline proposer's gazetteer and per-language patterns, which one
sample turn does not reach) is asked to build them too: with several workers every process pays each cold
start, and those turns were the tail of the load benchmark's first step (a fresh worker's first turns took
130-365 ms against 10-40 ms warm).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import structlog

from engine.errors import GraceError
from engine.service.catalog import Catalog, ServedGoal
from engine.service.engine_thread import ENGINE, EngineThread
from engine.storage.base import DurableStore
from engine.storage.memory import InMemoryStore

log = structlog.get_logger("engine.service.readiness")


@dataclass(frozen=True)
class Readiness:
    ready: bool
    checks: dict[str, bool]
    code: str | None = None  # the first failing check's stable code
    message: str | None = None


def _sample_text(goal: ServedGoal) -> str:
    """A company text the answerer can retrieve (a passage title), else the goal's own title."""
    answerer: Any = goal.runtime.answerer
    inner = getattr(answerer, "inner", answerer)
    corpus = getattr(getattr(inner, "retriever", None), "corpus", None)
    passages = getattr(corpus, "passages", ())
    for passage in passages:
        if getattr(passage, "title", "").strip():
            return f"{passage.title}?"
    return f"{goal.published.spec.title}?"


def warm_up(catalog: Catalog, engine: EngineThread = ENGINE) -> float:
    """One turn per goal and language on a throw-away in-memory store; returns the milliseconds it took.
    Must run before the server accepts requests: it swaps each runtime's store for the duration."""
    started = time.perf_counter()
    for goal in catalog.goals:
        runtime = goal.runtime
        proposer_warm_up = getattr(runtime.proposer, "warm_up", None)
        if callable(proposer_warm_up):
            proposer_warm_up(goal.published)
        durable = runtime.store
        runtime.store = InMemoryStore()
        try:
            for language in goal.published.spec.languages:
                state = runtime.start(language=language)
                runtime.handle(state.conversation_id, _sample_text(goal), decide_on=engine.run)
        finally:
            runtime.store = durable
    ms = (time.perf_counter() - started) * 1000
    log.info("service.warm_up.done", goals=len(catalog.goals), ms=round(ms, 1))
    return ms


def readiness(*, store: DurableStore, catalog: Catalog, warmed: bool, draining: bool) -> Readiness:
    checks = {"not_draining": not draining, "models_loaded": warmed, "rules_verified": catalog.bundle is not None}
    store_error: GraceError | None = None
    try:
        store.ping()
        checks["store_reachable"] = True
    except GraceError as exc:
        checks["store_reachable"] = False
        store_error = exc
    if draining:
        return Readiness(False, checks, "service.draining", "shutting down: finishing in-flight turns")
    if store_error is not None:
        return Readiness(False, checks, "service.store_unreachable", "the conversation store does not answer")
    if not checks["rules_verified"]:
        return Readiness(False, checks, "service.rules_unverified", "no verified rule bundle is loaded")
    if not warmed:
        return Readiness(False, checks, "service.warming", "models are still loading")
    return Readiness(True, checks)
