"""Issue 11 item 1: any exception inside answering, proposing or deciding ends the turn closed. The state stays as
it was, the turn's record is sealed with a stable reason code, and the chain still verifies."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from audit.chain import verify
from engine.kernel.commands import Complete, Span
from engine.kernel.ports import GroundedAnswer, Proposal, ProposerInput
from engine.kernel.turn import TurnRuntime
from engine.kernel.turn_context import TurnContext
from engine.rules.loader import RuleBundle
from engine.storage.memory import InMemoryStore
from tests.conftest import make_spec, publish
from tests.core.scripted import ScriptedProposer
from tests.proposer.helpers import demo_spec, project_bundle, proposer

KEY = b"k" * 32
PHONE = "+34 612 345 678"


class _Raising:
    name = "raising"
    version = "1"

    def __init__(self, error: Exception) -> None:
        self.error = error

    def propose(self, request: ProposerInput) -> Proposal:
        raise self.error


class _OverLong:
    """Builds a command whose value breaks the command schema, as the offline proposer once did."""

    name = "over-long"
    version = "1"

    def propose(self, request: ProposerInput) -> Proposal:
        text = request.message.text
        span = Span(turn=request.turn, start=0, end=len(text), quote=text)
        return Proposal(commands=[Complete(objective="contact", span=span, value=text)], adapter=self.name,
                        adapter_version=self.version)


class _CrashingAnswerer:
    def answer(self, message: str, language: str, history: Sequence[str] = (),
               context: TurnContext | None = None) -> GroundedAnswer:
        raise KeyError(message)


def _runtime(bundle: RuleBundle, proposer: Any = None, answerer: Any = None) -> TurnRuntime:
    return TurnRuntime(spec=publish(make_spec()), bundle=bundle, proposer=proposer or ScriptedProposer(),
                       answerer=answerer, store=InMemoryStore(), audit_key=KEY)


def _assert_closed(runtime: TurnRuntime, cid: str, code: str, secret: str) -> None:
    state = runtime.store.load(cid)
    records = runtime.store.records(cid)
    record = records[-1]
    assert record["fail_closed"]["code"] == code
    assert record["chosen_action"] == "NONE" and record["candidates"] == []
    assert record["state_after"]["bits"] == record["state_before"]["bits"]
    assert state.bits == [0, 0, 0, 0] and state.values == {} and state.last_asked is None
    assert verify(records, state.audit_head, KEY).ok
    # the reason names the error type, never the exception text (which may quote the visitor's data)
    assert secret not in record["fail_closed"]["message"]


@pytest.mark.parametrize(
    ("error", "code"),
    [(ValueError(PHONE), "propose.crashed"), (RecursionError(PHONE), "propose.crashed"),
     (KeyError(PHONE), "propose.crashed"), (MemoryError(PHONE), "propose.crashed")],
)
def test_any_proposer_exception_fails_closed(bundle: RuleBundle, error: Exception, code: str) -> None:
    runtime = _runtime(bundle, _Raising(error))
    cid = runtime.start().conversation_id
    result = runtime.handle(cid, f"call me on {PHONE}")
    assert result.fail_closed == code and result.question is None
    _assert_closed(runtime, cid, code, PHONE)


def test_a_command_breaking_the_schema_fails_closed(bundle: RuleBundle) -> None:
    runtime = _runtime(bundle, _OverLong())
    cid = runtime.start().conversation_id
    result = runtime.handle(cid, "612 345 678 " * 60)
    assert result.fail_closed == "propose.crashed"  # pydantic's ValidationError is not a GraceError
    _assert_closed(runtime, cid, "propose.crashed", "612 345 678")


def test_answerer_and_decider_crashes_fail_closed(bundle: RuleBundle, monkeypatch: pytest.MonkeyPatch) -> None:
    runtime = _runtime(bundle, answerer=_CrashingAnswerer())
    cid = runtime.start().conversation_id
    assert runtime.handle(cid, "budget 350000 EUR").fail_closed == "answer.crashed"
    _assert_closed(runtime, cid, "answer.crashed", "350000")

    runtime = _runtime(bundle)
    cid = runtime.start().conversation_id

    def explode(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("budget 350000 EUR")

    monkeypatch.setattr(runtime.decider, "decide", explode)
    assert runtime.handle(cid, "budget 350000 EUR").fail_closed == "decide.crashed"
    _assert_closed(runtime, cid, "decide.crashed", "350000")
    monkeypatch.undo()
    assert runtime.handle(cid, "budget 350000 EUR").state == "1000"  # the conversation goes on afterwards


def test_a_turn_past_its_deadline_fails_closed(bundle: RuleBundle) -> None:
    runtime = _runtime(bundle)
    assert runtime._deadline_ms == bundle.file("runtime")["turn_deadline_ms"]  # the deadline is rule data
    runtime._deadline_ms = -1.0  # already over: every stage boundary sees it
    cid = runtime.start().conversation_id
    assert runtime.handle(cid, "budget 350000 EUR").fail_closed == "turn.deadline_exceeded"
    _assert_closed(runtime, cid, "turn.deadline_exceeded", "350000")


LATE_CALL = {"purpose": "propose", "adapter": "late", "model": "m", "latency_ms": 80.0, "status": "ok"}


class _LateWithCalls:
    """Answers after the turn's deadline, with a command and the record of the model call it made."""

    name = "late"
    version = "1"

    def propose(self, request: ProposerInput) -> Proposal:
        time.sleep(0.08)
        text = request.message.text
        span = Span(turn=request.turn, start=0, end=len(text), quote=text)
        return Proposal(commands=[Complete(objective="notes", span=span, value=text)], calls=[dict(LATE_CALL)],
                        adapter=self.name, adapter_version=self.version)


def test_a_proposal_after_the_deadline_is_not_used_but_its_model_calls_are_recorded(bundle: RuleBundle) -> None:
    runtime = _runtime(bundle, proposer=_LateWithCalls())
    runtime._deadline_ms = 40.0  # the answer stage has no answerer: only the proposer runs past it
    cid = runtime.start().conversation_id
    assert runtime.handle(cid, "I want a quiet flat").fail_closed == "turn.deadline_exceeded"
    _assert_closed(runtime, cid, "turn.deadline_exceeded", "quiet flat")
    (call,) = runtime.store.records(cid)[-1]["llm_calls"]
    assert {k: call[k] for k in LATE_CALL} == LATE_CALL


# -- hostile messages through the real offline proposer ------------------------------------------------------------

_PIECES = st.sampled_from([
    "1 ", "1, ", "1. ", "612 345 678 ", "+34 ", "6", "0", "-", "(", ")", "@", ".", "a", "bob", "example.com ",
    "x@y.co ", "budget ", "euros ", "€", "$", "k ", "guests ", "people ", "June ", "tomorrow ", "not ", "no ",
    "my phone is ", "email ", "\u0430", "\u200b", "ñ", "🙂", "\n", "   ", "Madrid ", "2 bedrooms ", "between ",
])


@st.composite
def _runs(draw: st.DrawFn) -> str:
    """One contact-like token far longer than any real one: e-mail parts, digit and phone runs."""
    n, m = draw(st.integers(1, 900)), draw(st.integers(1, 900))
    shapes = [f"{'a' * n}@{'b' * m}.com", f"x@{'a.' * n}com", "6" * n, "+34 " + "6 " * n, "6-" * n,
              f"my email is {'c' * n}@example.com", f"call {'612 ' * n}"]
    return draw(st.sampled_from(shapes))


@st.composite
def hostile(draw: st.DrawFn) -> str:
    pieces = draw(st.lists(st.one_of(st.tuples(_PIECES, st.integers(1, 400)), st.tuples(_runs(), st.just(1))),
                           min_size=1, max_size=6))
    return "".join(piece * count for piece, count in pieces)[:4000] or "1"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile())
def test_hostile_messages_never_crash_the_offline_proposer(text: str) -> None:
    runtime = TurnRuntime(spec=demo_spec("re"), bundle=project_bundle(), proposer=proposer(), answerer=None,
                          store=InMemoryStore(), audit_key=KEY)
    cid = runtime.start().conversation_id
    try:
        result = runtime.handle(cid, text)
    except Exception as exc:  # only refusals of the input itself may raise (empty, binary)
        assert getattr(exc, "code", "").startswith("input."), exc
        return
    assert result.fail_closed is None or not result.fail_closed.endswith(".crashed"), result.record["fail_closed"]
    state = runtime.store.load(cid)
    assert verify(runtime.store.records(cid), state.audit_head, KEY).ok
    for values in state.values.values():
        assert all(0 < len(v.value) <= 500 for v in values)
