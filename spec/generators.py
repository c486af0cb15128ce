"""Random decision inputs for the differential tests, property tests and the decision benchmark (seeded)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from fractions import Fraction
from typing import Any

from engine.commands import Command, Complete, Correct, Refuse, Resume, Span, Stop, Uncertain
from engine.conversation import ConversationState, Message, Role
from engine.decision.provenance import ProvenanceRules, attribution
from engine.goals.models import Criterion, CriterionKind, GoalSpec, Objective, PublishedGoalSpec
from engine.goals.publication import spec_hash
from engine.rules_bundle import RuleBundle
from engine.text import normalize
from engine.validators import validate_value
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
                  "+34 600 000 005", "950 000 100", "600000005", "info@empresa.example"]
CONTACT_PHRASES = ["my email is {v}", "call me at {v}", "my wife's phone is {v}", "{v} is my husband's, mine is x",
                   "don't use {v}", "mi correo es {v}", "no es mi correo: {v}", "mon numéro est {v}",
                   "le numéro de ma femme est {v}", "{v}", "reach me on {v} but not my colleague"]
PASSAGES = ["Pantry line: (950) 000-100", "Contact ａ@b.com", "Call 612 345 678 for help"]


@dataclass
class Case:
    spec: PublishedGoalSpec
    state: ConversationState
    commands: list[Command]
    company_question: bool
    company_texts: tuple[str, ...] = ()  # D-10: the company's corpus/contact details
    passages: tuple[str, ...] = ()  # D-10: passages retrieved this turn


def random_spec(rng: random.Random) -> PublishedGoalSpec:
    n = rng.randint(1, 6)
    cuts = sorted(rng.sample(range(1, 20), n - 1)) if n > 1 else []
    parts = [b - a for a, b in zip([0, *cuts], [*cuts, 20], strict=True)]
    objectives = []
    for i, part in enumerate(parts):
        kind, params = rng.choice(KINDS)
        objectives.append(Objective(
            id=f"o{i}", name=f"Objective {i}", questions={"en": f"Question {i}?"},
            criterion=Criterion(kind=kind, description="random", params=params),
            weight=Decimal(part) / Decimal(20), order=i + 1,
        ))
    spec = GoalSpec(id="random", title="Random", default_language="en", languages=["en"], objectives=objectives)
    return PublishedGoalSpec(spec=spec, version=1, content_hash=spec_hash(spec), approved_by="gen",
                             approved_at=datetime(2026, 1, 1, tzinfo=UTC))


def _text(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 8))).replace("\u200b", "").strip() or "hi"


def _span(rng: random.Random, texts: dict[int, str], turn: int) -> Span:
    choice = rng.random()
    t = rng.randint(1, turn)
    text = texts[t]
    start = rng.randint(0, max(0, len(text) - 1))
    end = rng.randint(start + 1, len(text)) if len(text) > start else start + 1
    quote = text[start:end] or "x"
    if choice < 0.08:
        return Span(turn=turn + rng.randint(1, 2), start=start, end=end, quote=quote)  # future turn
    if choice < 0.16:
        return Span(turn=t, start=start, end=end + 50, quote=quote)  # out of range
    if choice < 0.26:
        return Span(turn=t, start=start, end=end, quote=quote + "!")  # mismatch
    if choice < 0.30:
        return Span(turn=t, start=start, end=end, quote=quote.upper() if quote.upper() != quote else quote + "Z")
    return Span(turn=t, start=start, end=end, quote=quote)


def random_case(rng: random.Random) -> Case:
    spec = random_spec(rng)
    ids = [o.id for o in spec.spec.ordered()]
    turn = rng.randint(1, 5)
    texts = {t: _text(rng) for t in range(1, turn + 1)}
    # sometimes the quote of a valid span holds a value the validators accept
    if rng.random() < 0.5:
        texts[turn] = texts[turn] + " " + rng.choice(["below 350.000 EUR", "a@b.com", "600000005", "Vera",
                                                      "me@home.org", "612 345 678", "sales@x.com", *CONTACT_PHRASES])
    messages = []
    last_asked = rng.choice([None, *ids])
    for t in range(1, turn + 1):
        messages.append(Message(role=Role.VISITOR, turn=t, text=texts[t]))
        if t < turn:
            # mostly the same objective, so that streaks of consecutive asks occur
            asked = last_asked if rng.random() < 0.6 else rng.choice([None, *ids])
            messages.append(Message(role=Role.ASSISTANT, turn=t, text="Assistant says a@b.com in Vera",
                                    asked_objective=asked))
    state = ConversationState(
        conversation_id="gen", goal_ref=spec.ref, goal_hash=spec.content_hash, bundle_hash="b", language="en",
        turn=turn, bits=[rng.randint(0, 1) for _ in ids],
        refused=[i for i in ids if rng.random() < 0.15],
        stopped=rng.random() < 0.1,
        uncertain={i: rng.randint(0, turn) for i in ids if rng.random() < 0.2},
        ask_counts={i: rng.randint(0, 3) for i in ids if rng.random() < 0.5},
        last_asked=last_asked,
        messages=messages,
    )
    commands: list[Command] = []
    for _ in range(rng.randint(0, 6)):
        objective = rng.choice(ids) if rng.random() > 0.07 else "unknown_objective"
        span = _span(rng, texts, turn)
        kind = rng.random()
        value = rng.choice(VALUES + [span.quote])
        if kind < 0.45:
            commands.append(Complete(objective=objective, span=span, value=value))
        elif kind < 0.6:
            commands.append(Correct(objective=objective, span=span, value=value))
        elif kind < 0.72:
            commands.append(Refuse(objective=objective, span=span))
        elif kind < 0.8:
            commands.append(Stop(span=span))
        elif kind < 0.9:
            commands.append(Uncertain(objective=objective, span=span))
        else:
            commands.append(Resume(objective=rng.choice([None, objective]), span=span))
    contact_ids = [o.id for o in spec.spec.ordered() if o.criterion.kind is CriterionKind.CONTACT]
    if contact_ids and rng.random() < 0.5:
        # a well-cited contact completion, so that the provenance rules (D-10) are exercised, not only the spans
        value = rng.choice(CONTACT_VALUES)
        texts[turn] = texts[turn] + ". " + rng.choice(CONTACT_PHRASES).replace("{v}", value)
        messages[-1] = Message(role=Role.VISITOR, turn=turn, text=texts[turn])
        state.messages = messages
        whole = Span(turn=turn, start=0, end=len(texts[turn]), quote=texts[turn])
        commands.insert(rng.randint(0, len(commands)), Complete(objective=rng.choice(contact_ids), span=whole,
                                                                value=value))
    company = tuple(t for t in COMPANY_TEXTS if rng.random() < 0.3)
    passages = tuple(t for t in PASSAGES if rng.random() < 0.2)
    return Case(spec=spec, state=state, commands=commands, company_question=rng.random() < 0.3,
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
        ok, normalized, third, refused = True, None, False, False
        if isinstance(c, Complete | Correct) and c.objective in by_id:
            result = validate_value(by_id[c.objective].criterion, c.value, c.span.quote, bundle, case.spec.spec)
            ok, normalized = result.ok, result.normalized
            message = case.state.visitor_message(c.span.turn)
            if message is not None:
                third, refused = attribution(message.text, c.value, (c.span.start, c.span.end), rules)
        candidates.append(RefCandidate(c.type, getattr(c, "objective", None), c.span.turn, c.span.start,
                                       c.span.end, normalize(c.span.quote), ok, getattr(c, "value", ""),
                                       normalized, third, refused))
    s = case.state
    ref_state = RefState(
        turn=s.turn, bits=tuple(s.bits),
        visitor_texts={m.turn: m.text for m in s.messages if m.role == "visitor"},
        refused=frozenset(s.refused), stopped=s.stopped, uncertain=dict(s.uncertain),
        ask_counts=dict(s.ask_counts), last_asked=s.last_asked, ask_streak=_streak(s.messages, s.last_asked),
        company_texts=case.company_texts,
        shown_texts=(*(m.text for m in s.messages if m.role == "assistant" and m.turn < s.turn), *case.passages),
        phone_min_digits=rules.min_digits,
    )
    return decide([RefObjective(o.id, Fraction(str(o.weight)), o.criterion.kind.value, _region(o, bundle))
                   for o in objectives],
                  ref_state, candidates, bundle.file("policy"), case.company_question)
