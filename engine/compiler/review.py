"""The manager's review of a compiled candidate, as ``grace compile`` prints it: each objective with its kind, the
phrase of the intent it came from, its question in every offered language, and what the compiler is unsure of.

A reading the compiler is not sure of is said, never left silent: an objective that fell back to free text, one
only implied by the intent, a question written from a kind's default rather than the manager's words, and every
compile note (context clauses left out, governance keywords set aside, languages dropped).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.compiler.model import CompileOutcome
from engine.goals.models import CriterionKind, Objective


def _uncertain(objective: Objective, notes: Sequence[str]) -> list[str]:
    flags: list[str] = []
    phrases = [str(p) for p in objective.criterion.params.get("intent_phrases", [])]
    if objective.criterion.kind is CriterionKind.FREE_TEXT:
        flags.append("free text: no more specific kind fits; the visitor's own words will be recorded")
    if any(f"'{objective.id}' is implied by" in n for n in notes):
        flags.append("only implied by the intent, not named: check that you want it asked")
    if phrases and not any(any(w.lower() in q.lower() for w in p.split() if len(w) > 3)
                           for p in phrases for q in objective.questions.values()):
        flags.append("the question is the kind's default wording, not yours: check it fits")
    return flags


def review_text(outcome: CompileOutcome, *, language_note: str | None = None) -> str:
    spec = outcome.spec
    lines = [f"review of the candidate '{spec.id}' ({outcome.compiler}); intent language {spec.default_language}"]
    if language_note:
        lines.append(f"  {language_note}")
    locale = spec.locale
    if locale is not None:
        lines.append(f"  locale: currency {locale.currency or '-'}, phone region {locale.phone_region or '-'}, "
                     f"time zone {locale.time_zone or '-'}")
    for objective in spec.ordered():
        phrases = objective.criterion.params.get("intent_phrases") or []
        lines.append(f"  {objective.order}. {objective.id}  [{objective.criterion.kind.value}]  weight "
                     f"{objective.weight}")
        lines.append("     from: " + ", ".join(f"\"{p}\"" for p in phrases) if phrases else "     from: -")
        for language, question in objective.questions.items():
            lines.append(f"     {language}: {question}")
        for flag in _uncertain(objective, outcome.notes):
            lines.append(f"     ! {flag}")
    if outcome.notes:
        lines.append("  notes:")
        lines += [f"   - {note}" for note in outcome.notes]
    return "\n".join(lines)
