"""The GRACE turn (paper Algorithm 2): answer, propose, decide, select, persist one audit record atomically."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import structlog

from engine.conversation import ConversationState, Message, Role
from engine.decision.decider import Decider, Decision
from engine.errors import GraceError, InputError, IntegrityError
from engine.goals.company_data import resolve_vocabulary
from engine.goals.models import PublishedGoalSpec
from engine.goals.publication import spec_hash
from engine.input_checks import check_visitor_text
from engine.ports import (
    Answerer,
    ConversationStore,
    GroundedAnswer,
    Proposal,
    Proposer,
    ProposerInput,
    TurnRater,
)
from engine.rules_bundle import RuleBundle
from engine.turn_record import build_record, seal_for_store

log = structlog.get_logger("grace.turn")

# (objective id, canonical question, grounded answer, language) -> modulated question or None
Modulator = Callable[[str, str, GroundedAnswer, str], str | None]


@dataclass(frozen=True)
class TurnResult:
    conversation_id: str
    turn: int
    answer: GroundedAnswer
    question: str | None
    action: str
    state: str
    record: dict[str, Any]
    fail_closed: str | None

    def response_text(self) -> str:
        return "\n\n".join(part for part in (self.answer.text, self.question or "") if part)


class TurnRuntime:
    """Runs turns for one published goal spec and one rule bundle; every conversation is pinned to both."""

    def __init__(
        self,
        *,
        spec: PublishedGoalSpec,
        bundle: RuleBundle,
        proposer: Proposer,
        answerer: Answerer | None,
        store: ConversationStore,
        audit_key: bytes,
        modulator: Modulator | None = None,
        rater: TurnRater | None = None,
    ) -> None:
        if spec_hash(spec.spec) != spec.content_hash:
            # INVARIANT (I-12): only an intact published version is served.
            raise IntegrityError(f"{spec.ref}: content does not match its published hash",
                                 code="goalspec.hash_mismatch")
        missing = [f"{o.id} -> {o.criterion.params['vocabulary']}" for o in spec.spec.objectives
                   if "vocabulary" in o.criterion.params
                   and resolve_vocabulary(str(o.criterion.params["vocabulary"]), spec.spec, bundle) is None]
        if missing:
            # Company data must travel with the spec or be in the pinned bundle: never serve an objective that
            # could not complete.
            raise IntegrityError(f"{spec.ref}: vocabulary not in the spec nor the rule bundle: {', '.join(missing)}",
                                 code="goalspec.vocabulary_unknown")
        self.spec = spec
        self.bundle = bundle
        self.proposer = proposer
        self.answerer = answerer
        self.store = store
        self.audit_key = audit_key
        self.modulator = modulator
        self.rater = rater
        self.decider = Decider(spec, bundle)
        self._limits = bundle.file("runtime")

    def start(self, *, conversation_id: str | None = None, language: str | None = None) -> ConversationState:
        lang = language or self.spec.spec.default_language
        if lang not in self.spec.spec.languages:
            raise InputError(f"language {lang} is not offered by {self.spec.ref}", code="input.language")
        state = ConversationState(
            conversation_id=conversation_id or uuid.uuid4().hex,
            goal_ref=self.spec.ref,
            goal_hash=self.spec.content_hash,
            bundle_hash=self.bundle.content_hash,
            language=lang,
            bits=list(self.spec.spec.s0()),
        )
        self.store.create(state)
        log.info("conversation.started", conversation_id=state.conversation_id, goal=self.spec.ref)
        return state

    def handle(self, conversation_id: str, text: str, *, received_at: datetime | None = None) -> TurnResult:
        """``received_at`` (timezone-aware) defaults to now; replays and evaluations pass the recorded time."""
        started = time.perf_counter()
        received_at = received_at or datetime.now(UTC)
        normalized = check_visitor_text(text, self._limits)
        state = self.store.load(conversation_id)
        if state.goal_hash != self.spec.content_hash or state.bundle_hash != self.bundle.content_hash:
            # INVARIANT (I-12): a conversation stays on the versions it was pinned to.
            raise InputError(f"conversation {conversation_id} is pinned to other versions",
                             code="conversation.version_mismatch")
        expected_turn = state.turn
        turn = state.turn + 1
        working = state.model_copy(deep=True)
        working.turn = turn
        working.messages.append(Message(role=Role.VISITOR, turn=turn, text=normalized))
        timings: dict[str, float] = {}

        t0 = time.perf_counter()
        answer = self._answer(normalized, state.language, [m.text for m in state.messages if m.role == Role.VISITOR])
        timings["answer_ms"] = _ms(t0)

        t0 = time.perf_counter()
        proposal, proposer_error = self._propose(working, state, received_at)
        timings["propose_ms"] = _ms(t0)

        t0 = time.perf_counter()
        rater_calls: list[dict[str, Any]] = []
        rubric_rater = self.rater.for_turn(self.spec, working, answer, rater_calls) if self.rater else None
        decision = self.decider.decide(working, list(proposal.commands), list(proposal.malformed),
                                       company_question=answer.is_question, rater=rubric_rater)
        if rater_calls:
            proposal = proposal.model_copy(update={"calls": [*proposal.calls, *rater_calls]})
        timings["decide_ms"] = _ms(t0)
        fail_closed: tuple[str, str] | None = proposer_error
        if fail_closed is None and decision.fail_closed:
            fail_closed = (decision.fail_closed, "the Z3 invariant check did not confirm the transition")

        question = None if fail_closed else self._question(decision, answer, state.language)
        new_state = decision.new_state
        if proposer_error:
            new_state = working  # nothing is applied; only the visitor message is kept
            new_state.last_asked = None
        new_state.messages.append(
            Message(role=Role.ASSISTANT, turn=turn,
                    text="\n\n".join(p for p in (answer.text, question or "") if p),
                    asked_objective=decision.chosen if question else None)
        )
        timings["total_ms"] = _ms(started)
        record = build_record(
            spec=self.spec, bundle=self.bundle, state_before=state, state_after=new_state, proposal=proposal,
            decision=decision, answer=answer, question=question, fail_closed=fail_closed, timings=timings,
            received_at=received_at, completed_at=datetime.now(UTC),
        )
        sealed = seal_for_store(record, state.audit_head, self.audit_key)
        new_state.audit_head = sealed.checkpoint
        self.store.commit_turn(new_state, sealed.record, expected_turn)
        log.info("turn.committed", conversation_id=conversation_id, turn=turn, state=new_state.state_string(),
                 action=sealed.record["chosen_action"], fail_closed=fail_closed and fail_closed[0])
        return TurnResult(
            conversation_id=conversation_id,
            turn=turn,
            answer=answer,
            question=question,
            action=sealed.record["chosen_action"],
            state=new_state.state_string(),
            record=sealed.record,
            fail_closed=fail_closed[0] if fail_closed else None,
        )

    def _answer(self, text: str, language: str, history: list[str]) -> GroundedAnswer:
        if self.answerer is None:
            return GroundedAnswer()
        try:
            if getattr(self.answerer, "conversational", False):  # e.g. directory follow-ups ('any open Saturday?')
                return self.answerer.answer(text, language, history)  # type: ignore[call-arg]
            return self.answerer.answer(text, language)
        except GraceError as exc:
            log.warning("turn.answer.failed", code=exc.code)
            return GroundedAnswer()

    def _propose(
        self, working: ConversationState, before: ConversationState, received_at: datetime
    ) -> tuple[Proposal, tuple[str, str] | None]:
        request = ProposerInput(
            spec=self.spec,
            bits=list(before.bits),
            language=before.language,
            turn=working.turn,
            message=working.messages[-1],
            history=list(before.messages),
            last_asked=before.last_asked,
            refused=list(before.refused),
            stopped=before.stopped,
            reference_time=received_at,
        )
        try:
            return self.proposer.propose(request), None
        except GraceError as exc:
            # Fail closed: the state stays as it was; the record says why.
            log.warning("turn.proposer.failed", code=exc.code)
            empty = Proposal(adapter=self.proposer.name, adapter_version=self.proposer.version)
            return empty, ("proposer.failed", f"{exc.code}: {exc.message}")

    def _question(self, decision: Decision, answer: GroundedAnswer, language: str) -> str | None:
        if decision.chosen is None:
            return None
        objective = next(o for o in self.spec.spec.objectives if o.id == decision.chosen)
        canonical = objective.question(language, self.spec.spec.default_language)
        if self.modulator is None:
            return canonical
        modulated = self.modulator(objective.id, canonical, answer, language)
        return modulated or canonical


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 3)
