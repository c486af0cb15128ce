"""The typed turn outcome: what ``TurnRuntime.handle`` returns is what was committed, the visitor's view is
built from it, idempotency keys go to the store explicitly, and roles are chosen before a runtime exists."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from engine.errors import StoreError
from engine.kernel.ports import GroundedAnswer, IdempotencyKey, Proposal, ProposerInput
from engine.kernel.turn import TurnRoles, TurnRuntime
from engine.kernel.turn_context import TurnContext
from engine.kernel.turn_outcome import TurnOutcome
from engine.rules.loader import RuleBundle
from engine.storage.memory import InMemoryStore
from tests.conftest import make_spec, publish
from tests.core.scripted import ScriptedProposer

KEY = b"k" * 32


class _Answerer:
    def answer(self, message: str, language: str, history: Sequence[str] = (),
               context: TurnContext | None = None) -> GroundedAnswer:
        return GroundedAnswer(text="We are open on weekdays.", supported=True, is_question=True)


def _runtime(bundle: RuleBundle) -> TurnRuntime:
    return TurnRuntime(spec=publish(make_spec()), bundle=bundle, proposer=ScriptedProposer(),  # type: ignore[arg-type]
                       answerer=_Answerer(), store=InMemoryStore(), audit_key=KEY)


def test_the_outcome_is_what_was_committed(bundle: RuleBundle) -> None:
    runtime = _runtime(bundle)
    cid = runtime.start().conversation_id
    outcome = runtime.handle(cid, "budget 350000 EUR")
    assert isinstance(outcome, TurnOutcome)
    stored = runtime.store.load(cid)
    assert outcome.new_state == stored and outcome.state == stored.state_string() == "1000"
    assert outcome.record == runtime.store.records(cid)[-1]
    assert outcome.record_seq == 0 and outcome.action == outcome.record["chosen_action"]
    assistant = [m.text for m in stored.messages if m.role.value == "assistant"]
    assert outcome.response_text() == assistant[-1]
    assert outcome.answer.text == "We are open on weekdays."  # the full answer, not the record's summary


def test_the_visitor_view_follows_the_outcome(bundle: RuleBundle) -> None:
    runtime = _runtime(bundle)
    cid = runtime.start().conversation_id
    view = runtime.handle(cid, "budget 350000 EUR").visitor_view()
    assert view["state"] == "1000" and view["bits"] == [1, 0, 0, 0] and view["turn"] == 1
    assert view["question"] and view["action"].startswith("ASK(")
    assert view["answer"]["text"] == "We are open on weekdays." and view["answer"]["supported"] is True
    assert view["response_text"].startswith("We are open on weekdays.") and view["question"] in view["response_text"]
    assert view["fail_closed"] is None and view["completed"] is False and view["record_seq"] == 0


def test_an_idempotency_key_is_committed_with_the_turn_and_cannot_commit_twice(bundle: RuleBundle) -> None:
    runtime = _runtime(bundle)
    store = runtime.store
    assert isinstance(store, InMemoryStore)
    cid = runtime.start().conversation_id
    outcome = runtime.handle(cid, "budget 350000 EUR", idempotency=IdempotencyKey("key-1", "sha256:fp"))
    entry = store.idempotent(cid, "key-1")
    assert entry is not None and entry.turn == 1 and entry.fingerprint == "sha256:fp"
    assert entry.response == outcome.visitor_view()
    with pytest.raises(StoreError) as info:
        runtime.handle(cid, "mail ana@example.com", idempotency=IdempotencyKey("key-1", "sha256:other"))
    assert info.value.code == "store.conflict"
    assert store.load(cid).turn == 1 and len(store.records(cid)) == 1  # nothing of the refused turn was kept


def test_roles_are_chosen_before_the_runtime_is_built(bundle: RuleBundle) -> None:
    class Wrapped:
        name, version = "wrapped", "1"

        def __init__(self, inner: ScriptedProposer) -> None:
            self.inner = inner

        def propose(self, request: ProposerInput) -> Proposal:
            return self.inner.propose(request).model_copy(update={"adapter": self.name})

    seen: list[TurnRoles] = []

    def choose(spec: object, pinned: RuleBundle, offline: TurnRoles) -> TurnRoles:
        seen.append(offline)
        return TurnRoles(proposer=Wrapped(offline.proposer), answerer=offline.answerer)  # type: ignore[arg-type]

    offline = TurnRoles(proposer=ScriptedProposer(), answerer=_Answerer())  # type: ignore[arg-type]
    runtime = TurnRuntime.with_roles(spec=publish(make_spec()), bundle=bundle, roles=offline, store=InMemoryStore(),
                                     audit_key=KEY, choose=choose)  # type: ignore[arg-type]
    assert seen == [offline] and isinstance(runtime.proposer, Wrapped)
    cid = runtime.start().conversation_id
    assert runtime.handle(cid, "budget 350000 EUR").record["proposer"]["name"] == "wrapped"
