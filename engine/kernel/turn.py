"""The GRACE turn (paper Algorithm 2): answer, propose, decide, select, persist one audit record atomically."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import structlog

from audit.chain import CHECKPOINT_MISSING, STATE_MISMATCH, checkpoint_problem, state_hash
from audit.vault import FieldCipher
from engine.errors import DeadlineError, GraceError, InputError, IntegrityError
from engine.kernel.acknowledgement import AcknowledgementWording
from engine.kernel.arc import ArcWording
from engine.kernel.choice_clarification import choice_clarification, weekday_clarification
from engine.kernel.company_data import resolve_vocabulary
from engine.kernel.conversation import ConversationState, Message, Role
from engine.kernel.decision.company import company_contacts
from engine.kernel.decision.decider import Decider, Decision, fork_state
from engine.kernel.decision.invariants import CheckOutcome
from engine.kernel.goal_models import PublishedGoalSpec, spec_hash
from engine.kernel.input_checks import check_visitor_text
from engine.kernel.policy import StallRule, conversation_move
from engine.kernel.ports import (
    Answerer,
    ConversationStore,
    GroundedAnswer,
    IdempotencyEntry,
    IdempotencyKey,
    Proposal,
    Proposer,
    ProposerInput,
    TurnRater,
    TurnSession,
)
from engine.kernel.revision import RevisionWording
from engine.kernel.stored_state import stored_form
from engine.kernel.turn_context import Runner, TurnContext, TurnLedger
from engine.kernel.turn_outcome import TurnOutcome, join_reply
from engine.kernel.turn_record import Sealed, build_and_seal
from engine.rules.loader import RuleBundle

log = structlog.get_logger("grace.turn")

# (objective id, canonical question, grounded answer, language, the turn's context) -> modulated question or None
Modulator = Callable[[str, str, GroundedAnswer, str, TurnContext], str | None]


@dataclass(frozen=True)
class TurnRoles:
    """Who proposes, answers, words the question and rates the visitor utility: chosen before a runtime is built
    and fixed for its life."""

    proposer: Proposer
    answerer: Answerer | None = None
    modulator: Modulator | None = None
    rater: TurnRater | None = None


# (published spec, pinned bundle, offline roles) -> the roles to serve, e.g. LLM roles with offline fallbacks
RoleChoice = Callable[[PublishedGoalSpec, RuleBundle, TurnRoles], TurnRoles]


@dataclass(frozen=True)
class Reply:
    """What the assistant says after the answer: the decided question (possibly worded as a clarification), a
    notice about a rejected answer, and the closing turn; ``notes`` go to the audit record."""

    question: str | None = None
    notice: str | None = None
    closing: str | None = None
    closing_reason: str | None = None
    notes: tuple[str, ...] = ()
    pending: str | None = None  # SPEC D-11: what is still open, said as optional when nothing is asked


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
        company_texts: Iterable[str] | None = None,
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
        self.company_texts = tuple(company_texts or ())
        # D-10: contact values of the company (corpus, directory, published details) never complete an objective.
        self.decider = Decider(spec, bundle, company_contacts(spec, bundle, answerer, self.company_texts))
        self._limits = bundle.file("runtime")
        self._stall_rule = StallRule.from_policy(bundle.file("policy"))
        deadline = self._limits.get("turn_deadline_ms")  # absent from bundles published before it existed
        self._deadline_ms: float | None = float(deadline) if deadline is not None else None

    @classmethod
    def with_roles(
        cls, *, spec: PublishedGoalSpec, bundle: RuleBundle, roles: TurnRoles, store: ConversationStore,
        audit_key: bytes, choose: RoleChoice | None = None, company_texts: Iterable[str] | None = None,
    ) -> TurnRuntime:
        """A runtime serving ``roles``, or what ``choose`` makes of them for this spec and bundle."""
        chosen = choose(spec, bundle, roles) if choose is not None else roles
        return cls(spec=spec, bundle=bundle, proposer=chosen.proposer, answerer=chosen.answerer,
                   modulator=chosen.modulator, rater=chosen.rater, store=store, audit_key=audit_key,
                   company_texts=company_texts)

    @property
    def roles(self) -> TurnRoles:
        return TurnRoles(self.proposer, self.answerer, self.modulator, self.rater)

    def start(
        self, *, conversation_id: str | None = None, language: str | None = None, visitor_key: str | None = None
    ) -> ConversationState:
        """``visitor_key``: the hash of the visitor's capability token (see engine/service/visitor_access)."""
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
            visitor_key=visitor_key,
        )
        self.store.create(state)
        log.info("conversation.started", conversation_id=state.conversation_id, goal=self.spec.ref)
        return state

    def handle(self, conversation_id: str, text: str, *, received_at: datetime | None = None,
               notes: Sequence[str] = (), idempotency: IdempotencyKey | None = None,
               decide_on: Runner[Any] | None = None) -> TurnOutcome:
        """``received_at`` (timezone-aware) defaults to now; replays and evaluations pass the recorded time.
        ``notes``: facts of the request the turn's audit record must keep (e.g. the visitor's consent).
        ``idempotency``: the client's key; the store commits it with the turn and the visitor's view of the
        outcome, so a retry gets the first response back. ``decide_on``: where the decision runs (the service's
        engine thread); by default here."""
        started = time.perf_counter()
        normalized = check_visitor_text(text, self._limits)
        # The store's session owns what the turn's load and commit share (the unwrapped key, the stored form).
        with self.store.open_turn(conversation_id) as session:
            return self._handle(session, normalized, started=started, received_at=received_at or datetime.now(UTC),
                                notes=notes, idempotency=idempotency, decide_on=decide_on)

    def _handle(self, session: TurnSession, normalized: str, *, started: float, received_at: datetime,
                notes: Sequence[str], idempotency: IdempotencyKey | None,
                decide_on: Runner[Any] | None) -> TurnOutcome:
        state, cipher = session.state, session.cipher
        conversation_id = state.conversation_id
        self._check_seal(state, cipher)
        if state.goal_hash != self.spec.content_hash or state.bundle_hash != self.bundle.content_hash:
            # INVARIANT (I-12): a conversation stays on the versions it was pinned to.
            raise InputError(f"conversation {conversation_id} is pinned to other versions",
                             code="conversation.version_mismatch")
        expected_turn = state.turn
        turn = state.turn + 1
        # Fresh containers, shared frozen messages and value records: ``state`` stays the state before the turn.
        working = fork_state(state)
        working.turn = turn
        working.messages.append(Message(role=Role.VISITOR, turn=turn, text=normalized))
        timings: dict[str, float] = {}
        closed: tuple[str, str] | None = None
        decision: Decision | None = None
        reply = Reply()
        context = TurnContext(self._deadline_ms, decide_on)
        t0 = time.perf_counter()
        try:
            answer = self._answer(normalized, state.language,
                                  [m.text for m in state.messages if m.role == Role.VISITOR], context)
            context.check_deadline("answer")
        except Exception as exc:  # any failure ends the turn closed, never a crash
            answer, closed = GroundedAnswer(), _closed("answer", exc)
        timings["answer_ms"] = _ms(t0)

        t0 = time.perf_counter()
        proposal = Proposal(adapter=self.proposer.name, adapter_version=self.proposer.version)
        if closed is None:
            proposal, closed = self._propose(working, state, received_at, context)
        timings["propose_ms"] = _ms(t0)

        t0 = time.perf_counter()
        if closed is None:
            try:
                decision, proposal = self._decide(working, proposal, answer, context)
                context.check_deadline("decide")
            except Exception as exc:
                decision, closed = None, _closed("decide", exc)
        timings["decide_ms"] = _ms(t0)
        if closed is None and decision is not None and decision.fail_closed:
            closed = (decision.fail_closed, "the Z3 invariant check did not confirm the transition")
        elif closed is None and decision is not None:
            try:
                reply = self._arc(decision, self._question(decision, answer, state.language, context), state,
                                  proposal.notes)
            except Exception as exc:
                reply, closed = Reply(), _closed("question", exc)
        fail_closed = closed
        proposal, reply = _with_ledger(proposal, reply, context.ledger)
        ran = decision is not None and (fail_closed is None or decision.fail_closed is not None)
        if not ran:
            # Nothing is applied; only the visitor message is kept, and the record shows no candidate.
            decision = _closed_decision(working)
            decision.new_state.last_asked = None
        assert decision is not None
        timings["total_ms"] = _ms(started)
        try:
            new_state, sealed, stored = self._seal(state, decision, proposal, answer, reply, fail_closed, timings,
                                                   received_at, ran, cipher, notes)
        except Exception as exc:  # a record that does not validate must not crash the turn
            decision, proposal, reply = _closed_decision(working), _empty(proposal), Reply()
            decision.new_state.last_asked = None
            fail_closed = _closed("record", exc)
            new_state, sealed, stored = self._seal(state, decision, proposal, answer, reply, fail_closed, timings,
                                                   received_at, False, cipher, notes)
        new_state.audit_head = sealed.checkpoint
        # The form the checkpoint hashed, now carrying that checkpoint: what the commit writes.
        stored = {**stored, **new_state.model_dump(mode="json", include={"audit_head"})}
        outcome = TurnOutcome(
            conversation_id=conversation_id,
            turn=turn,
            answer=answer,
            question=reply.question,
            action=sealed.record["chosen_action"],
            new_state=new_state,
            record=sealed.record,
            fail_closed=fail_closed[0] if fail_closed else None,
            notice=reply.notice,
            closing=reply.closing,
            pending=reply.pending,
        )
        entry = None
        if idempotency is not None:
            entry = IdempotencyEntry(conversation_id, idempotency.key, idempotency.fingerprint, turn,
                                     outcome.visitor_view())
        session.commit(new_state, sealed.record, expected_turn, idempotency=entry, stored=stored)
        log.info("turn.committed", conversation_id=conversation_id, turn=turn, state=outcome.state,
                 action=outcome.action, fail_closed=outcome.fail_closed)
        if reply.closing_reason is not None:
            log.info("conversation.completed", conversation_id=conversation_id, turn=turn, goal=self.spec.ref,
                     reason=reply.closing_reason)
        return outcome

    def _seal(
        self, state: ConversationState, decision: Decision, proposal: Proposal, answer: GroundedAnswer,
        reply: Reply, fail_closed: tuple[str, str] | None, timings: dict[str, float],
        received_at: datetime, ran: bool, cipher: FieldCipher | None, notes: Sequence[str] = (),
    ) -> tuple[ConversationState, Sealed, dict[str, Any]]:
        """The new state, its sealed record and checkpoint, and its stored form (which the checkpoint hashes)."""
        new_state = fork_state(decision.new_state)  # the assistant message goes on a fresh list only
        new_state.messages.append(
            Message(role=Role.ASSISTANT, turn=new_state.turn,
                    text=join_reply(answer.text, reply.notice, reply.question, reply.pending, reply.closing),
                    asked_objective=decision.chosen if reply.question else None)
        )
        stored = stored_form(new_state, cipher)
        sealed = build_and_seal(
            state.audit_head, self.audit_key, stored_state=stored, cipher=cipher,
            spec=self.spec, bundle=self.bundle, state_before=state, state_after=new_state, proposal=proposal,
            decision=decision, answer=answer, question=reply.question, fail_closed=fail_closed, timings=timings,
            received_at=received_at, completed_at=datetime.now(UTC), extra_notes=[*reply.notes, *notes],
            checked=ran,
        )
        return new_state, sealed, stored

    def _arc(self, decision: Decision, question: str | None, before: ConversationState,
             proposal_notes: Sequence[str] = ()) -> Reply:
        """The decided question worded as a clarification when it asks again for an answer its validator just
        rejected, a one-sentence notice when the policy asks something else, and the closing turn (kernel/arc.py).
        Which objective is asked stays the policy's decision."""
        wording = ArcWording(self.bundle, self.spec.spec, before.language)
        notes: list[str] = []
        notice: str | None = None
        clarification = wording.clarification(decision, question)
        if clarification is not None:
            notes.append(f"arc.clarification:{clarification.objective}:{clarification.code}:{clarification.mode}")
            if clarification.mode == "ask":
                question = clarification.text
            else:
                notice = clarification.text
        closing = wording.closing(before, decision.new_state)
        if closing is not None:
            notes.append(closing.note)
        choice = choice_clarification(self.bundle, self.spec.spec, before.language, decision.chosen, proposal_notes,
                                      [o.id for o, bit in zip(self.spec.spec.ordered(), decision.bits_after,
                                                              strict=True) if bit])
        if choice is None:
            choice = weekday_clarification(self.bundle, self.spec.spec, before.language, decision.chosen,
                                           proposal_notes)
        if choice is not None and clarification is None:  # an ambiguous choice: name the options it could be
            notes.append(choice.note)
            if choice.mode == "ask" and question is not None:
                question = choice.text
            else:
                notice = f"{notice} {choice.text}" if notice else choice.text
        # A revised or unapplied correction is said in one sentence before the rest (engine/kernel/revision.py).
        revision = RevisionWording(self.bundle, self.spec.spec, before.language).reply(before, decision,
                                                                                       proposal_notes)
        notes.extend(revision.notes)
        if revision.text and closing is None:
            notice = f"{revision.text} {notice}" if notice else revision.text
        # Values the visitor volunteered beyond the question asked, and facts outside every objective, in one
        # clause before the rest (engine/kernel/acknowledgement.py).
        acknowledgement = AcknowledgementWording(self.bundle, self.spec.spec, before.language).reply(
            before, decision.new_state, proposal_notes, closing is not None)
        notes.extend(acknowledgement.notes)
        if acknowledgement.text:
            notice = f"{acknowledgement.text} {notice}" if notice else acknowledgement.text
        pending = None
        # INVARIANT (I-15): no silent stall; the move is computed from the decision, the ε-policy chose what is asked
        move = conversation_move(self.decider.views, decision.bits_after, decision.new_state.refused,
                                 decision.new_state.stopped, decision.chosen if question else None, self._stall_rule)
        if move.kind == "PENDING" and closing is None and self._stall_rule is not None:
            pending = wording.pending(move.objectives, self._stall_rule.max_listed_options)
            if pending is not None:
                notes.append(f"arc.pending:{','.join(move.objectives)}")
        return Reply(question, notice, closing.text if closing else None, closing.reason if closing else None,
                     tuple(notes), pending)

    def _check_seal(self, state: ConversationState, cipher: FieldCipher | None) -> None:
        """Refuse to seal on top of a state that is not the one the last checkpoint sealed (edited row,
        dropped or forged checkpoint): the turn fails closed before anything is decided or written."""
        head = state.audit_head
        if head is None:
            pristine = (state.turn == 0 and not state.messages and not state.values
                        and list(state.bits) == list(self.spec.spec.s0()))
            if not pristine:
                raise IntegrityError(f"conversation {state.conversation_id} has turns but no audit checkpoint",
                                     code=CHECKPOINT_MISSING)
            return
        problem = checkpoint_problem(head, self.audit_key)
        if problem is None and (head["conversation_id"] != state.conversation_id
                                or head["seq"] != state.turn - 1):
            problem = (STATE_MISMATCH, "the checkpoint does not belong to this conversation's turn")
        if problem is None and state_hash(stored_form(state, cipher)) != head["state_hash"]:
            problem = (STATE_MISMATCH, "the stored state is not the state the last checkpoint sealed")
        if problem is not None:
            log.error("turn.state_seal.failed", conversation_id=state.conversation_id, code=problem[0])
            raise IntegrityError(f"conversation {state.conversation_id}: {problem[1]}", code=problem[0])

    def _answer(self, text: str, language: str, history: list[str], context: TurnContext) -> GroundedAnswer:
        if self.answerer is None:
            return GroundedAnswer()
        try:
            return self.answerer.answer(text, language, history, context)
        except GraceError as exc:
            log.warning("turn.answer.failed", code=exc.code)
            return GroundedAnswer()

    def _propose(
        self, working: ConversationState, before: ConversationState, received_at: datetime, context: TurnContext
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
            recorded={oid: records[-1].value for oid, records in before.values.items() if records},
            context=context,
        )
        empty = Proposal(adapter=self.proposer.name, adapter_version=self.proposer.version)
        proposal: Proposal | None = None
        try:
            proposal = self.proposer.propose(request)
            context.check_deadline("propose")
            return proposal, None
        except DeadlineError as exc:
            log.warning("turn.proposer.failed", code=exc.code)
            # A proposal that came back after the deadline is not used, but the model calls it made stay on the
            # record: a reader of a closed turn sees what was attempted and how long it took.
            calls = list(proposal.calls) if proposal is not None else []
            return empty.model_copy(update={"calls": calls}), (exc.code, exc.message)
        except GraceError as exc:
            # Fail closed: the state stays as it was; the record says why.
            log.warning("turn.proposer.failed", code=exc.code)
            return empty, ("proposer.failed", f"{exc.code}: {exc.message}")
        except Exception as exc:  # e.g. a pydantic ValidationError from a bad command
            return empty, _closed("propose", exc)

    def _decide(
        self, working: ConversationState, proposal: Proposal, answer: GroundedAnswer, context: TurnContext
    ) -> tuple[Decision, Proposal]:
        rater_calls: list[dict[str, Any]] = []
        rubric_rater = self.rater.for_turn(self.spec, working, answer, rater_calls, context) if self.rater else None
        decision = context.run_decision(
            lambda: self.decider.decide(working, list(proposal.commands), list(proposal.malformed),
                                        company_question=answer.is_question, rater=rubric_rater,
                                        context=self.decider.context(answer.citations))
        )
        if rater_calls:
            proposal = proposal.model_copy(update={"calls": [*proposal.calls, *rater_calls]})
        return decision, proposal

    def _question(self, decision: Decision, answer: GroundedAnswer, language: str,
                  context: TurnContext) -> str | None:
        # INVARIANT (I-11): only the objective the decision chose is asked, once
        if decision.chosen is None:
            return None
        objective = next(o for o in self.spec.spec.objectives if o.id == decision.chosen)
        canonical = objective.question(language, self.spec.spec.default_language)
        if self.modulator is None:
            return canonical
        modulated = self.modulator(objective.id, canonical, answer, language, context)
        return modulated or canonical


def _closed(stage: str, exc: Exception) -> tuple[str, str]:
    """The reason of a turn closed by an error: a stable code per stage; the message names the error type
    only (an exception's text can quote the visitor's personal data, e.g. pydantic's input_value)."""
    if isinstance(exc, GraceError):
        code = exc.code if isinstance(exc, DeadlineError) else f"{stage}.failed"
        log.warning(f"turn.{stage}.failed", code=exc.code)
        return code, f"{exc.code}: {exc.message}" if isinstance(exc, DeadlineError) else f"{stage} failed: {exc.code}"
    log.error(f"turn.{stage}.crashed", error=type(exc).__name__)
    return f"{stage}.crashed", f"{stage} raised {type(exc).__name__}"


def _with_ledger(proposal: Proposal, reply: Reply, ledger: TurnLedger) -> tuple[Proposal, Reply]:
    """Calls and fallback notes of the stages outside the proposer (synthesis, modulation) join the record."""
    if ledger.calls:
        proposal = proposal.model_copy(update={"calls": [*proposal.calls, *ledger.calls]})
    if ledger.notes:
        reply = replace(reply, notes=(*reply.notes, *ledger.notes))
    return proposal, reply


def _empty(proposal: Proposal) -> Proposal:
    return Proposal(adapter=proposal.adapter, adapter_version=proposal.adapter_version)


def _closed_decision(working: ConversationState) -> Decision:
    """The decision of a turn that decided nothing: no candidate, no action, the state as it was."""
    bits = list(working.bits)
    return Decision(candidates=[], malformed=[], bits_before=bits, z=[0] * len(bits), bits_after=bits, actions=[],
                    chosen=None, invariant=CheckOutcome(ok=False, status="unknown"),
                    new_state=working.model_copy(deep=True))


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 3)
