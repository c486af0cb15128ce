"""The visitor's view of one turn, typed once: the kernel builds it before the commit (it is stored with the turn
for idempotent replays) and the HTTP service returns it, adding only the handoff box and quick replies
(``engine.service.schemas.TurnResponse``). The field descriptions are the OpenAPI document's."""

from __future__ import annotations

from pydantic import BaseModel, Field

from engine.kernel.ports import AnswerKind


class CitationOut(BaseModel):
    label: str = Field(
        description="What a person recognises: the page or document title and the section heading "
        "('Units and prices › Locker'). Show this, never the ids."
    )
    quote: str = Field(description="The cited company sentence.")
    source: str = Field(description="Machine reference of the document (file or record set); not for display.")
    passage_id: str = Field(description="Machine reference of the passage; not for display.")


class LinkOut(BaseModel):
    label: str = Field(description="The section's page or document title and heading. Show this, never the ids.")
    source: str = Field(description="Machine reference of the document; not for display.")
    passage_id: str = Field(description="Machine reference of the passage; not for display.")


class AnswerOut(BaseModel):
    text: str
    supported: bool
    kind: AnswerKind = Field(
        default="none",
        description="'answer': the documents answer (citations hold the sentences); 'related': a related section's "
        "sentences, verbatim, after the honest 'frame' (citations hold them; 'links' other sections that may help); "
        "'none': nothing relevant found (the text says so, with the company's contact when the documents give one).",
    )
    frame: str = Field(default="", description="related: the honest frame shown before the quoted sentences.")
    citations: list[CitationOut]
    links: list[LinkOut] = Field(default_factory=list, description="related: at most two other sections.")
    unanswered: str = Field(
        default="",
        description="A question in several parts: the sentence naming the parts the documents do not cover "
        "(already at the end of 'text'; shown after the quoted sentences of a related reply).",
    )


class VisitorTurn(BaseModel):
    conversation_id: str
    turn: int
    state: str = Field(description="Binary state in the spec's approved objective order, e.g. '1010'.")
    bits: list[int]
    action: str = Field(description="'NONE' or 'ASK(<objective id>)'.")
    question: str | None = Field(description="The one follow-up question, or null.")
    pending: str | None = Field(
        default=None,
        description="When nothing is asked while objectives are still open (SPEC D-11): what is still needed, "
        "named as optional; part of response_text. Null otherwise.")
    answer: AnswerOut
    response_text: str = Field(description="What the visitor is shown: answer, then the question.")
    fail_closed: str | None = Field(description="Reason code when the turn failed closed.")
    stopped: bool
    completed: bool = Field(
        default=False,
        description="This turn closed the conversation (every objective recorded, or the visitor stopped): the "
        "response ends with a summary of what was recorded and the company's next step, and a "
        "conversation.completed event is queued for the goal's webhook.",
    )
    record_seq: int | None = Field(description="Sequence number of this turn's audit record.")
