"""Revisions as the visitor reads them (issue 32; SPEC D-6: a ``Correct`` of a recorded objective appends to its
value history and never un-completes it).

A turn that revised a recorded value confirms it in one sentence, new value beside the earlier one; a correction
the engine could not apply — its validator rejected the new value, or the visitor marked a value as wrong without
a readable new one — gets an honest sentence saying what is still recorded and why, never a bare
acknowledgement. Each revision and each unapplied correction leaves a note in the audit record (``REVISED_NOTE``,
``UNAPPLIED_NOTE``), which the lead delivery reads to send a revision event. Wording is rule data
(``rules/arc/<language>.json`` → ``revision``); a bundle without it says nothing extra.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.kernel.arc import ArcWording
from engine.kernel.arc_values import display_value
from engine.kernel.conversation import ConversationState
from engine.kernel.decision.decider import Decision
from engine.kernel.goal_models import GoalSpec, Objective
from engine.kernel.values import current_value
from engine.rules.loader import RuleBundle

REVISED_NOTE = "arc.revision:"  # "arc.revision:<objective>": a recorded value this turn replaced
UNAPPLIED_NOTE = "arc.revision_unapplied:"  # "arc.revision_unapplied:<objective>:<reason code>"
UNRESOLVED = "proposer.correction_unresolved"  # the proposer's note: a correction without a readable new value
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


@dataclass(frozen=True)
class RevisionReply:
    text: str | None
    notes: tuple[str, ...]


def revised_objectives(before: ConversationState, after: ConversationState) -> list[str]:
    """Objectives that had a recorded value before the turn and whose latest value changed in it."""
    changed = []
    for objective, records in after.values.items():
        earlier = before.values.get(objective) or []
        if earlier and len(records) > len(earlier) and (current_value([r.value for r in records])
                                                         != current_value([r.value for r in earlier])):
            changed.append(objective)
    return changed


def revision_notes(record: dict[str, Any]) -> list[str]:
    """The objectives an audit record says were revised in its turn."""
    return [note[len(REVISED_NOTE):] for note in record.get("notes") or []
            if isinstance(note, str) and note.startswith(REVISED_NOTE)]


class RevisionWording:
    def __init__(self, bundle: RuleBundle, spec: GoalSpec, language: str) -> None:
        self.bundle = bundle
        self.spec = spec
        self.language = language
        self.arc = ArcWording(bundle, spec, language)
        self._texts: dict[str, str] | None = None
        for lang in (language, spec.default_language, "en"):
            if bundle.has(f"arc/{lang}"):
                self._texts = bundle.file(f"arc/{lang}").get("revision")
                break

    def reply(self, before: ConversationState, decision: Decision, proposal_notes: Sequence[str]) -> RevisionReply:
        after = decision.new_state
        by_id = {o.id: o for o in self.spec.objectives}
        revised = [oid for oid in revised_objectives(before, after) if oid in by_id]
        notes = [f"{REVISED_NOTE}{oid}" for oid in revised]
        unapplied: list[tuple[Objective, str]] = []
        for candidate in decision.candidates:
            oid = candidate.command.get("objective")
            if (candidate.command.get("type") == "correct" and not candidate.accepted and oid in by_id
                    and before.values.get(oid) and oid not in revised):
                unapplied.append((by_id[oid], candidate.validator_code or candidate.reason))
        touched = {oid for oid in revised} | {o.id for o, _ in unapplied}
        for note in proposal_notes:
            if note.startswith(UNRESOLVED + ":"):
                oid = note.split(":", 1)[1]
                if oid in by_id and oid not in touched and before.values.get(oid):
                    unapplied.append((by_id[oid], UNRESOLVED))
                    touched.add(oid)
        notes += [f"{UNAPPLIED_NOTE}{objective.id}:{code}" for objective, code in unapplied]
        if self._texts is None or not (revised or unapplied):
            return RevisionReply(None, tuple(notes))
        sentences = []
        if revised:
            changes = "; ".join(self._change(by_id[oid], before, after) for oid in revised)
            sentences.append(self._texts["updated"].replace("{changes}", changes))
        for objective, code in unapplied:
            template = self._texts["unresolved" if code == UNRESOLVED else "not_applied"]
            reason = self.arc.notice_for(objective, code) if code != UNRESOLVED else None
            sentences.append(_fill(template, {
                "objective": objective.label(self.language, self.spec.default_language).lower(),
                "current": self._shown(objective, after),
                "reason": reason or "",
            }))
        return RevisionReply(" ".join(s for s in sentences if s), tuple(notes))

    def _change(self, objective: Objective, before: ConversationState, after: ConversationState) -> str:
        label = objective.label(self.language, self.spec.default_language)
        new = self._shown(objective, after)
        old = self._shown(objective, before)
        assert self._texts is not None
        return f"{label}: {new} ({self._texts['previously'].replace('{value}', old)})"

    def _shown(self, objective: Objective, state: ConversationState) -> str:
        """The objective's current value in ``state`` as the closing summary shows it."""
        records = state.values.get(objective.id) or []
        if not records:
            return ""
        latest = records[-1]
        message = state.visitor_message(latest.turn)
        words = message.text[latest.span_start:latest.span_end].strip() if message else ""
        value = current_value([r.value for r in records])
        return display_value(objective, value, words, self.language, self.spec, self.bundle)


def _fill(template: str, values: dict[str, str]) -> str:
    return re.sub(r"\s+", " ", _PLACEHOLDER.sub(lambda m: values.get(m.group(1), ""), template)).strip()
