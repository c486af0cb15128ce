"""The manager's review of a compiled candidate, as ``grace compile`` prints it: each objective with its kind, the
phrase of the intent it came from, its question in every offered language, and what the compiler is unsure of.

A reading the compiler is not sure of is said, never left silent: an objective that fell back to free text, one
only implied by the intent, a question written from a kind's default rather than the manager's words, and every
compile note (context clauses left out, governance keywords set aside, languages dropped). Everything is written
in the intent's language, from the texts of rules/compiler.json ``review`` (English where a language lacks one).
"""

from __future__ import annotations

from engine.compiler.compiler_rules import CompilerRules, ReviewRules, review_rules
from engine.compiler.model import CompileOutcome
from engine.kernel.goal_models import CriterionKind, Objective


def _uncertain(objective: Objective, implied: set[str], review: ReviewRules, language: str) -> list[str]:
    flags: list[str] = []
    phrases = [str(p) for p in objective.criterion.params.get("intent_phrases", [])]
    if objective.criterion.kind is CriterionKind.FREE_TEXT:
        flags.append(review.text(language, "flag_free_text"))
    if objective.id in implied:
        flags.append(review.text(language, "flag_implied"))
    if phrases and not any(any(w.lower() in q.lower() for w in p.split() if len(w) > 3)
                           for p in phrases for q in objective.questions.values()):
        flags.append(review.text(language, "flag_default_question"))
    return flags


def review_text(outcome: CompileOutcome, rules: CompilerRules, *, language_note: str | None = None) -> str:
    spec = outcome.spec
    review, language = review_rules(rules), spec.default_language
    lines = [review.text(language, "header", spec=spec.id, compiler=outcome.compiler, language=language)]
    if language_note:
        lines.append(f"  {language_note}")
    locale = spec.locale
    if locale is not None:
        lines.append("  " + review.text(language, "locale", currency=locale.currency or "-",
                                        phone_region=locale.phone_region or "-", time_zone=locale.time_zone or "-"))
    implied = set(outcome.implied)
    for objective in spec.ordered():
        phrases = objective.criterion.params.get("intent_phrases") or []
        lines.append("  " + review.text(language, "objective", order=objective.order, id=objective.id,
                                        kind=objective.criterion.kind.value, weight=objective.weight))
        source = ", ".join(f"\"{p}\"" for p in phrases) if phrases else "-"
        lines.append(f"     {review.text(language, 'from')}: {source}")
        for question_language, question in objective.questions.items():
            lines.append(f"     {question_language}: {question}")
        for flag in _uncertain(objective, implied, review, language):
            lines.append(f"     ! {flag}")
    if outcome.notes:
        lines.append(f"  {review.text(language, 'notes')}:")
        lines += [f"   - {note}" for note in outcome.notes]
    return "\n".join(lines)
