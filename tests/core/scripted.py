"""A scripted proposer for runtime tests: finds literal e-mail addresses and 'budget N' in the visitor text.

It is deliberately tiny and exact; the real offline proposer is tested in tests/proposer/.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from engine.kernel.commands import Command, Complete, Span
from engine.kernel.ports import Proposal, ProposerInput

EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)*")
AMOUNT = re.compile(r"(\d{4,})\s*EUR")


class ScriptedProposer:
    name = "scripted"
    version = "1"

    def __init__(self, extra: Callable[[ProposerInput], list[Command]] | None = None) -> None:
        self.extra = extra

    def propose(self, request: ProposerInput) -> Proposal:
        text = request.message.text
        turn = request.turn
        commands: list[Command] = []
        for match in EMAIL.finditer(text):
            commands.append(Complete(objective="contact", value=match.group(0),
                                     span=Span(turn=turn, start=match.start(), end=match.end(), quote=match.group(0))))
        for match in AMOUNT.finditer(text):
            commands.append(Complete(objective="budget", value=f"{match.group(1)} EUR",
                                     span=Span(turn=turn, start=match.start(), end=match.end(), quote=match.group(0))))
        if self.extra is not None:
            commands.extend(self.extra(request))
        return Proposal(commands=commands, adapter=self.name, adapter_version=self.version)
