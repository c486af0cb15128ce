"""The conversation arc: clarification after a rejected answer, the rested rule, and the closing turn."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.goals.publication import load_published
from engine.kernel.turn import TurnRuntime
from engine.kernel.turn_outcome import TurnOutcome
from engine.rules.loader import DEFAULT_RULES_DIR, RuleBundle, load_bundle
from engine.storage.memory import InMemoryStore
from llm_adapters.offline import OfflineProposer

ROOT = Path(__file__).resolve().parents[2]
KEY = b"k" * 32
REAL_ESTATE = ROOT / "demos" / "real_estate" / "published" / "real-estate"
PLACEHOLDERS = {"question", "objective", "objectives", "company", "currency", "options", "min", "max", "unit",
                "option"}  # option: closing.declined (spec/adr/0009)
# engine/kernel/revision.py and engine/kernel/choice_clarification.py fill these in their own sections
SECTION_PLACEHOLDERS = {"revision": {"changes", "value", "objective", "current", "reason"},
                        "choice_ambiguous": {"candidates", "objective"},
                        "weekday_conflict": {"date", "actual", "stated"},
                        "acknowledgement": {"items", "quote"}}


@pytest.fixture(scope="module")
def full_bundle() -> RuleBundle:
    return load_bundle(DEFAULT_RULES_DIR, require_published=False)


def _runtime(bundle: RuleBundle) -> TurnRuntime:
    latest = max(REAL_ESTATE.glob("v*.json"), key=lambda p: int(p.stem[1:]))
    return TurnRuntime(spec=load_published(latest), bundle=bundle, proposer=OfflineProposer.from_bundle(bundle),
                       answerer=None, store=InMemoryStore(), audit_key=KEY)


def _talk(runtime: TurnRuntime, *messages: str, language: str | None = None) -> list[TurnOutcome]:
    state = runtime.start(language=language)
    return [runtime.handle(state.conversation_id, text) for text in messages]


def _notes(result: TurnOutcome, prefix: str) -> list[str]:
    return [note for note in result.record["notes"] if note.startswith(prefix)]


def test_rejected_amount_is_asked_again_as_a_clarification(full_bundle: RuleBundle) -> None:
    runtime = _runtime(full_bundle)
    [result] = _talk(runtime, "My budget is around $450,000")
    canonical = runtime.spec.spec.ordered()[0].question("en", "en")
    assert result.action == "ASK(budget)"
    assert result.question is not None and result.question != canonical
    assert "euros" in result.question  # the company's currency, named in the visitor's language
    assert _notes(result, "arc.clarification:") == ["arc.clarification:budget:money.currency_mismatch:ask"]
    assert result.record["question"] == result.question  # the audit record holds what the visitor was asked


def test_clarification_speaks_the_conversation_language(full_bundle: RuleBundle) -> None:
    [result] = _talk(_runtime(full_bundle), "Mi presupuesto es de 450.000 dólares", language="es")
    assert result.action == "ASK(budget)"
    assert result.question is not None and "euros" in result.question and "Trabajamos" in result.question


def test_same_question_is_never_asked_three_times_in_a_row(full_bundle: RuleBundle) -> None:
    results = _talk(_runtime(full_bundle), "My budget is $450,000", "I said $450,000", "It is $450,000")
    assert [r.action for r in results] == ["ASK(budget)", "ASK(budget)", "ASK(location)"]
    third = results[2]
    assert any(n.startswith("policy.rested:budget") for n in third.record["notes"])
    # the rejected answer is still explained, before the one question the policy chose
    assert third.notice is not None and "euros" in third.notice
    assert _notes(third, "arc.clarification:") == ["arc.clarification:budget:money.currency_mismatch:notice"]
    assert third.response_text().index(third.notice) < third.response_text().index(third.question or "")


def test_closing_turn_summarises_values_and_names_the_next_step(full_bundle: RuleBundle) -> None:
    runtime = _runtime(full_bundle)
    results = _talk(runtime, "My budget is 450000 euros", "Somewhere in Madrid please",
                    "I need 3 bedrooms and a garage", "my email is ana.lopez@example.org", "thanks!")
    closing = results[3]
    assert closing.state == "1111" and closing.completed and closing.action == "NONE"
    assert closing.closing is not None
    for shown in ("€450,000", "Madrid", "ana.lopez@example.org", "Budget", "Preferred location"):
        assert shown in closing.closing
    next_step = runtime.spec.spec.closing.next_step["en"]  # type: ignore[union-attr]
    assert closing.closing.rstrip().endswith(next_step)
    assert _notes(closing, "arc.closing:") == ["arc.closing:all_complete"]
    stored = runtime.store.load(closing.conversation_id).messages[-3]  # assistant message of turn 4
    assert stored.turn == 4 and closing.closing in stored.text
    assert not results[4].completed  # the conversation closes once


def test_stop_closes_with_what_was_recorded(full_bundle: RuleBundle) -> None:
    results = _talk(_runtime(full_bundle), "My budget is 450000 euros", "Please stop asking me questions")
    last = results[-1]
    assert last.action == "NONE" and last.closing is not None
    assert "€450,000" in last.closing and "I will not ask anything else" in last.closing
    assert _notes(last, "arc.closing:") == ["arc.closing:visitor_stopped"]


def test_stop_before_anything_recorded_says_so(full_bundle: RuleBundle) -> None:
    [last] = _talk(_runtime(full_bundle), "Please stop asking me questions")
    assert last.closing is not None and "not noted any details" in last.closing


def test_arc_wording_uses_only_known_placeholders_and_real_reason_codes() -> None:
    validators = ROOT / "engine" / "kernel" / "validators"
    validator_source = "\n".join(p.read_text(encoding="utf-8") for p in validators.glob("*.py"))
    files = sorted((DEFAULT_RULES_DIR / "arc").glob("*.json"))
    assert {f.stem for f in files} >= {"en", "es"}
    for path in files:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text)
        for section, allowed in SECTION_PLACEHOLDERS.items():
            own = json.dumps(data.pop(section, {}), ensure_ascii=False)
            assert set(re.findall(r"\{([a-z_]+)\}", own)) <= allowed, f"{path.name}: {section}"
        text = json.dumps(data, ensure_ascii=False, indent=2)
        assert set(re.findall(r"\{([a-z_]+)\}", text)) <= PLACEHOLDERS, path.name
        codes = re.findall(r'"([a-z_]+\.[a-z_]+)": \{', text)
        assert codes, path.name
        for code in codes:  # a clarification for a code no validator emits would never be said
            assert f'"{code}"' in validator_source, f"{path.name}: {code}"


_MESSAGES = st.sampled_from([
    "My budget is $450,000", "hello", "what are your opening hours?", "I don't know yet", "Somewhere in Madrid",
    "USD 300,000 at most", "ok", "my email is someone@", "3 bedrooms", "call me at 12",
])


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(messages=st.lists(_MESSAGES, min_size=3, max_size=7))
def test_no_objective_is_asked_more_than_the_limit_in_a_row(full_bundle: RuleBundle, messages: list[str]) -> None:
    limit = int(full_bundle.file("policy")["max_consecutive_asks"])
    actions = [r.action for r in _talk(_runtime(full_bundle), *messages)]
    for i in range(len(actions) - limit):
        window = actions[i:i + limit + 1]
        assert not (window[0] != "NONE" and len(set(window)) == 1), actions
