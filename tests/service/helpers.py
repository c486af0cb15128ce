"""A small service under test: the real TurnRuntime, decision layer, audit chain and durable store, with a
tiny exact proposer and a fixed company answerer standing in for the offline NLU and the retrieval index."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient

from engine.handoff.config import HandoffConfig
from engine.kernel.commands import Command, Complete, Span
from engine.kernel.goal_models import PublishedGoalSpec
from engine.kernel.ports import Answerer, Citation, GroundedAnswer, Proposal, Proposer, ProposerInput
from engine.kernel.turn_context import TurnContext
from engine.leads.notifier import LeadNotifier
from engine.rules.loader import RuleBundle
from engine.service.app import create_app
from engine.service.catalog import Catalog
from engine.service.catalog_build import GoalSource, build_catalog
from engine.service.config import ServiceConfig
from engine.service.engine_thread import ENGINE, EngineThread
from engine.service.limits import ServiceLimits, load_limits
from engine.storage.base import DurableStore

TOKEN = "operator-token-for-tests-0123456789"
# A second long-lived engine thread for the "other process" in race tests: the first engine thread is
# blocked inside the proposer hook while the other service commits. Never shut down (see engine_thread).
OTHER_ENGINE = EngineThread("grace-engine-other")
AUDIT_KEY = b"service-test-audit-key-32-bytes!"

EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
AMOUNT = re.compile(r"(\d{4,})\s*EUR")


class ScriptProposer:
    """Finds e-mail addresses and 'N EUR' amounts; ``hook`` runs inside propose (to inject races)."""

    name = "service-test"
    version = "1"

    def __init__(self, hook: Callable[[ProposerInput], None] | None = None) -> None:
        self.hook = hook
        self.calls = 0

    def propose(self, request: ProposerInput) -> Proposal:
        self.calls += 1
        if self.hook is not None:
            self.hook(request)
        text, turn = request.message.text, request.turn
        commands: list[Command] = []
        for match in EMAIL.finditer(text):
            span = Span(turn=turn, start=match.start(), end=match.end(), quote=match.group(0))
            commands.append(Complete(objective="contact", value=match.group(0), span=span))
        for match in AMOUNT.finditer(text):
            span = Span(turn=turn, start=match.start(), end=match.end(), quote=match.group(0))
            commands.append(Complete(objective="budget", value=f"{match.group(1)} EUR", span=span))
        return Proposal(commands=commands, adapter=self.name, adapter_version=self.version)


class FixedAnswerer:
    """Answers any message with a question mark from one fixed company passage."""

    def answer(self, message: str, language: str, history: Sequence[str] = (),
               context: TurnContext | None = None) -> GroundedAnswer:
        if "?" not in message:
            return GroundedAnswer()
        return GroundedAnswer(
            text="We work in the whole city.",
            citations=[
                Citation(
                    source="areas.md",
                    passage_id="areas.md#where-do-you-work",
                    quote="We work in the whole city.",
                    label="Service areas › Where do you work?",
                )
            ],
            supported=True,
            is_question=True,
        )


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Service:
    app: FastAPI
    client: TestClient
    store: DurableStore
    catalog: Catalog
    proposer: ScriptProposer
    clock: FakeClock
    headers: dict[str, str] = field(default_factory=lambda: {"Authorization": f"Bearer {TOKEN}"})
    tokens: dict[str, str] = field(default_factory=dict)  # conversation id -> visitor token

    def visitor(self, cid: str) -> dict[str, str]:
        """The visitor's capability header for ``cid`` (a made-up token for an id this service never created)."""
        return {"X-Visitor-Token": self.tokens.get(cid, "not-a-token")}

    def start(self, goal: str = "test-spec", language: str | None = None) -> str:
        body: dict[str, Any] = {"goal": goal}
        if language:
            body["language"] = language
        response = self.client.post("/v1/conversations", json=body)
        assert response.status_code == 201, response.text
        cid: str = response.json()["conversation_id"]
        self.tokens[cid] = response.json()["visitor_token"]
        return cid

    def turn(self, cid: str, message: str, key: str | None = None) -> Any:
        headers = {"Idempotency-Key": key} if key else {}
        headers.update(self.visitor(cid))
        return self.client.post(f"/v1/conversations/{cid}/turns", json={"message": message}, headers=headers)


def generous_limits(**overrides: Any) -> ServiceLimits:
    data = {
        "version": "1.0.0",
        "description": "tests",
        "max_body_bytes": 32768,
        "idempotency_key_max_chars": 128,
        "turn_commit_attempts": 5,
        "turn_workers": 4,
        "rate_limits": {
            name: {"capacity": 100000, "refill_per_second": 1000.0}
            for name in ("visitor_turn", "visitor_create", "visitor_read", "operator")
        },
        "rate_limit_max_clients": 1000,
        "console_page_size": 100,
        "shutdown_grace_s": 30,
        "freeze_heap_after_warm_up": False,  # test processes build many services
        "slow_commit_log_ms": 250,
        "switch_interval_ms": 5,  # CPython's default: test processes are not serving processes
    }
    data.update(overrides)
    return ServiceLimits.from_dict(data)


def make_service(
    store: DurableStore,
    bundle: RuleBundle,
    spec: PublishedGoalSpec,
    *,
    limits: ServiceLimits | None = None,
    proposer: ScriptProposer | None = None,
    cors: tuple[str, ...] = (),
    engine: EngineThread | None = None,
    notifier: LeadNotifier | None = None,
    config: ServiceConfig | None = None,
    handoff: dict[str, HandoffConfig] | None = None,
    understanding: Proposer | None = None,
    answerer: Answerer | None = None,
) -> Service:
    """``understanding``/``answerer``: real components (the offline proposer, a demo's answerer) in place of the
    script proposer and the fixed answerer, for scripted conversations in the visitor's own words."""
    proposer = proposer or ScriptProposer()
    catalog = build_catalog(
        store=store,
        bundle=bundle,
        proposer=understanding or proposer,
        goals=[GoalSource(spec, answerer or FixedAnswerer(), aliases=("test",))],
        audit_key=AUDIT_KEY,
    )
    clock = FakeClock()
    config = config or ServiceConfig(operator_token=TOKEN, limits=limits or generous_limits(), cors_origins=cors)
    app = create_app(
        config=config, store=store, catalog=catalog, audit_key=AUDIT_KEY, clock=clock, engine=engine or ENGINE,
        notifier=notifier, handoff=handoff,
    )
    client = TestClient(app, raise_server_exceptions=False)
    return Service(app, client, store, catalog, proposer, clock)


__all__ = ["AUDIT_KEY", "TOKEN", "Service", "generous_limits", "load_limits", "make_service"]
