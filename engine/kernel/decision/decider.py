"""One turn's decision: candidates → acceptance → transition s ∨ z → policy → Z3 check (fail closed)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from engine.errors import GraceError
from engine.kernel.commands import Command, Complete, Correct, Refuse, Resume, Stop, Uncertain
from engine.kernel.company_data import locale_value
from engine.kernel.conversation import ConversationState, Role, ValueRecord
from engine.kernel.decision.facts import candidate_fact, provenance
from engine.kernel.decision.fast.acceptance_memo import memoised_acceptance
from engine.kernel.decision.fast.ground_check import shared_checker
from engine.kernel.decision.fast.utility_memo import memoised_policy_config
from engine.kernel.decision.invariants import CheckOutcome
from engine.kernel.decision.provenance import (
    CLEAN,
    FACTS,
    OTHERS_WISH,
    ContactIndex,
    ProvenanceContext,
    ProvenanceRules,
    contact_facts,
    others_wish,
)
from engine.kernel.goal_models import CriterionKind, PublishedGoalSpec
from engine.kernel.policy import (
    ActionUtility,
    ObjectiveView,
    OfflineRubric,
    Rubric,
    RubricContext,
    evaluate_actions,
)
from engine.kernel.ports import Citation
from engine.kernel.validators import ValidationResult, validate_value
from engine.rules.loader import RuleBundle
from spec.z3_encodings import TransitionFacts

ACCEPTED = "accepted"


@dataclass(frozen=True)
class CandidateDecision:
    index: int
    command: dict[str, Any]
    accepted: bool
    reason: str
    rule_id: str | None = None
    validator: str | None = None
    validator_code: str | None = None
    normalized: str | None = None
    judgement: str = "deterministic"

@dataclass
class Decision:
    candidates: list[CandidateDecision]
    malformed: list[dict[str, Any]]
    bits_before: list[int]
    z: list[int]
    bits_after: list[int]
    actions: list[ActionUtility]
    chosen: str | None
    invariant: CheckOutcome
    new_state: ConversationState
    fail_closed: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def action(self) -> str:
        return f"ASK({self.chosen})" if self.chosen else "NONE"


RubricRater = Callable[[list[str]], dict[str, Rubric]]
_LEVELS = {Fraction(0), Fraction(1, 2), Fraction(1)}


def _apply_rater(rater: RubricRater, open_ids: list[str], ids: list[str],
                 offline: list[Rubric]) -> tuple[list[Rubric], list[str]]:
    """Rubrics from an external rater where valid; the offline rubric everywhere else (fail safe, recorded)."""
    if not open_ids:
        return offline, []
    try:
        rated = rater(open_ids)
    except GraceError as exc:
        return offline, [f"rubric.fallback_offline: {exc.code}"]
    merged = list(offline)
    notes = []
    for index, oid in enumerate(ids):
        rubric = rated.get(oid)
        if oid not in open_ids or rubric is None:
            if oid in open_ids:
                notes.append(f"rubric.fallback_offline: rubric.not_rated {oid}")
            continue
        levels = (rubric.relevance, rubric.burden, rubric.repetition, rubric.privacy)
        if any(level not in _LEVELS for level in levels):
            notes.append(f"rubric.fallback_offline: rubric.level_invalid {oid}")
            continue
        merged[index] = rubric
    return merged, notes


def fork_state(state: ConversationState) -> ConversationState:
    """A copy whose mutable fields are fresh; messages and value records are frozen models and are shared."""
    return state.model_copy(update={
        "bits": list(state.bits),
        "refused": list(state.refused),
        "uncertain": dict(state.uncertain),
        "ask_counts": dict(state.ask_counts),
        "values": {k: list(v) for k, v in state.values.items()},
        "messages": list(state.messages),
        "audit_head": dict(state.audit_head) if state.audit_head is not None else None,
    })


class Decider:
    """Deterministic and free of I/O: the same state, commands and bundle give the same decision."""

    def __init__(self, spec: PublishedGoalSpec, bundle: RuleBundle, company: ContactIndex | None = None) -> None:
        """``company``: contact values in the company's corpus, directory and published contact details."""
        self.spec = spec
        self.bundle = bundle
        self.objectives = spec.spec.ordered()
        self.ids = [o.id for o in self.objectives]
        self.views = [ObjectiveView(o.id, Fraction(str(o.weight)), o.criterion.kind.value) for o in self.objectives]
        self.acceptance = memoised_acceptance(bundle)
        policy = bundle.file("policy")
        self.policy = memoised_policy_config(policy)
        limit = policy.get("max_consecutive_asks")
        self.max_consecutive_asks: int | None = None if limit is None else int(limit)
        self.rubric = OfflineRubric(policy["offline_rubric"])
        self.checker = shared_checker(int(policy["invariant_check"]["timeout_ms"]))
        self.provenance_rules = ProvenanceRules.from_bundle(bundle)
        default_region = str(bundle.file("criteria")["contact"]["default_region"])
        self.regions = {o.id: str(locale_value(spec.spec, o.criterion, "phone_region", "default_region")
                                  or default_region)
                        for o in self.objectives if o.criterion.kind is CriterionKind.CONTACT}
        self.company = company or ContactIndex()
        self.wish_objectives = frozenset(o.id for o in self.objectives
                                         if o.criterion.kind.value in self.provenance_rules.wish_kinds)

    def context(self, citations: Iterable[Citation]) -> ProvenanceContext:
        """The provenance context of one turn: the company's contacts and the passages retrieved this turn."""
        return ProvenanceContext(self.company, tuple(c.quote for c in citations))

    def _contact(self, state: ConversationState, command: Command, result: ValidationResult | None,
                 context: ProvenanceContext) -> dict[str, bool] | None:
        """D-10 facts for a Complete/Correct of a contact objective whose span is genuine visitor text."""
        if not isinstance(command, Complete | Correct) or command.objective not in self.regions:
            return None
        span = provenance(state, command)
        message = state.visitor_message(command.span.turn)
        if message is None or not (span["span_in_visitor_message"] and span["span_matches"]):
            return None  # rejected as not visitor text anyway (A02/A03)
        assistant = [m.text for m in state.messages if m.role is not Role.VISITOR and m.turn < state.turn]
        return contact_facts(command.value, result.normalized if result else None, message.text,
                             (command.span.start, command.span.end), self.regions[command.objective],
                             assistant, context, self.provenance_rules)

    def _wish(self, state: ConversationState, command: Command) -> dict[str, bool] | None:
        """D-12 fact for a Complete/Correct of a place or date objective whose span is genuine visitor text."""
        if not isinstance(command, Complete | Correct) or command.objective not in self.wish_objectives:
            return None
        span = provenance(state, command)
        message = state.visitor_message(command.span.turn)
        if message is None or not (span["span_in_visitor_message"] and span["span_matches"]):
            return None  # rejected as not visitor text anyway (A02/A03)
        wished = others_wish(message.text, command.value, (command.span.start, command.span.end),
                             self.provenance_rules)
        return {**CLEAN, OTHERS_WISH: wished}

    def _validate(self, command: Command) -> ValidationResult | None:
        if not isinstance(command, Complete | Correct) or command.objective not in self.ids:
            return None
        objective = self.objectives[self.ids.index(command.objective)]
        return validate_value(objective.criterion, command.value, command.span.quote, self.bundle, self.spec.spec)

    def decide(
        self,
        state: ConversationState,
        commands: list[Command],
        malformed: list[dict[str, Any]] | None = None,
        company_question: bool = False,
        rater: RubricRater | None = None,
        context: ProvenanceContext | None = None,
    ) -> Decision:
        """``state`` already holds the current visitor message and its turn number; it is not mutated.

        ``rater`` (an LLM's rubric, eq. 13) scores the open objectives; it may only supply levels in {0, ½, 1}.
        Any failure or any objective it leaves out falls back to the deterministic offline rubric.
        ``context`` adds what this turn retrieved to the company text a contact value must not come from.
        """
        context = context or ProvenanceContext(self.company)
        new = fork_state(state)
        candidates: list[CandidateDecision] = []
        z = [0] * len(self.ids)
        valued: set[str] = set()
        touched: set[str] = set()
        witness = [True] * len(self.ids)  # per objective: the accepted completion's span is visitor text
        own_contact = [True] * len(self.ids)  # per objective: the accepted value has visitor provenance (D-10)
        for index, command in enumerate(commands):
            objective = getattr(command, "objective", None)
            if objective is not None:
                touched.add(objective)
            result = self._validate(command)
            duplicate = isinstance(command, Complete | Correct) and objective in valued
            contact = self._contact(state, command, result, context) or self._wish(state, command)
            fact = candidate_fact(state, command, self.ids, result.ok if result else True, duplicate, contact)
            rule = self.acceptance.evaluate(fact)
            decision = CandidateDecision(
                index=index,
                command=command.model_dump(mode="json"),
                accepted=rule is None,
                reason=ACCEPTED if rule is None else rule.reason,
                rule_id=None if rule is None else rule.id,
                validator=result.validator if result else None,
                validator_code=result.code if result else None,
                normalized=result.normalized if result else None,
                judgement=result.judgement if result else "deterministic",
            )
            candidates.append(decision)
            if rule is None:
                self._apply(new, command, decision, z)
                if isinstance(command, Complete | Correct):
                    valued.add(command.objective)
                    witness[self.ids.index(command.objective)] = bool(
                        fact["span_in_visitor_message"] and fact["span_matches"]
                    )
                    # INVARIANT (I-14): recomputed from the facts, not from the rules: a rule file missing A08-A12
                    # fails the Z3 check.
                    own_contact[self.ids.index(command.objective)] = not any(fact[f] for f in FACTS)
        bits_after = [max(s, zz) for s, zz in zip(state.bits, z, strict=True)]  # INVARIANT (I-6): s' = s ∨ z
        new.bits = bits_after
        rested = self._rested(state)
        vetoed = [new.stopped or oid in new.refused or oid == rested for oid in self.ids]
        ctx = RubricContext(
            turn=state.turn,
            last_asked=state.last_asked,
            ask_counts=dict(state.ask_counts),
            uncertain_turns=dict(new.uncertain),
            touched_this_turn=frozenset(touched),
            company_question=company_question,
        )
        rubrics = [self.rubric.score(view, ctx) for view in self.views]
        notes: list[str] = []
        if rested is not None:
            notes.append(f"policy.rested:{rested}: asked in {state.ask_streak()} consecutive turns")
        if rater is not None:
            open_ids = [oid for oid, bit in zip(self.ids, bits_after, strict=True) if bit == 0]
            rubrics, notes = _apply_rater(rater, open_ids, self.ids, rubrics)
        actions, chosen_index = evaluate_actions(self.views, bits_after, vetoed, rubrics, self.policy)
        facts = TransitionFacts(
            before=list(state.bits),
            z=z,
            after=bits_after,
            weights=[v.weight for v in self.views],
            visitor_witness=witness,
            visitor_contact=own_contact,
            vetoed=vetoed,
            ask_utility=[a.u_v for a in actions[:-1]],
            none_utility=self.policy.none_utility,
            epsilon=self.policy.epsilon,
            chosen=chosen_index,
        )
        outcome = self.checker.check(facts)
        chosen = None if chosen_index is None else self.ids[chosen_index]
        if not outcome.ok:
            # INVARIANT (I-10): on any doubt the accepted state stays exactly as it was.
            return Decision(candidates, list(malformed or []), list(state.bits), [0] * len(self.ids),
                            list(state.bits), actions, None, outcome, fork_state(state),
                            fail_closed=f"invariant.{'violated' if outcome.status == 'sat' else 'unknown'}")
        if chosen is not None:
            new.ask_counts[chosen] = new.ask_counts.get(chosen, 0) + 1
        new.last_asked = chosen
        return Decision(candidates, list(malformed or []), list(state.bits), z, bits_after, actions, chosen,
                        outcome, new, notes=notes)

    def _rested(self, state: ConversationState) -> str | None:
        """The objective asked in each of the last ``max_consecutive_asks`` turns: vetoed for this turn (D-8)."""
        if self.max_consecutive_asks is None or state.last_asked is None:
            return None
        return state.last_asked if state.ask_streak() >= self.max_consecutive_asks else None

    def _apply(self, new: ConversationState, command: Command, decision: CandidateDecision, z: list[int]) -> None:
        if isinstance(command, Complete | Correct):
            index = self.ids.index(command.objective)
            if new.bits[index] == 0:
                z[index] = 1  # INVARIANT (I-5): only an accepted, visitor-witnessed candidate sets z_i
            record = ValueRecord(turn=command.span.turn, kind=command.type,
                                 value=decision.normalized or command.value,
                                 span_start=command.span.start, span_end=command.span.end)
            new.values.setdefault(command.objective, []).append(record)
        elif isinstance(command, Refuse):
            if command.objective not in new.refused:
                new.refused.append(command.objective)
        elif isinstance(command, Uncertain):
            new.uncertain[command.objective] = new.turn
        elif isinstance(command, Stop):
            new.stopped = True
        elif isinstance(command, Resume):
            if command.objective is None:
                new.stopped = False
            elif command.objective in new.refused:
                new.refused.remove(command.objective)

