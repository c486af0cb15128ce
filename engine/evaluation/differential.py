"""Random decision inputs for the differential tests, property tests and the decision benchmark (seeded)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from fractions import Fraction
from typing import Any, Protocol, TypeVar

from engine.kernel.commands import COMMAND_ADAPTER, Command, Complete, Correct, Refuse, Resume, Span, Stop, Uncertain
from engine.kernel.conversation import ConversationState, Message, Role
from engine.kernel.decision.provenance import ProvenanceRules, attribution, others_wish
from engine.kernel.goal_models import Criterion, CriterionKind, GoalSpec, Objective, PublishedGoalSpec, spec_hash
from engine.kernel.validators import validate_value
from engine.rules.loader import RuleBundle
from engine.text import normalize
from spec.reference import RefCandidate, RefDecision, RefObjective, RefState, decide

KINDS: list[tuple[CriterionKind, dict[str, Any]]] = [
    (CriterionKind.MONEY, {"currency": "EUR", "min_amount": 10000}),
    (CriterionKind.PLACE, {}),
    (CriterionKind.CONTACT, {"default_region": "ES"}),
    (CriterionKind.FREE_TEXT, {}),
]
WORDS = ["budget", "350.000", "EUR", "near", "Vera", "mail", "a@b.com", "bad@x", "600000005", "12", "and", "I",
         "need", "no", "quiero", "tres", "~", "ｆｕｌｌ", "\u200b", "Mojácar", "around", "300", "my", "wife's",
         "don't", "use", "me@home.org", "іnfo@home.org", "612 345 678", "950000100", "sales@x.com", ",", "but"]
VALUES = ["<=350000 EUR", "350000 EUR", "~300 EUR", "Vera", "Mojácar", "a@b.com", "bad@x", "600000005", "12",
          "near", "xx", "me@home.org", "іnfo@home.org", "612 345 678", "950000100", "sales@x.com"]


COMPANY_TEXTS = ["Write to a@b.com or call +34 600 000 005.", "Our staff write from @x.com only.",
                 "Oficina: 950 000 100, info@empresa.example"]
CONTACT_VALUES = ["me@home.org", "a@b.com", "ME@Home.org", "іnfo@home.org", "sales@x.com", "612 345 678",
                  "+34 600 000 005", "950 000 100", "600000005", "info@empresa.example",
                  # several channels in one value (spec/adr/0006): one company channel must reject the whole value
                  "me@home.org; 612 345 678", "me@home.org; +34 600 000 005", "a@b.com; 612 345 678"]
CONTACT_PHRASES = ["my email is {v}", "call me at {v}", "my wife's phone is {v}", "{v} is my husband's, mine is x",
                   "don't use {v}", "mi correo es {v}", "no es mi correo: {v}", "mon numéro est {v}",
                   "le numéro de ma femme est {v}", "{v}", "reach me on {v} but not my colleague"]
T = TypeVar("T")
PASSAGES = ["Pantry line: (950) 000-100", "Contact ａ@b.com", "Call 612 345 678 for help"]


@dataclass
class Case:
    spec: PublishedGoalSpec
    state: ConversationState
    commands: list[Command]
    company_question: bool
    company_texts: tuple[str, ...] = ()  # D-10: the company's corpus/contact details
    passages: tuple[str, ...] = ()  # D-10: passages retrieved this turn


def case_to_json(case: Case) -> dict[str, Any]:
    """A case as plain JSON (the differential corpus format): replayable with ``case_from_json``."""
    return {
        "spec": case.spec.model_dump(mode="json"),
        "state": case.state.model_dump(mode="json"),
        "commands": [COMMAND_ADAPTER.dump_python(c, mode="json") for c in case.commands],
        "company_question": case.company_question,
        "company_texts": list(case.company_texts),
        "passages": list(case.passages),
    }


def case_from_json(data: dict[str, Any]) -> Case:
    return Case(
        spec=PublishedGoalSpec.model_validate(data["spec"]),
        state=ConversationState.model_validate(data["state"]),
        commands=[COMMAND_ADAPTER.validate_python(c) for c in data["commands"]],
        company_question=bool(data["company_question"]),
        company_texts=tuple(data.get("company_texts", ())),
        passages=tuple(data.get("passages", ())),
    )


class Draw(Protocol):
    """Where a case's choices come from. Every choice is written so that its *simplest* outcome is the one a
    shrinker moves towards: ``chance`` shrinks to False (the feature is absent), ``integer`` to ``lo``, ``pick`` to
    the first option. ``RandomDraw`` replays a seeded ``random.Random``; the differential test's Hypothesis draw
    lets a failing case shrink to a small one."""

    def integer(self, lo: int, hi: int) -> int: ...
    def chance(self, p: float) -> bool: ...
    def pick(self, options: Sequence[T]) -> T: ...
    def sample(self, population: Sequence[T], k: int) -> list[T]: ...


class RandomDraw:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def pick(self, options: Sequence[T]) -> T:
        return self.rng.choice(options)

    def sample(self, population: Sequence[T], k: int) -> list[T]:
        return self.rng.sample(list(population), k)


def _draw(source: random.Random | Draw) -> Draw:
    return RandomDraw(source) if isinstance(source, random.Random) else source


def random_spec(source: random.Random | Draw) -> PublishedGoalSpec:
    d = _draw(source)
    n = d.integer(1, 6)
    cuts = sorted(d.sample(range(1, 20), n - 1)) if n > 1 else []
    parts = [b - a for a, b in zip([0, *cuts], [*cuts, 20], strict=True)]
    objectives = []
    for i, part in enumerate(parts):
        kind, params = d.pick(KINDS)
        objectives.append(Objective(
            id=f"o{i}", name=f"Objective {i}", questions={"en": f"Question {i}?"},
            criterion=Criterion(kind=kind, description="random", params=params),
            weight=Decimal(part) / Decimal(20), order=i + 1,
        ))
    spec = GoalSpec(id="random", title="Random", default_language="en", languages=["en"], objectives=objectives)
    return PublishedGoalSpec(spec=spec, version=1, content_hash=spec_hash(spec), approved_by="gen",
                             approved_at=datetime(2026, 1, 1, tzinfo=UTC))


def _text(d: Draw) -> str:
    return " ".join(d.pick(WORDS) for _ in range(d.integer(1, 8))).replace("\u200b", "").strip() or "hi"


def _span(d: Draw, texts: dict[int, str], turn: int) -> Span:
    t = d.integer(1, turn)
    text = texts[t]
    start = d.integer(0, max(0, len(text) - 1))
    end = d.integer(start + 1, len(text)) if len(text) > start else start + 1
    quote = text[start:end] or "x"
    if d.chance(0.08):
        return Span(turn=turn + d.integer(1, 2), start=start, end=end, quote=quote)  # future turn
    if d.chance(0.09):
        return Span(turn=t, start=start, end=end + 50, quote=quote)  # out of range
    if d.chance(0.12):
        return Span(turn=t, start=start, end=end, quote=quote + "!")  # mismatch
    if d.chance(0.05):
        return Span(turn=t, start=start, end=end, quote=quote.upper() if quote.upper() != quote else quote + "Z")
    return Span(turn=t, start=start, end=end, quote=quote)


# Command kinds after "complete", each with its chance given the ones before it did not happen; a shrinker moves a
# failing case's commands towards Complete.
_KIND_CHANCES = (("correct", 0.27), ("refuse", 0.22), ("stop", 0.15), ("uncertain", 0.4), ("resume", 1.0))


def _command(d: Draw, ids: list[str], texts: dict[int, str], turn: int) -> Command:
    objective = "unknown_objective" if d.chance(0.07) else d.pick(ids)
    span = _span(d, texts, turn)
    value = span.quote if d.chance(0.06) else d.pick(VALUES)
    kind = "complete"
    for candidate, p in _KIND_CHANCES if d.chance(0.55) else ():
        if d.chance(p):
            kind = candidate
            break
    if kind == "complete":
        return Complete(objective=objective, span=span, value=value)
    if kind == "correct":
        return Correct(objective=objective, span=span, value=value)
    if kind == "refuse":
        return Refuse(objective=objective, span=span)
    if kind == "stop":
        return Stop(span=span)
    if kind == "uncertain":
        return Uncertain(objective=objective, span=span)
    return Resume(objective=objective if d.chance(0.5) else None, span=span)


def random_case(source: random.Random | Draw) -> Case:
    d = _draw(source)
    spec = random_spec(d)
    ids = [o.id for o in spec.spec.ordered()]
    turn = d.integer(1, 5)
    texts = {t: _text(d) for t in range(1, turn + 1)}
    # sometimes the quote of a valid span holds a value the validators accept
    if d.chance(0.5):
        texts[turn] = texts[turn] + " " + d.pick(["below 350.000 EUR", "a@b.com", "600000005", "Vera",
                                                  "me@home.org", "612 345 678", "sales@x.com", *CONTACT_PHRASES])
    messages = []
    last_asked = d.pick(ids) if d.chance(0.8) else None
    for t in range(1, turn + 1):
        messages.append(Message(role=Role.VISITOR, turn=t, text=texts[t]))
        if t < turn:
            # mostly the same objective, so that streaks of consecutive asks occur
            asked = (d.pick(ids) if d.chance(0.8) else None) if d.chance(0.4) else last_asked
            messages.append(Message(role=Role.ASSISTANT, turn=t, text="Assistant says a@b.com in Vera",
                                    asked_objective=asked))
    state = ConversationState(
        conversation_id="gen", goal_ref=spec.ref, goal_hash=spec.content_hash, bundle_hash="b", language="en",
        turn=turn, bits=[1 if d.chance(0.5) else 0 for _ in ids],
        refused=[i for i in ids if d.chance(0.15)],
        stopped=d.chance(0.1),
        uncertain={i: d.integer(0, turn) for i in ids if d.chance(0.2)},
        ask_counts={i: d.integer(0, 3) for i in ids if d.chance(0.5)},
        last_asked=last_asked,
        messages=messages,
    )
    commands: list[Command] = [_command(d, ids, texts, turn) for _ in range(d.integer(0, 6))]
    contact_ids = [o.id for o in spec.spec.ordered() if o.criterion.kind is CriterionKind.CONTACT]
    if contact_ids and d.chance(0.5):
        # a well-cited contact completion, so that the provenance rules (D-10) are exercised, not only the spans
        value = d.pick(CONTACT_VALUES)
        texts[turn] = texts[turn] + ". " + d.pick(CONTACT_PHRASES).replace("{v}", value)
        messages[-1] = Message(role=Role.VISITOR, turn=turn, text=texts[turn])
        state.messages = messages
        whole = Span(turn=turn, start=0, end=len(texts[turn]), quote=texts[turn])
        commands.insert(d.integer(0, len(commands)), Complete(objective=d.pick(contact_ids), span=whole,
                                                              value=value))
    company = tuple(t for t in COMPANY_TEXTS if d.chance(0.3))
    passages = tuple(t for t in PASSAGES if d.chance(0.2))
    return Case(spec=spec, state=state, commands=commands, company_question=d.chance(0.3),
                company_texts=company, passages=passages)


def _region(objective: Objective, bundle: RuleBundle) -> str:
    return str(objective.criterion.params.get("default_region") or bundle.file("criteria")["contact"]["default_region"])


def _streak(messages: list[Message], asked: str | None) -> int:
    """D-8 (written apart from the engine): trailing assistant messages, in a row, that asked ``asked``."""
    if asked is None:
        return 0
    questions = [m.asked_objective for m in messages if m.role == Role.ASSISTANT]
    count = 0
    while count < len(questions) and questions[len(questions) - 1 - count] == asked:
        count += 1
    return count


def reference_decision(case: Case, bundle: RuleBundle) -> RefDecision:
    """Run the reference model on an engine-shaped case. Validator outcomes and the language-data attribution of
    contact values (third party / refused markers) come from the engine's validators and marker matcher."""
    objectives = case.spec.spec.ordered()
    by_id = {o.id: o for o in objectives}
    rules = ProvenanceRules.from_bundle(bundle)
    candidates = []
    for c in case.commands:
        ok, normalized, third, refused, wished = True, None, False, False, False
        if isinstance(c, Complete | Correct) and c.objective in by_id:
            result = validate_value(by_id[c.objective].criterion, c.value, c.span.quote, bundle, case.spec.spec)
            ok, normalized = result.ok, result.normalized
            message = case.state.visitor_message(c.span.turn)
            if message is not None:  # D-10 (c) per channel of a several-channel value (spec/adr/0006)
                for channel in [p.strip() for p in c.value.split(";") if p.strip()] or [c.value]:
                    t, r = attribution(message.text, channel, (c.span.start, c.span.end), rules)
                    third, refused = third or t, refused or r
                if by_id[c.objective].criterion.kind.value in rules.wish_kinds:  # D-12
                    wished = others_wish(message.text, c.value, (c.span.start, c.span.end), rules)
        candidates.append(RefCandidate(c.type, getattr(c, "objective", None), c.span.turn, c.span.start,
                                       c.span.end, normalize(c.span.quote), ok, getattr(c, "value", ""),
                                       normalized, third, refused, wished))
    s = case.state
    ref_state = RefState(
        turn=s.turn, bits=tuple(s.bits),
        visitor_texts={m.turn: m.text for m in s.messages if m.role == "visitor"},
        refused=frozenset(s.refused), stopped=s.stopped, uncertain=dict(s.uncertain),
        ask_counts=dict(s.ask_counts), last_asked=s.last_asked, ask_streak=_streak(s.messages, s.last_asked),
        company_texts=case.company_texts,
        shown_texts=(*(m.text for m in s.messages if m.role == "assistant" and m.turn < s.turn), *case.passages),
        phone_min_digits=rules.min_digits,
        wish_kinds=rules.wish_kinds,
    )
    return decide(reference_objectives(case, bundle), ref_state, candidates, bundle.file("policy"),
                  case.company_question)


def reference_objectives(case: Case, bundle: RuleBundle) -> list[RefObjective]:
    """The case's objectives as the reference model sees them, in approved order."""
    return [RefObjective(o.id, Fraction(str(o.weight)), o.criterion.kind.value, _region(o, bundle))
            for o in case.spec.spec.ordered()]
