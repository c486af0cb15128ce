"""What one turn produced, typed: returned by ``TurnRuntime.handle`` and read by every edge (HTTP, CLI,
evaluation). The visitor's view (``visitor_view``) is built from it before the commit, because an idempotent
retry must get back exactly the first response: it is stored in the turn's own transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.kernel.conversation import ConversationState
from engine.kernel.ports import GroundedAnswer
from engine.kernel.visitor_response import AnswerOut, CitationOut, LinkOut, VisitorTurn


@dataclass(frozen=True)
class TurnOutcome:
    conversation_id: str
    turn: int
    answer: GroundedAnswer  # the full grounded answer (the record keeps only a summary of it)
    question: str | None  # the one decided question, as worded for the visitor
    action: str  # 'NONE' or 'ASK(<objective id>)', as sealed in the record
    new_state: ConversationState  # the state as committed
    record: dict[str, Any]  # the sealed audit record, exactly as stored (redacted, chained)
    fail_closed: str | None  # stable code when the turn failed closed
    notice: str | None = None  # why the visitor's last answer was not recorded, when not asked again
    closing: str | None = None  # the closing turn: summary of what was recorded and the company's next step
    pending: str | None = None  # SPEC D-11: what is still open, named as optional, when nothing is asked

    @property
    def state(self) -> str:
        """The binary state string, e.g. '1010'."""
        return self.new_state.state_string()

    @property
    def completed(self) -> bool:
        return self.closing is not None

    @property
    def record_seq(self) -> int:
        return int(self.record["seq"])

    def response_text(self) -> str:
        # INVARIANT (I-11): the grounded answer plus at most one question (the decided one, or none)
        return join_reply(self.answer.text, self.notice, self.question, self.pending, self.closing)

    def visitor_turn(self) -> VisitorTurn:
        """The visitor-facing turn response, typed (the HTTP body without its handoff box and quick replies)."""
        answer = self.answer
        return VisitorTurn(
            conversation_id=self.conversation_id,
            turn=self.turn,
            state=self.state,
            bits=list(self.new_state.bits),
            action=self.action if self.question is not None else "NONE",
            question=self.question or None,
            answer=AnswerOut(
                text=answer.text, supported=answer.supported, kind=answer.kind,
                frame=answer.frame,
                citations=[CitationOut(label=c.shown(), quote=c.quote, source=c.source, passage_id=c.passage_id)
                           for c in answer.citations],
                links=[LinkOut(label=c.shown(), source=c.source, passage_id=c.passage_id) for c in answer.links],
                unanswered=answer.unanswered,
            ),
            pending=self.pending,
            response_text=self.response_text(),
            fail_closed=self.fail_closed,
            stopped=self.new_state.stopped,
            completed=self.completed,
            record_seq=self.record_seq,
        )

    def visitor_view(self) -> dict[str, Any]:
        """``visitor_turn`` as stored with the turn (JSON types) for an idempotent replay."""
        return self.visitor_turn().model_dump()


def join_reply(*parts: str | None) -> str:
    """What the assistant says in one turn: the non-empty parts, one paragraph each."""
    return "\n\n".join(part for part in parts if part)
