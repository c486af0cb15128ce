"""The corpus README's rule for the visitor's own evidence.

A slot is revealed by the visitor at user turn t only when a USER turn up to t carries an ``INFORM`` act for it
with a value other than ``dontcare``. ``SELECT`` / ``AFFIRM`` of a system offer, a system ``CONFIRM`` of a default
and the dialogue state the annotators carried forward are not the visitor's evidence, so only the user's own
``INFORM`` acts are read here, never ``state.slot_values``.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.evaluation.sgd.corpus import SgdDialogue, SgdTurn

USER = "USER"
INFORM = "INFORM"
DONTCARE = "dontcare"


@dataclass(frozen=True)
class VisitorTurn:
    """One user turn: the words, what it INFORMs (slot -> values), and the system turn it answered (context)."""

    utterance: str
    informed: dict[str, tuple[str, ...]]
    system_before: str


def informed_slots(turn: SgdTurn, service: str) -> dict[str, tuple[str, ...]]:
    """Slots of ``service`` this user turn INFORMs with at least one value other than ``dontcare``."""
    if turn.speaker != USER:
        return {}
    found: dict[str, tuple[str, ...]] = {}
    for frame in turn.frames:
        if frame.service != service:
            continue
        for action in frame.actions:
            values = tuple(v for v in action.values if v != DONTCARE)
            if action.act == INFORM and action.slot and values:
                found[action.slot] = found.get(action.slot, ()) + values
    return found


def visitor_turns(dialogue: SgdDialogue, service: str) -> list[VisitorTurn]:
    turns: list[VisitorTurn] = []
    system = ""
    for turn in dialogue.turns:
        if turn.speaker == USER:
            turns.append(VisitorTurn(turn.utterance, informed_slots(turn, service), system))
        else:
            system = turn.utterance
    return turns
