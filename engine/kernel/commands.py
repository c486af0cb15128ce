"""The closed set of typed commands a proposer may hand to the decision layer.

Anything that does not parse into one of these models is discarded and logged (fail closed).
Every command cites a ``Span``: a character range of one stored visitor message.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class Span(BaseModel):
    """A witness: characters [start, end) of the visitor message of turn ``turn`` (normalised text)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    turn: int = Field(ge=1)
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    quote: str = Field(min_length=1, max_length=2000)


class _Command(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Complete(_Command):
    """The visitor's words satisfy ``objective``'s criterion; ``value`` is the extracted value."""

    type: Literal["complete"] = "complete"
    objective: str
    span: Span
    value: str = Field(min_length=1, max_length=500)


class Correct(_Command):
    """The visitor revises an earlier value; recorded in the value history, never un-completing."""

    type: Literal["correct"] = "correct"
    objective: str
    span: Span
    value: str = Field(min_length=1, max_length=500)


class Refuse(_Command):
    """The visitor declines to give ``objective``: its ASK becomes infeasible."""

    type: Literal["refuse"] = "refuse"
    objective: str
    span: Span


class Stop(_Command):
    """The visitor asks not to be asked anything more: every ASK becomes infeasible."""

    type: Literal["stop"] = "stop"
    span: Span


class Uncertain(_Command):
    """The visitor does not know ``objective`` yet: asking it again now would be a burden."""

    type: Literal["uncertain"] = "uncertain"
    objective: str
    span: Span


class Resume(_Command):
    """The visitor explicitly invites questions again (lifts an earlier Stop or a refusal of ``objective``)."""

    type: Literal["resume"] = "resume"
    objective: str | None = None
    span: Span


Command = Annotated[
    Complete | Correct | Refuse | Stop | Uncertain | Resume,
    Field(discriminator="type"),
]
COMMAND_ADAPTER: TypeAdapter[Command] = TypeAdapter(Command)
COMMAND_TYPES = ("complete", "correct", "refuse", "stop", "uncertain", "resume")


def command_objective(command: Command) -> str | None:
    return getattr(command, "objective", None)
