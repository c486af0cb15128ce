"""Replay: recorded LLM outputs re-decided offline, against the same or a new rule bundle."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from engine.goals.publication import spec_hash
from engine.kernel.conversation import Message, Role
from engine.kernel.goal_models import Criterion, CriterionKind, GoalSpec, Objective, PublishedGoalSpec
from engine.kernel.ports import ProposerInput
from llm_adapters.errors import LLMError, LLMOutputError, ReplayError
from llm_adapters.factory import adapter_from_settings
from llm_adapters.protocol import UtilityRequest
from llm_adapters.replay import Change, ReplayAdapter, replay_decisions
from tests.llm_adapters.llm_wire_harness import FAKE_KEY, WireServer, settings_for

MESSAGE = "I want a house in Vera with three bedrooms; my budget is 450.000 EUR."
RULES = Path(__file__).resolve().parents[2] / "rules"


def _objective(oid: str, kind: CriterionKind, question: str, weight: str, order: int,
               params: dict[str, Any] | None = None) -> Objective:
    return Objective(id=oid, name=oid.capitalize(), questions={"en": question},
                     criterion=Criterion(kind=kind, description=f"The visitor gives their {oid}.", params=params or {}),
                     weight=Decimal(weight), order=order)


@pytest.fixture
def runtime_spec() -> PublishedGoalSpec:
    goal = GoalSpec(id="replay-test", title="Replay test", default_language="en", languages=["en"], objectives=[
        _objective("budget", CriterionKind.MONEY, "What budget range do you have in mind?", "0.35", 1,
                   {"currency": "EUR"}),
        _objective("location", CriterionKind.PLACE, "Which area or city are you interested in?", "0.25", 2),
        _objective("requirements", CriterionKind.FREE_TEXT, "Which requirements are essential to you?", "0.2", 3),
        _objective("contact", CriterionKind.CONTACT, "Could you share an email address or phone number?", "0.2", 4),
    ])
    return PublishedGoalSpec(spec=goal, version=1, content_hash=spec_hash(goal), approved_by="test",
                             approved_at=datetime(2026, 1, 1, tzinfo=UTC))


def _live_proposal_record(spec: PublishedGoalSpec) -> tuple[dict[str, Any], Any]:
    server = WireServer("mistral", ["propose_ok"])
    adapter = adapter_from_settings(settings_for("mistral"), http_client=server.client(),
                                    environ={"MISTRAL_API_KEY": FAKE_KEY}, sleep=lambda _: None)
    request = ProposerInput(spec=spec, bits=[0, 0, 0, 0], language="en", turn=1,
                            message=Message(role=Role.VISITOR, turn=1, text=MESSAGE), history=[])
    proposal = adapter.propose(request)
    record = {"turn": 1, "language": "en", "llm_calls": json.loads(json.dumps(proposal.calls))}
    return record, (request, proposal)


def test_replay_reproduces_the_live_commands(spec: PublishedGoalSpec) -> None:
    record, (request, live) = _live_proposal_record(spec)
    replayed = ReplayAdapter([record]).propose(request)
    assert replayed.commands == live.commands
    assert replayed.malformed == live.malformed
    assert replayed.calls[0]["status"] == "replayed"
    assert replayed.calls[0]["response_hash"] == live.calls[0]["response_hash"]
    assert replayed.calls[0]["prompt_hash"] == live.calls[0]["prompt_hash"]  # same prompt: nothing drifted


def test_a_missing_recorded_output_fails_closed(spec: PublishedGoalSpec) -> None:
    record, (request, _) = _live_proposal_record(spec)
    record["llm_calls"][0]["output"] = None
    with pytest.raises(ReplayError) as info:
        ReplayAdapter([record]).propose(request)
    assert info.value.code == "llm.replay_missing"
    with pytest.raises(ReplayError):
        ReplayAdapter([{"turn": 1, "llm_calls": []}]).propose(request)


def test_a_recorded_failure_replays_as_the_same_failure(spec: PublishedGoalSpec) -> None:
    record, (request, _) = _live_proposal_record(spec)
    record["llm_calls"][0].update(error_code="llm.timeout", status="llm.timeout", output=None)
    with pytest.raises(LLMError) as info:
        ReplayAdapter([record]).propose(request)
    assert info.value.code == "llm.timeout"


def test_a_recorded_output_that_no_longer_validates_fails_closed(spec: PublishedGoalSpec) -> None:
    level = {"level": 1, "rationale": "r"}
    rating = {"objective": "location", "relevance": level, "burden": level, "repetition": level, "privacy": level}
    record = {"turn": 1, "llm_calls": [{"purpose": "rate_utility", "model": "m", "output": {"ratings": [rating]}}]}
    message = Message(role=Role.VISITOR, turn=1, text="hi")
    with pytest.raises(LLMOutputError) as info:  # the new request has another candidate set
        ReplayAdapter([record]).rate_utility(UtilityRequest(spec=spec, language="en", turn=1,
                                                            candidates=["location", "contact"], message=message))
    assert info.value.code == "llm.replay_invalid"


class _FakeTurn:
    def __init__(self, state: str, action: str, fail_closed: str | None) -> None:
        self.state, self.action, self.fail_closed = state, action, fail_closed


class _FakeRuntime:
    """Completes every objective a replayed command names; asks the first incomplete one."""

    def __init__(self, adapter: ReplayAdapter, spec: PublishedGoalSpec) -> None:
        self.adapter, self.spec = adapter, spec
        self.bits = [0, 0, 0, 0]
        self.history: list[Message] = []
        self.turn = 0

    def start(self, *, conversation_id: str | None = None, language: str | None = None) -> None:
        assert language == "en"

    def handle(self, conversation_id: str, text: str, *, received_at: object = None) -> _FakeTurn:
        self.turn += 1
        message = Message(role=Role.VISITOR, turn=self.turn, text=text)
        try:
            proposal = self.adapter.propose(ProposerInput(spec=self.spec, bits=self.bits, language="en",
                                                          turn=self.turn, message=message, history=self.history))
        except LLMError as exc:
            return _FakeTurn("".join(map(str, self.bits)), "NONE", f"proposer.{exc.code}")
        ids = [o.id for o in self.spec.spec.ordered()]
        for command in proposal.commands:
            self.bits[ids.index(command.objective)] = 1  # type: ignore[union-attr]
        self.history.append(message)
        open_ids = [i for i, b in zip(ids, self.bits, strict=True) if not b]
        return _FakeTurn("".join(map(str, self.bits)), f"ASK({open_ids[0]})" if open_ids else "NONE", None)


def test_replay_decisions_reports_only_what_changed(spec: PublishedGoalSpec) -> None:
    record, _ = _live_proposal_record(spec)
    record.update(conversation_id="c1", state_after={"bits": [1, 0, 1, 0]}, chosen_action="location",
                  fail_closed=None)
    factory: Callable[[ReplayAdapter], _FakeRuntime] = lambda adapter: _FakeRuntime(adapter, spec)  # noqa: E731
    assert replay_decisions([record], factory, messages=[MESSAGE]) == []

    record["state_after"] = "1000"
    record["chosen_action"] = "budget"
    assert replay_decisions([record], factory, messages=[MESSAGE]) == [
        Change(turn=1, field="state", recorded="1000", replayed="1010"),
        Change(turn=1, field="action", recorded="ASK(budget)", replayed="ASK(location)"),
    ]


def test_replay_decisions_needs_the_visitor_text(spec: PublishedGoalSpec) -> None:
    record, _ = _live_proposal_record(spec)
    with pytest.raises(ReplayError) as info:
        replay_decisions([record], lambda adapter: _FakeRuntime(adapter, spec))
    assert info.value.code == "llm.replay_no_text"
    with pytest.raises(ReplayError):
        replay_decisions([record], lambda adapter: _FakeRuntime(adapter, spec), messages=["a", "b"])
    record["visitor_text"] = MESSAGE  # read from the record when no messages are passed
    assert replay_decisions([record], lambda adapter: _FakeRuntime(adapter, spec)) == [
        Change(turn=1, field="state", recorded=None, replayed="1010"),
        Change(turn=1, field="action", recorded=None, replayed="ASK(location)"),
    ]


def _turn_runtime(spec: PublishedGoalSpec, rules: Path) -> Callable[[Any], Any]:
    """Build the real runtime, or skip when the rule bundle in this checkout cannot load yet."""
    try:
        from engine.kernel.turn import TurnRuntime
        from engine.rules.loader import load_bundle
        from engine.storage.memory import InMemoryStore

        bundle = load_bundle(rules, require_published=False)
    except Exception as exc:  # pragma: no cover - depends on the rest of the checkout
        pytest.skip(f"real turn runtime unavailable here: {type(exc).__name__}")

    def factory(proposer: Any) -> Any:
        answerer = proposer if hasattr(proposer, "answer") else None  # replay also replays the answers
        return TurnRuntime(spec=spec, bundle=bundle, proposer=proposer, answerer=answerer,
                           store=InMemoryStore(), audit_key=b"k" * 32)

    return factory


def test_recorded_conversation_re_decided_against_same_and_new_bundle(runtime_spec: PublishedGoalSpec,
                                                                      tmp_path: Path) -> None:
    # Work on an unpublished copy: the checkout's publication record is the lead's, not this test's.
    same_rules = tmp_path / "same"
    shutil.copytree(RULES, same_rules, ignore=shutil.ignore_patterns("published"))
    live_factory = _turn_runtime(runtime_spec, same_rules)
    server = WireServer("mistral", ["propose_ok"])
    adapter = adapter_from_settings(settings_for("mistral"), http_client=server.client(),
                                    environ={"MISTRAL_API_KEY": FAKE_KEY}, sleep=lambda _: None)
    runtime = live_factory(adapter)
    runtime.start(conversation_id="c1", language="en")
    live = runtime.handle("c1", MESSAGE)
    records = runtime.store.records("c1")
    assert live.action.startswith("ASK(") and records[0]["llm_calls"][0]["output"] is not None

    assert replay_decisions(records, live_factory, messages=[MESSAGE]) == []  # same bundle, same decisions

    # A new bundle that treats a location as privacy-sensitive: asking for it falls below the utility floor.
    new_rules = tmp_path / "rules"
    shutil.copytree(RULES, new_rules, ignore=shutil.ignore_patterns("published"))
    policy = json.loads((new_rules / "policy.json").read_text(encoding="utf-8"))
    policy["coefficients"]["privacy"] = -0.5
    policy["offline_rubric"]["privacy_by_kind"]["place"] = 1.0
    (new_rules / "policy.json").write_text(json.dumps(policy), encoding="utf-8")
    changes = replay_decisions(records, _turn_runtime(runtime_spec, new_rules), messages=[MESSAGE])
    assert [c.field for c in changes] == ["action"]  # same evidence, same state, another question
    assert changes[0].recorded == "ASK(location)" and changes[0].replayed not in ("ASK(location)", None)
