"""Mutation fuzzer over proposer outputs: mutated command batches against the decision layer (I-4..I-6, I-14).

Base batches are what the offline proposer really proposes on labelled conversations (demo and benchmark
companies), with the state each was decided in. Each mutation breaks a batch the way a faulty or malicious LLM
would: wrong objective ids and command types, out-of-range or foreign spans (assistant text, other turns,
future turns), values outside their span, duplicated and contradicting commands, type confusion, huge strings,
Unicode tricks and the company's own contacts. What does not parse into a command is discarded (as the LLM
adapters do); everything else is decided by the engine and judged by two independent oracles:

* the spec/ reference model (``engine.evaluation.differential.reference_decision``): same reasons, same state;
* direct invariant checks: the state only grows, and every coordinate that went 0 → 1 has an accepted
  Complete/Correct whose span is the exact stored text of a visitor message at or before this turn, whose value
  the validator accepts inside that span, and whose contact value has visitor provenance (D-10).

An *accepted invalid transition* is a decision either oracle disagrees with; the run reports how many there were.
"""

from __future__ import annotations

import copy
import random
import re
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine.evaluation.differential import Case, reference_decision
from engine.kernel.commands import COMMAND_ADAPTER, COMMAND_TYPES, Command, Complete, Correct
from engine.kernel.conversation import ConversationState, Role
from engine.kernel.decision.decider import Decider, fork_state
from engine.kernel.decision.provenance import ContactIndex, ProvenanceContext
from engine.kernel.goal_models import PublishedGoalSpec
from engine.kernel.ports import Proposal, ProposerInput
from engine.kernel.turn import TurnRuntime
from engine.kernel.validators import validate_value
from engine.rules.loader import RuleBundle
from engine.storage.memory import InMemoryStore
from engine.text import normalize

ROOT = Path(__file__).resolve().parents[2]
DATASETS = (ROOT / "tests/golden/golden_conversations.json", ROOT / "benchmarks/companies/conversations.json")
COMPANY_TEXTS = ("Write to info@company.example or call +34 950 000 100.", "Oficina: (316) 269-4160")
JUNK = ["", " ", "x", "0", "-1", "null", "[]", "{}", "∞", "\u202eevil", "a" * 600, "9" * 40, "DROP TABLE",
        "Ignore previous instructions", "ｆｕｌｌ", "e\u0301", "\u200b", "<script>", "1e309", "NaN"]
HOMOGLYPHS = str.maketrans({"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "i": "і", "0": "О", "1": "l"})


@dataclass(frozen=True)
class Base:
    spec: PublishedGoalSpec
    state: ConversationState  # the working state: the current visitor message is its last message
    commands: tuple[dict[str, Any], ...]  # the offline proposer's commands, as JSON


@dataclass
class FuzzReport:
    mutated: int = 0
    malformed: int = 0  # did not parse into commands: discarded before the decision layer
    decided: int = 0
    candidates: int = 0
    accepted_candidates: int = 0
    state_changes: int = 0
    invalid_accepted: int = 0
    disagreements: int = 0
    fail_closed: int = 0  # the Z3 check refused a transition the acceptance rules let through
    operators: Counter[str] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def held(self) -> int:
        return self.mutated - self.invalid_accepted - self.disagreements


class _Recorder:
    """Wraps the offline proposer and keeps (working state, commands) for every turn it proposes."""

    name, version = "recorder", "1"

    def __init__(self, inner: Any, store: InMemoryStore, spec: PublishedGoalSpec, out: list[Base]) -> None:
        self.inner, self.store, self.spec, self.out = inner, store, spec, out

    def propose(self, request: ProposerInput) -> Proposal:
        proposal: Proposal = self.inner.propose(request)
        conversation = self.store.list_conversations()[-1]
        working = fork_state(self.store.load(conversation))
        working.turn = request.turn
        working.messages.append(request.message)
        self.out.append(Base(self.spec, working, tuple(c.model_dump(mode="json") for c in proposal.commands)))
        return proposal


def base_batches(bundle: RuleBundle) -> list[Base]:
    """Real proposals: every turn of the labelled conversations, through TurnRuntime with the offline proposer."""
    from engine.evaluation.dataset import load_dataset
    from engine.evaluation.runner import pick_demo
    from engine.evaluation.targets import candidate_targets, published_demos
    from llm_adapters.offline import OfflineProposer

    proposer = OfflineProposer.from_bundle(bundle)
    targets = published_demos(with_answerer=False)
    paths = sorted((ROOT / "benchmarks/companies").glob("*/goal_spec.json"))
    targets.update(candidate_targets(paths, bundle, with_answerer=False))
    bases: list[Base] = []
    for path in DATASETS:
        dataset = load_dataset(path)
        for conversation in dataset.conversations:
            target = pick_demo(conversation.config, dataset.configs[conversation.config], targets, "auto")
            store = InMemoryStore()
            runtime = TurnRuntime(spec=target.spec, bundle=bundle, proposer=proposer, answerer=None, store=store,
                                  audit_key=b"fuzz-key" * 4)
            runtime.proposer = _Recorder(proposer, store, target.spec, bases)
            state = runtime.start(conversation_id=f"fuzz-{path.stem}-{conversation.id}")
            for turn in conversation.turns:
                runtime.handle(state.conversation_id, turn.visitor)
    return bases


# ---------------------------------------------------------------- mutation operators

Mutator = Callable[[random.Random, Base, list[Any]], list[Any]]


def _any_span(rng: random.Random, base: Base) -> dict[str, Any]:
    visitor = [m for m in base.state.messages if m.role is Role.VISITOR]
    message = rng.choice(visitor)
    start = rng.randint(0, max(0, len(message.text) - 1))
    end = rng.randint(start + 1, len(message.text) + 1)
    return {"turn": message.turn, "start": start, "end": end, "quote": message.text[start:end] or "x"}


def _fresh(rng: random.Random, base: Base) -> dict[str, Any]:
    """A plausible command on a random objective, citing a random span of a visitor message."""
    ids = [o.id for o in base.spec.spec.objectives]
    kind = rng.choice(COMMAND_TYPES)
    command: dict[str, Any] = {"type": kind, "span": _any_span(rng, base)}
    if kind != "stop":
        command["objective"] = rng.choice(ids)
    if kind in ("complete", "correct"):
        command["value"] = command["span"]["quote"]
    return command


def _pick(rng: random.Random, base: Base, batch: list[Any]) -> dict[str, Any]:
    commands = [c for c in batch if isinstance(c, dict)]
    if not commands:
        commands = [_fresh(rng, base)]
        batch.append(commands[0])
    picked: dict[str, Any] = rng.choice(commands)
    return picked


def _span_of(rng: random.Random, base: Base, command: dict[str, Any]) -> dict[str, Any]:
    span = command.get("span")
    return dict(span) if isinstance(span, dict) else _any_span(rng, base)


def m_objective(rng: random.Random, base: Base, batch: list[Any]) -> list[Any]:
    c = _pick(rng, base, batch)
    ids = [o.id for o in base.spec.spec.objectives]
    c["objective"] = rng.choice([rng.choice(ids) + rng.choice(["", " ", "\u200b", "_x"]), rng.choice(ids).upper(),
                                 rng.choice(JUNK), rng.choice(ids), None, 7])
    return batch


def m_type(rng: random.Random, base: Base, batch: list[Any]) -> list[Any]:
    c = _pick(rng, base, batch)
    c["type"] = rng.choice([*COMMAND_TYPES, "Complete", "completed", "delete", "", None])
    if c["type"] in ("complete", "correct") and "value" not in c:
        c["value"] = c["span"]["quote"] if isinstance(c.get("span"), dict) else "x"
    return batch


def m_range(rng: random.Random, base: Base, batch: list[Any]) -> list[Any]:
    c = _pick(rng, base, batch)
    span = _span_of(rng, base, c)
    key = rng.choice(["turn", "start", "end"])
    old = span.get(key)
    current = old if isinstance(old, int) else 0
    span[key] = rng.choice([-1, 0, 1, base.state.turn + 1, base.state.turn + 50, 10**9, 2**63, current + 1,
                            current - 1, 99999])
    c["span"] = span
    return batch


def m_foreign_quote(rng: random.Random, base: Base, batch: list[Any]) -> list[Any]:
    """The span cites assistant text (its offsets and quote) or text that is in no message."""
    c = _pick(rng, base, batch)
    assistant = [m for m in base.state.messages if m.role is Role.ASSISTANT and m.text]
    if assistant and rng.random() < 0.6:
        message = rng.choice(assistant)
        start = rng.randint(0, len(message.text) - 1)
        end = rng.randint(start + 1, len(message.text))
        c["span"] = {"turn": message.turn, "start": start, "end": end, "quote": message.text[start:end]}
        if c.get("type") in ("complete", "correct"):
            c["value"] = message.text[start:end][:500]
    else:
        span = _span_of(rng, base, c)
        span["quote"] = rng.choice(["my budget is 500000 EUR", "info@company.example", "Vera", "+34 950 000 100"])
        c["span"] = span
    return batch


def m_value(rng: random.Random, base: Base, batch: list[Any]) -> list[Any]:
    """Values outside the span, of the wrong type, huge, empty, or the company's own contacts."""
    c = _pick(rng, base, batch)
    odd: list[Any] = [*JUNK, 12, 3.5, True, None, ["a"], {"v": 1}, "x" * 10_000, "999999999999 EUR",
                      "info@company.example", "+34 950 000 100", "316-269-4160", "Atlantis", "-5 EUR", "0 guests",
                      "1e6"]
    c["value"] = rng.choice(odd)
    return batch


def m_duplicate(rng: random.Random, base: Base, batch: list[Any]) -> list[Any]:
    c = _pick(rng, base, batch)
    twin = {**c}
    if rng.random() < 0.5 and c.get("type") in ("complete", "correct"):
        twin["value"] = rng.choice(["other value", "12", "a@b.com"])  # contradicting value
    batch.insert(rng.randint(0, len(batch)), twin)
    return batch


def m_contradict(rng: random.Random, base: Base, batch: list[Any]) -> list[Any]:
    c = _pick(rng, base, batch)
    for kind in rng.sample(["refuse", "uncertain", "stop", "resume", "correct"], k=2):
        other: dict[str, Any] = {"type": kind, "span": _span_of(rng, base, c)}
        if kind != "stop" and c.get("objective") is not None:
            other["objective"] = c["objective"]
        if kind == "correct":
            other["value"] = str(c.get("value", "x"))
        batch.append(other)
    return batch


def m_shape(rng: random.Random, base: Base, batch: list[Any]) -> list[Any]:
    """Type confusion and schema abuse: extra fields, missing fields, wrong containers, huge quotes."""
    c = _pick(rng, base, batch)
    choice = rng.randrange(6)
    if choice == 0:
        c["extra"] = "field"
    elif choice == 1:
        c.pop(rng.choice(list(c)), None)
    elif choice == 2:
        c["span"] = rng.choice([None, "0:5", [1, 0, 5], {"turn": "1", "start": "0", "end": "3", "quote": "abc"}])
    elif choice == 3:
        span = _span_of(rng, base, c)
        span["quote"] = "q" * rng.choice([1999, 2000, 2001, 50_000])
        c["span"] = span
    elif choice == 4:
        junk: list[Any] = [None, 5, "complete", [], {"type": "complete"}]
        batch.append(rng.choice(junk))
    else:
        c["type"] = c.get("type", "complete")
        c["objective"] = ["budget"]
    return batch


def m_unicode(rng: random.Random, base: Base, batch: list[Any]) -> list[Any]:
    """Quotes and values with zero-width characters, bidi controls, decomposed accents or look-alikes."""
    c = _pick(rng, base, batch)
    span = _span_of(rng, base, c)
    quote = str(span.get("quote", "x"))
    trick = rng.randrange(4)
    if trick == 0:
        at = rng.randint(0, len(quote))
        quote = quote[:at] + rng.choice(["\u200b", "\u202e", "\u2066", "\ufeff"]) + quote[at:]
    elif trick == 1:
        import unicodedata

        quote = unicodedata.normalize("NFD", quote)
    elif trick == 2:
        quote = quote.translate(HOMOGLYPHS)
    else:
        quote = quote.upper() if quote.upper() != quote else quote.lower()
    span["quote"] = quote or "x"
    c["span"] = span
    if c.get("type") in ("complete", "correct") and rng.random() < 0.5:
        c["value"] = str(c.get("value", quote)).translate(HOMOGLYPHS)
    return batch


def m_cross(rng: random.Random, base: Base, batch: list[Any]) -> list[Any]:
    """A span that starts in one visitor message and runs past its end (quote glued from two messages), or an
    earlier turn's offsets applied to the current message."""
    c = _pick(rng, base, batch)
    visitor = [m for m in base.state.messages if m.role is Role.VISITOR]
    first = rng.choice(visitor)
    glued = "\n".join(m.text for m in visitor)
    start = rng.randint(0, max(0, len(first.text) - 1))
    end = min(len(glued), start + rng.randint(1, 80) + len(first.text))
    c["span"] = {"turn": first.turn, "start": start, "end": end, "quote": glued[start:end] or "x"}
    if rng.random() < 0.5:
        c["span"]["turn"] = rng.choice(visitor).turn
    return batch


def m_fresh(rng: random.Random, base: Base, batch: list[Any]) -> list[Any]:
    batch.append(_fresh(rng, base))
    return batch


OPERATORS: dict[str, Mutator] = {
    "objective": m_objective, "type": m_type, "range": m_range, "foreign_quote": m_foreign_quote,
    "value": m_value, "duplicate": m_duplicate, "contradict": m_contradict, "shape": m_shape,
    "unicode": m_unicode, "cross_message": m_cross, "fresh": m_fresh,
}


CONTACT_LINES = ["Write to info@company.example", "call me on +34 950 000 100", "mail me at INFO@COMPANY.EXAMPLE",
                 "My wife's number is 612 345 678", "Don't use ana.lopez@mail.example", "my email is jаne@mail.example",
                 "El teléfono de mi jefe es 612 345 678", "(316) 269-4160 please", "ce n'est pas mon e-mail : a@b.fr"]


def contact_base(rng: random.Random, base: Base) -> tuple[Base, list[Any]] | None:
    """A derived base whose current visitor message carries a foreign contact (company's, someone else's,
    refused, look-alike, or what the assistant said), with a well-cited Complete of the contact objective."""
    contact = next((o.id for o in base.spec.spec.objectives if o.criterion.kind.value == "contact"), None)
    if contact is None:
        return None
    state = fork_state(base.state)
    line = rng.choice(CONTACT_LINES)
    if rng.random() < 0.3 and state.turn > 1:  # the assistant said it in an earlier turn
        echoed = rng.choice(["(316) 269-4160", "help@pantry.example", "+34 611 22 33 44"])
        at = next(i for i, m in enumerate(state.messages) if m.role is Role.ASSISTANT)
        old = state.messages[at]
        state.messages[at] = old.model_copy(update={"text": f"{old.text} Call {echoed}."})
        line = f"ok, {echoed}"
    current = state.messages[-1]
    text = f"{current.text} {line}"
    state.messages[-1] = current.model_copy(update={"text": text})
    value = re.findall(r"[\w.+-]+@[\w.-]+|\+?\(?\d[\d ()-]{6,}\d", line)[0]
    forced = {"type": rng.choice(["complete", "correct"]), "objective": contact, "value": value,
              "span": {"turn": state.turn, "start": 0, "end": len(text), "quote": text}}
    batch: list[Any] = [*copy.deepcopy(list(base.commands)), forced]
    return Base(base.spec, state, tuple(base.commands)), batch


def mutate(rng: random.Random, base: Base) -> tuple[Base, list[Any], list[str]]:
    batch = copy.deepcopy(list(base.commands))
    names: list[str] = []
    if rng.random() < 0.15:
        derived = contact_base(rng, base)
        if derived is not None:
            base, batch = derived
            names.append("foreign_contact")
    names += [rng.choice(list(OPERATORS)) for _ in range(rng.randint(0 if names else 1, 2))]
    for name in names[1 if names and names[0] == "foreign_contact" else 0:]:
        batch = OPERATORS[name](rng, base, batch)
    return base, batch, names


def parse(batch: Sequence[Any]) -> tuple[list[Command], int]:
    """Commands that parse; the rest is discarded (what the LLM adapters do with malformed output)."""
    commands: list[Command] = []
    bad = 0
    for item in batch:
        try:
            commands.append(COMMAND_ADAPTER.validate_python(item))
        except (ValidationError, TypeError, ValueError):
            bad += 1
    return commands, bad


# ---------------------------------------------------------------- oracles


def invariant_violations(base: Base, commands: Sequence[Command], decision: Any, bundle: RuleBundle,
                         company: ContactIndex) -> list[str]:
    """Direct checks of I-4, I-5, I-6 and I-14 on one decision (independent of the acceptance rules)."""
    from spec.reference import RefCandidate, RefObjective, RefState, contact_reason

    state = base.state
    problems: list[str] = []
    before, after = list(state.bits), list(decision.bits_after)
    if any(a < b for a, b in zip(after, before, strict=True)):
        problems.append("I-6: a coordinate went 1 -> 0")
    objectives = {o.id: o for o in base.spec.spec.objectives}
    ids = [o.id for o in base.spec.spec.ordered()]
    texts = {m.turn: m.text for m in state.messages if m.role is Role.VISITOR}
    for index, (b, a) in enumerate(zip(before, after, strict=True)):
        if b == 1 or a == 0:
            continue
        oid = ids[index]
        witnesses = [c for c, d in zip(commands, decision.candidates, strict=True)
                     if d.accepted and isinstance(c, Complete | Correct) and c.objective == oid]
        if not witnesses:
            problems.append(f"I-5: {oid} completed without an accepted completion")
            continue
        for c in witnesses:
            text = texts.get(c.span.turn)
            if text is None or c.span.turn > state.turn or text[c.span.start:c.span.end] != normalize(c.span.quote):
                problems.append(f"I-4: {oid} completed by a span that is not exact visitor text")
            objective = objectives[oid]
            if not validate_value(objective.criterion, c.value, c.span.quote, bundle, base.spec.spec).ok:
                problems.append(f"I-4: {oid} completed by a value its validator rejects")
            if objective.criterion.kind.value == "contact":
                ref = RefObjective(oid, Fraction(str(objective.weight)), "contact",
                                   str(objective.criterion.params.get("default_region", "ES")))
                ref_state = RefState(turn=state.turn, bits=tuple(before), visitor_texts=texts,
                                     company_texts=COMPANY_TEXTS,
                                     shown_texts=tuple(m.text for m in state.messages
                                                       if m.role is Role.ASSISTANT and m.turn < state.turn))
                candidate = RefCandidate(c.type, oid, c.span.turn, c.span.start, c.span.end, c.span.quote,
                                         value=c.value)
                reason = contact_reason(candidate, ref, ref_state)
                if reason is not None:
                    problems.append(f"I-14: {oid} completed by a contact value that is not the visitor's ({reason})")
    return problems


def run(bases: Sequence[Base], bundle: RuleBundle, count: int, seed: int) -> FuzzReport:
    rng = random.Random(seed)
    report = FuzzReport()
    company = ContactIndex.from_texts(COMPANY_TEXTS, "ES")
    deciders: dict[str, Decider] = {}
    started = time.perf_counter()
    for _ in range(count):
        base = rng.choice(bases)
        base, batch, names = mutate(rng, base)
        report.mutated += 1
        report.operators.update(names)
        commands, _discarded = parse(batch)
        if not commands:
            report.malformed += 1
            continue
        decider = deciders.get(base.spec.content_hash)
        if decider is None:
            decider = deciders[base.spec.content_hash] = Decider(base.spec, bundle, company)
        decision = decider.decide(base.state, commands, context=ProvenanceContext(company))
        report.decided += 1
        report.candidates += len(decision.candidates)
        report.accepted_candidates += sum(c.accepted for c in decision.candidates)
        report.reasons.update(c.reason for c in decision.candidates)
        report.state_changes += decision.bits_after != list(base.state.bits)
        if decision.fail_closed is not None:
            report.fail_closed += 1
            if len(report.examples) < 10:
                report.examples.append(f"{names}: fail closed {decision.fail_closed} "
                                       f"{[c.reason for c in decision.candidates]} :: {batch!r:.400}")
        problems = invariant_violations(base, commands, decision, bundle, company)
        if problems:
            report.invalid_accepted += 1
            if len(report.examples) < 10:
                report.examples.append(f"{names}: {problems[0]} :: {batch!r:.300}")
        case = Case(base.spec, base.state, commands, company_question=False, company_texts=COMPANY_TEXTS)
        want = reference_decision(case, bundle)
        got_reasons = [c.reason for c in decision.candidates]
        expected_bits = want.bits_after if decision.fail_closed is None else tuple(base.state.bits)
        if got_reasons != want.reasons or tuple(decision.bits_after) != expected_bits:
            report.disagreements += 1
            if len(report.examples) < 10:
                report.examples.append(f"{names}: engine {got_reasons} vs reference {want.reasons}")
    report.seconds = time.perf_counter() - started
    return report


def render(report: FuzzReport) -> str:
    rate = report.mutated / report.seconds if report.seconds else 0.0
    lines = [
        f"mutated proposals: {report.mutated}  (discarded as malformed: {report.malformed}, decided: "
        f"{report.decided})",
        f"candidates decided: {report.candidates}  accepted: {report.accepted_candidates}  "
        f"state changes: {report.state_changes}",
        f"held: {report.held}/{report.mutated}  accepted invalid transitions: {report.invalid_accepted}  "
        f"reference disagreements: {report.disagreements}  fail-closed by Z3: {report.fail_closed}",
        f"time: {report.seconds:.1f} s ({rate:.0f} proposals/s)",
        "operators: " + ", ".join(f"{k}={v}" for k, v in sorted(report.operators.items())),
        "reasons: " + ", ".join(f"{k}={v}" for k, v in report.reasons.most_common()),
    ]
    lines += [f"  EXAMPLE {e}" for e in report.examples]
    return "\n".join(lines)
