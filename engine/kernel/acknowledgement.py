"""Facts the visitor volunteered, acknowledged in one clause (issue 32 item 6).

A turn that recorded values for objectives the assistant had not just asked about says so in one clause, each
value as the closing summary shows it ("Noted: Budget: £20,000; Number of guests: 80 guests."), so the visitor
sees they were understood and is not asked again. A fact the proposer saw that matches no objective (its note
``proposer.mention:<kind>:<start>:<end>``, offsets in this turn's message) is acknowledged as kept in the
conversation for the team, quoting the visitor's own words: the transcript is what the team reads, and nothing is
recorded as an objective's value. Revised values are said by engine/kernel/revision.py, the closing turn's summary lists
everything, so neither is repeated here. Wording: ``rules/arc/<language>.json`` → ``acknowledgement``; a bundle
without it says nothing extra. Each acknowledged objective or mention leaves a note in the audit record.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from engine.kernel.arc_values import display_value
from engine.kernel.conversation import ConversationState
from engine.kernel.goal_models import GoalSpec
from engine.kernel.values import current_value
from engine.rules.loader import RuleBundle

MENTION = "proposer.mention:"  # "proposer.mention:<kind>:<start>:<end>"
ACKNOWLEDGED_NOTE = "arc.acknowledged:"  # "arc.acknowledged:<objective>"
MENTIONED_NOTE = "arc.mentioned:"  # "arc.mentioned:<kind>"
_MAX_QUOTE = 80  # a mention is a phrase; a longer span is not quoted back
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Acknowledgement:
    text: str | None
    notes: tuple[str, ...]


def volunteered(before: ConversationState, after: ConversationState, order: Sequence[str]) -> list[str]:
    """Objectives recorded in this turn (open before, complete after) that the assistant had not just asked."""
    return [oid for oid, was, now in zip(order, before.bits, after.bits, strict=True)
            if was == 0 and now == 1 and oid != before.last_asked]


def mentions(notes: Sequence[str], message: str) -> list[tuple[str, str]]:
    """(kind, the visitor's words) of each fact the proposer saw outside every objective, in message order."""
    found: list[tuple[int, str, str]] = []
    for note in notes:
        if not note.startswith(MENTION):
            continue
        parts = note[len(MENTION):].split(":")
        if len(parts) != 3 or not (parts[1].isdigit() and parts[2].isdigit()):
            continue
        start, end = int(parts[1]), int(parts[2])
        words = _SPACES.sub(" ", message[start:end]).strip() if 0 <= start < end <= len(message) else ""
        if words and len(words) <= _MAX_QUOTE:
            found.append((start, parts[0], words))
    return [(kind, words) for _, kind, words in sorted(found)]


class AcknowledgementWording:
    def __init__(self, bundle: RuleBundle, spec: GoalSpec, language: str) -> None:
        self.bundle, self.spec, self.language = bundle, spec, language
        self._texts: dict[str, str] | None = None
        for lang in (language, spec.default_language, "en"):
            if bundle.has(f"arc/{lang}"):
                self._texts = bundle.file(f"arc/{lang}").get("acknowledgement")
                break

    def reply(self, before: ConversationState, after: ConversationState, proposal_notes: Sequence[str],
              closing: bool) -> Acknowledgement:
        if closing or self._texts is None:
            return Acknowledgement(None, ())
        by_id = {o.id: o for o in self.spec.objectives}
        order = [o.id for o in self.spec.ordered()]
        recorded = [oid for oid in volunteered(before, after, order) if after.values.get(oid)]
        message = after.visitor_message(after.turn)
        mentioned = mentions(proposal_notes, message.text) if message is not None else []
        sentences: list[str] = []
        if recorded:
            items = "; ".join(f"{by_id[oid].label(self.language, self.spec.default_language)}: "
                              f"{self._shown(oid, after)}" for oid in recorded)
            sentences.append(self._texts["recorded"].replace("{items}", items))
        for _, words in mentioned[:1]:  # one clause: the first mention stands for the rest
            sentences.append(self._texts["mentioned"].replace("{quote}", words))
        notes = [f"{ACKNOWLEDGED_NOTE}{oid}" for oid in recorded] + [f"{MENTIONED_NOTE}{k}" for k, _ in mentioned]
        return Acknowledgement(" ".join(sentences) or None, tuple(notes))

    def _shown(self, objective_id: str, state: ConversationState) -> str:
        objective = next(o for o in self.spec.objectives if o.id == objective_id)
        records = state.values[objective_id]
        latest = records[-1]
        message = state.visitor_message(latest.turn)
        words = message.text[latest.span_start:latest.span_end].strip() if message else ""
        value = current_value([r.value for r in records])
        return display_value(objective, value, words, self.language, self.spec, self.bundle)
