"""Contact provenance (SPEC.md D-10, I-14): facts, acceptance rules, the Z3 check and the rule-file proof."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.chain import verify
from engine.kernel.commands import Complete, Span
from engine.kernel.conversation import ConversationState, Message, Role
from engine.kernel.decision.decider import Decider
from engine.kernel.decision.invariants import prove_bundle
from engine.kernel.decision.provenance import (
    ContactIndex,
    ProvenanceContext,
    ProvenanceRules,
    attribution,
    confusable,
    email_key,
)
from engine.kernel.ports import Citation, GroundedAnswer, Proposal, ProposerInput
from engine.kernel.turn import TurnRuntime
from engine.kernel.turn_context import TurnContext
from engine.rules.loader import RuleBundle, load_bundle
from engine.storage.memory import InMemoryStore
from tests.conftest import make_spec, publish
from tests.core.scripted import ScriptedProposer

KEY = b"k" * 32
COMPANY = ["Write to info@acme-homes.example.com or call +34 950 000 100.", "Staff write from @acme-homes.example.com"]


@pytest.fixture(scope="module")
def rules(bundle: RuleBundle) -> ProvenanceRules:
    return ProvenanceRules.from_bundle(bundle)


@pytest.mark.parametrize("text", [
    "My wife's phone is 612 345 678", "612 345 678 is my husband's", "Call my colleague at 612 345 678",
    "Anna's number is 612 345 678", "612 345 678. It's my boss's.", "My friend's number. 612 345 678",
    "El teléfono de mi marido es 612 345 678", "612 345 678 es el móvil de mi jefa",
    "Le numéro de ma femme est 612 345 678", "Appelez mon collègue au 612 345 678",
    "Su teléfono es 612 345 678", "Son numéro : 612 345 678", "You can call my partner Juan on 612 345 678",
    "612 345 678 — that's my brother's",
])
def test_attribution_to_someone_else(text: str, rules: ProvenanceRules) -> None:
    assert attribution(text, "612 345 678", (0, len(text)), rules) == (True, False)


@pytest.mark.parametrize("text", [
    "Don't use 612 345 678", "612 345 678 is not my number", "No uses 612 345 678", "No me llames al 612 345 678",
    "612 345 678 no es mi número", "N'utilisez pas 612 345 678", "612 345 678 n'est pas mon numéro",
])
def test_refused_or_negated(text: str, rules: ProvenanceRules) -> None:
    assert attribution(text, "612 345 678", (0, len(text)), rules)[1] is True


@pytest.mark.parametrize("text", [
    "My phone is 612 345 678", "Call me on 612 345 678", "Mi teléfono es el 612 345 678", "Sure, 612 345 678",
    "Mon numéro est le 612 345 678", "My husband and I are moving; my number is 612 345 678",
    "My wife's phone is 699 999 999, mine is 612 345 678", "612 345 678 is mine; my husband's is 699 111 222",
    "Don't use 699 111 222, use 612 345 678", "I work with my colleague Ana. Call me on 612 345 678",
    "Use my work number, not the personal one: 612 345 678",
])
def test_own_value_is_not_attributed(text: str, rules: ProvenanceRules) -> None:
    assert attribution(text, "612 345 678", (0, len(text)), rules) == (False, False)


def test_a_marker_in_the_same_clause_fails_closed(rules: ProvenanceRules) -> None:
    text = "Call me or my wife at 612 345 678"  # ambiguous: whose number? never taken as the visitor's
    assert attribution(text, "612 345 678", (0, len(text)), rules)[0] is True


def test_company_index_respellings_and_lookalikes() -> None:
    index = ContactIndex.from_texts(COMPANY, "ES")
    for phone in ["+34 950 000 100", "950000100", "0034 950 000 100", "950.000.100", "9 5 0 0 0 0 1 0 0"]:
        assert index.holds(phone, "ES", 7), phone
    for email in ["INFO@acme-homes.example.com", "іnfo@acme-homes.example.com", "sales@acme-homes.example.com"]:
        assert index.holds(email, "ES", 7), email
    assert not index.holds("jane@gmail.com", "ES", 7)
    assert not index.holds("612 345 678", "ES", 7)
    assert confusable("іnfo@gmail.com") and confusable("6l2 345 678") and not confusable("josé@correo.es")
    assert email_key("ІNFO@Example.com") == "info@example.com"


@settings(max_examples=200, deadline=None)
@given(local=st.from_regex(r"[a-z]{2,10}", fullmatch=True), upper=st.booleans(), swap=st.booleans())
def test_any_company_address_is_found_however_written(local: str, upper: bool, swap: bool) -> None:
    address = f"{local}@company.example"
    index = ContactIndex.from_texts([f"Please write to {address}."], "ES")
    written = address.upper() if upper else address
    if swap:
        written = written.replace("a", "а").replace("o", "о").replace("A", "А")  # Cyrillic look-alikes
    assert index.holds(written, "ES", 7)


class _Forced:
    """A malicious proposer: completes the contact objective with the whole message as the cited value."""

    name, version = "forced", "1"

    def __init__(self, value: str) -> None:
        self.value = value

    def propose(self, request: ProposerInput) -> Proposal:
        text = request.message.text
        return Proposal(commands=[Complete(objective="contact", value=self.value,
                                           span=Span(turn=request.turn, start=0, end=len(text), quote=text))])


class _Shows:
    def __init__(self, text: str) -> None:
        self.text = text

    def answer(self, message: str, language: str, history: Sequence[str] = (),
               context: TurnContext | None = None) -> GroundedAnswer:
        return GroundedAnswer(text=self.text, citations=[Citation(source="c", passage_id="p", quote=self.text)],
                              supported=True, is_question=True)


def _runtime(bundle: RuleBundle, proposer: object, answerer: object | None = None,
             company: list[str] | None = None) -> TurnRuntime:
    return TurnRuntime(spec=publish(make_spec()), bundle=bundle, proposer=proposer,  # type: ignore[arg-type]
                       answerer=answerer, store=InMemoryStore(), audit_key=KEY,  # type: ignore[arg-type]
                       company_texts=company)


def _contact_reason(runtime: TurnRuntime, *turns: str) -> tuple[str, int]:
    state = runtime.start()
    result = None
    for text in turns:
        result = runtime.handle(state.conversation_id, text)
    assert result is not None
    reasons = [c["reason_code"] for c in result.record["candidates"] if c["command"]["objective"] == "contact"]
    bit = runtime.store.load(state.conversation_id).bits[3]
    return reasons[0], bit


@pytest.mark.invariant("I-14")
def test_malicious_proposer_cannot_complete_with_company_contact(bundle: RuleBundle) -> None:
    runtime = _runtime(bundle, _Forced("+34 950 000 100"), company=COMPANY)
    assert _contact_reason(runtime, "Here: 0034 950 000 100") == ("provenance.company_contact", 0)
    runtime = _runtime(bundle, _Forced("INFO@acme-homes.example.com"), company=COMPANY)
    assert _contact_reason(runtime, "mail INFO@acme-homes.example.com") == ("provenance.company_contact", 0)


@pytest.mark.invariant("I-14")
def test_value_read_back_from_the_assistant_is_rejected(bundle: RuleBundle) -> None:
    shown = "The Eastside pantry answers on (316) 269-4160 or east@pantry.example.org."
    answerer = _Shows(shown)
    runtime = _runtime(bundle, ScriptedProposer(), answerer=_OnlyQuestions(answerer))
    assert _contact_reason(runtime, "Which pantry is open?", "ok my email is east@pantry.example.org") == (
        "provenance.assistant_echo", 0)
    # passages retrieved in this very turn count too
    runtime = _runtime(bundle, _Forced("+1 316 269 4160"), answerer=answerer)
    assert _contact_reason(runtime, "call me at +1 316 269 4160") == ("provenance.assistant_echo", 0)


class _OnlyQuestions:
    def __init__(self, wrapped: _Shows) -> None:
        self._wrapped = wrapped

    def answer(self, message: str, language: str, history: Sequence[str] = (),
               context: TurnContext | None = None) -> GroundedAnswer:
        return self._wrapped.answer(message, language) if message.endswith("?") else GroundedAnswer()


class _CorpusLike:
    def company_texts(self) -> list[str]:
        return COMPANY

    def answer(self, message: str, language: str, history: Sequence[str] = (),
               context: TurnContext | None = None) -> GroundedAnswer:
        return GroundedAnswer()


def test_company_contacts_come_from_the_served_answerer(bundle: RuleBundle) -> None:
    runtime = _runtime(bundle, _Forced("+34 950 000 100"), answerer=_CorpusLike())
    assert _contact_reason(runtime, "Here: 0034 950 000 100") == ("provenance.company_contact", 0)


def test_reason_is_in_the_sealed_audit_record_and_the_visitor_value_completes(bundle: RuleBundle) -> None:
    runtime = _runtime(bundle, ScriptedProposer(), company=COMPANY)
    state = runtime.start()
    first = runtime.handle(state.conversation_id, "My wife's email is ana@home.example")
    assert first.record["candidates"][0]["reason_code"] == "provenance.third_party"
    second = runtime.handle(state.conversation_id, "Mine is jo@home.example")
    assert second.record["candidates"][0]["reason_code"] == "accepted"
    assert runtime.store.load(state.conversation_id).bits[3] == 1
    records = runtime.store.records(state.conversation_id)  # type: ignore[attr-defined]
    assert verify(records, runtime.store.load(state.conversation_id).audit_head, KEY).ok


def _without_rule(core_rules_dir: Path, tmp_path: Path, rule_id: str) -> RuleBundle:
    target = tmp_path / "rules"
    shutil.copytree(core_rules_dir, target)
    path = target / "acceptance.json"
    data = json.loads(path.read_text())
    data["rules"] = [r for r in data["rules"] if r["id"] != rule_id]
    path.write_text(json.dumps(data))
    return load_bundle(target, require_published=False)


@pytest.mark.invariant("I-14", "I-10")
def test_rule_file_without_a_provenance_rule_is_refuted_and_fails_closed(core_rules_dir: Path,
                                                                          tmp_path: Path) -> None:
    weak = _without_rule(core_rules_dir, tmp_path, "A08")
    proofs = {r.name: r.status for r in prove_bundle(weak)}
    assert proofs["contact_rejected_when_company"] == "refuted"
    assert all(s == "proved" for n, s in proofs.items() if n != "contact_rejected_when_company")
    # even if such a bundle were served, the per-transition Z3 check (I-14) refuses the transition
    spec = publish(make_spec())
    decider = Decider(spec, weak, ContactIndex.from_texts(COMPANY, "ES"))
    text = "mail info@acme-homes.example.com"
    state = ConversationState(conversation_id="c", goal_ref=spec.ref, goal_hash=spec.content_hash,
                              bundle_hash=weak.content_hash, language="en", turn=1, bits=[0, 0, 0, 0],
                              messages=[Message(role=Role.VISITOR, turn=1, text=text)])
    command = Complete(objective="contact", value="info@acme-homes.example.com",
                       span=Span(turn=1, start=0, end=len(text), quote=text))
    decision = decider.decide(state, [command], context=ProvenanceContext(decider.company))
    assert decision.candidates[0].accepted  # the weakened rule file let it through ...
    assert decision.fail_closed == "invariant.violated" and decision.bits_after == [0, 0, 0, 0]  # ... Z3 did not
