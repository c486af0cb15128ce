"""No silent stall (SPEC D-11, I-15): a turn that asks nothing while objectives are open and the visitor has not
stopped says what is still pending, as optional, and never asks an objective the ε-policy found infeasible."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.goals.publication import load_published
from engine.kernel.policy import Move, ObjectiveView, StallRule, conversation_move
from engine.kernel.turn import TurnRuntime
from engine.kernel.turn_outcome import TurnOutcome
from engine.rules.loader import DEFAULT_RULES_DIR, RuleBundle, load_bundle
from engine.storage.memory import InMemoryStore
from llm_adapters.offline import OfflineProposer
from spec.reference import RefDecision, RefObjective
from spec.reference import move as reference_move

ROOT = Path(__file__).resolve().parents[2]
KEY = b"k" * 32
REAL_ESTATE = ROOT / "demos" / "real_estate" / "published" / "real-estate"
CLEANING = ROOT / "demos" / "cleaning" / "published"
RULE = StallRule(max_named=2, max_listed_options=8)


@pytest.fixture(scope="module")
def full_bundle() -> RuleBundle:
    return load_bundle(DEFAULT_RULES_DIR, require_published=False)


def _latest(folder: Path) -> Path:
    return max(folder.rglob("v*.json"), key=lambda p: int(p.stem[1:]))


def _runtime(bundle: RuleBundle, folder: Path) -> TurnRuntime:
    return TurnRuntime(spec=load_published(_latest(folder)), bundle=bundle,
                       proposer=OfflineProposer.from_bundle(bundle), answerer=None, store=InMemoryStore(),
                       audit_key=KEY)


def _talk(runtime: TurnRuntime, *messages: str, language: str | None = None) -> list[TurnOutcome]:
    state = runtime.start(language=language)
    return [runtime.handle(state.conversation_id, text) for text in messages]


def _views(weights: list[str]) -> list[ObjectiveView]:
    return [ObjectiveView(f"o{i}", Fraction(w), "free_text") for i, w in enumerate(weights)]


@pytest.mark.invariant("I-15")
def test_an_ask_is_the_move_when_the_policy_asks() -> None:
    assert conversation_move(_views(["0.5", "0.5"]), [0, 0], set(), False, "o1", RULE) == Move("ASK", ("o1",))


@pytest.mark.invariant("I-15")
def test_nothing_asked_names_open_objectives_by_weight_then_approved_order() -> None:
    views = _views(["0.2", "0.4", "0.2", "0.2"])
    assert conversation_move(views, [0, 0, 0, 0], set(), False, None, RULE) == Move("PENDING", ("o1", "o0"))
    assert conversation_move(views, [0, 1, 0, 0], {"o0"}, False, None, RULE) == Move("PENDING", ("o2", "o3"))


@pytest.mark.invariant("I-15", "I-9")
def test_stopped_declined_complete_or_no_rule_is_no_move() -> None:
    views = _views(["0.5", "0.5"])
    assert conversation_move(views, [0, 0], set(), True, None, RULE) == Move("NONE")  # the visitor stopped
    assert conversation_move(views, [1, 0], {"o1"}, False, None, RULE) == Move("NONE")  # the rest was declined
    assert conversation_move(views, [1, 1], set(), False, None, RULE) == Move("NONE")  # everything recorded
    assert conversation_move(views, [0, 0], set(), False, None, None) == Move("NONE")  # bundle before 1.9.0


@pytest.mark.invariant("I-15")
@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.lists(st.tuples(st.integers(1, 4), st.booleans(), st.booleans()), min_size=1, max_size=6),
       st.booleans(), st.integers(1, 3))
def test_engine_move_equals_the_reference_model(rows: list[tuple[int, bool, bool]], stopped: bool,
                                                max_named: int) -> None:
    total = sum(weight for weight, _, _ in rows)
    views = [ObjectiveView(f"o{i}", Fraction(w, total), "free_text") for i, (w, _, _) in enumerate(rows)]
    bits = [int(done) for _, done, _ in rows]
    refused = {f"o{i}" for i, (_, _, declined) in enumerate(rows) if declined}
    rule = StallRule(max_named=max_named, max_listed_options=8)
    got = conversation_move(views, bits, refused, stopped, None, rule)
    decision = RefDecision(reasons=[], bits_after=tuple(bits), refused=frozenset(refused), stopped=stopped,
                           uncertain={}, ask_utilities=[], chosen=None)
    objectives = [RefObjective(v.id, v.weight, v.kind) for v in views]
    policy = {"no_silent_stall": {"max_named": max_named, "max_listed_options": 8}}
    assert (got.kind, got.objectives) == reference_move(objectives, decision, policy)
    # I-15: an open, undeclined objective and a visitor who goes on always get a move naming one of them
    pending = [v.id for v, bit in zip(views, bits, strict=True) if bit == 0 and v.id not in refused]
    assert (got.kind == "PENDING") == (bool(pending) and not stopped)
    assert set(got.objectives) <= set(pending) and not set(got.objectives) & refused


def _stalls(results: list[TurnOutcome]) -> list[TurnOutcome]:
    """Turns that asked and stated nothing, did not close or fail closed, and left something open."""
    return [r for r in results if r.question is None and r.pending is None and r.closing is None
            and r.fail_closed is None and "0" in r.state and not r.new_state.stopped]


@pytest.mark.invariant("I-15")
@pytest.mark.parametrize(("folder", "language", "messages", "word"), [
    (REAL_ESTATE, "en", ["My budget is 300,000 euros", "Somewhere near Vera", "Three bedrooms and a pool",
                         "What time do you open?", "hmm", "ok", "well"], "optional"),
    (CLEANING, "es", ["Es una oficina", "En Almería", "Limpieza general", "¿Trabajan los domingos?", "mmm", "vale"],
     "opcional"),
])
def test_skipping_the_last_question_never_ends_a_turn_silently(
        full_bundle: RuleBundle, folder: Path, language: str, messages: list[str], word: str) -> None:
    results = _talk(_runtime(full_bundle, folder), *messages, language=language)
    pending_turns = [r for r in results if r.pending is not None]
    assert len(pending_turns) >= 2  # the skipped question is rested (U_V < ε), and the turn still moves
    assert _stalls(results) == []
    ids = [o.id for o in load_published(_latest(folder)).spec.ordered()]
    for result in pending_turns:
        assert result.action == "NONE" and result.question is None  # a statement, not an ask: I-8 stands
        assert result.pending is not None
        assert word in result.pending and result.pending in result.response_text()
        [note] = [n for n in result.record["notes"] if n.startswith("arc.pending:")]
        named = note.split(":", 1)[1].split(",")
        assert named == ["contact"] and all(result.new_state.bits[ids.index(i)] == 0 for i in named)
        assert result.new_state.messages[-1].asked_objective is None  # never counted as an ask (D-8)
        assert result.pending in result.new_state.messages[-1].text  # and the transcript keeps what was said


@pytest.mark.invariant("I-15")
def test_pending_statement_lists_a_short_vocabulary(full_bundle: RuleBundle) -> None:
    from engine.kernel.arc import ArcWording

    spec = load_published(_latest(CLEANING)).spec
    wording = ArcWording(full_bundle, spec, "es")
    listed = wording.pending(("service_type", "contact"), max_listed_options=20)
    assert listed is not None and "tipo de servicio y contacto" in listed and "las opciones son" in listed
    short = wording.pending(("service_type",), max_listed_options=3)  # more options than the rule lists
    assert short is not None and "opciones" not in short


@pytest.mark.invariant("I-15", "I-9")
def test_after_a_stop_nothing_is_pending(full_bundle: RuleBundle) -> None:
    results = _talk(_runtime(full_bundle, REAL_ESTATE), "Please stop asking me questions", "What else?")
    assert results[0].new_state.stopped
    assert all(r.pending is None and r.question is None for r in results)


@pytest.mark.invariant("I-15")
def test_grace_chat_prints_the_pending_statement(full_bundle: RuleBundle) -> None:
    import io

    from engine.cli.chat import run_chat

    out = io.StringIO()
    lines = "My budget is 300,000 euros\nSomewhere near Vera\nThree bedrooms and a pool\nWhat time do you open?\n\n"
    assert run_chat(_runtime(full_bundle, REAL_ESTATE), "en", io.StringIO(lines), out) == 0
    assert "grace> If you wish, you can still share: contact for the viewing." in out.getvalue()
    assert "(no question)" not in out.getvalue()
