"""Is every part of the intent accounted for? Re-read the spec's intent and match its phrases to objectives.

A compiled spec says which intent phrases each objective collects (criterion param ``intent_phrases``); every
phrase the deterministic reading finds must be claimed by some objective, and no objective may claim a phrase
the intent does not contain (the intent was edited after compilation). A hand-written spec without those
params is checked by kind: every phrase needs an objective whose criterion kind can collect it.
"""

from __future__ import annotations

from engine.compiler.assemble import INTENT_PHRASES
from engine.compiler.compiler_rules import CompilerRules
from engine.compiler.intent import Phrase, read_intent
from engine.kernel.goal_models import CriterionKind, GoalSpec, Objective

UNACCOUNTED = "goalspec.intent_phrase_unaccounted"
UNKNOWN = "goalspec.intent_phrase_unknown"


def _claimed(objective: Objective) -> list[str] | None:
    value = objective.criterion.params.get(INTENT_PHRASES)
    if value is None:
        return None
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    return []


def _kinds(phrase: Phrase, rules: CompilerRules) -> set[CriterionKind] | None:
    """Criterion kinds that can collect the phrase; None = any (free text is the kind of last resort)."""
    kind = rules.kind(phrase.kind) if phrase.kind else None
    if kind is None or kind.criterion is CriterionKind.FREE_TEXT:
        return None
    kinds: set[CriterionKind] = {kind.criterion}
    if kind.fallback_criterion is not None:
        kinds.add(kind.fallback_criterion)
    if phrase.options:
        kinds |= {CriterionKind.ENUMERATION, CriterionKind.FEATURES}
    return kinds


def _by_kind(phrases: list[Phrase], spec: GoalSpec, rules: CompilerRules) -> list[tuple[str, str]]:
    """Hand-written specs: specific phrases may share an objective of their kind; the others need one each."""
    free: list[Objective] = list(spec.ordered())
    used: set[str] = set()
    issues = []
    specific = [(p, k) for p in phrases if (k := _kinds(p, rules)) is not None]
    loose = [p for p in phrases if _kinds(p, rules) is None]
    for phrase, kinds in specific:
        match = next((o for o in free if o.criterion.kind in kinds and o.id not in used), None)
        match = match or next((o for o in free if o.criterion.kind in kinds), None)
        if match is None:
            issues.append((UNACCOUNTED, f"the intent asks for '{phrase.text}' but no objective can collect it "
                                        f"(expected a {' or '.join(sorted(k.value for k in kinds))} objective)"))
        else:
            used.add(match.id)
    for phrase in loose:
        match = next((o for o in free if o.id not in used), None)
        if match is None:
            issues.append((UNACCOUNTED, f"the intent asks for '{phrase.text}' but no objective collects it"))
        else:
            used.add(match.id)
    return issues


def _covered(text: str, claimed: set[str]) -> bool:
    """A phrase is accounted for by a claim that holds it or that it holds: a later compiler may cut the same part
    of the intent a little wider or narrower ('et un GSM ou un e-mail pour …' / 'GSM ou un e-mail'), and a spec
    published before must keep validating."""
    return text in claimed or any(text in claim or claim in text for claim in claimed if claim)


def intent_issues(spec: GoalSpec, rules: CompilerRules) -> list[tuple[str, str]]:
    """Coded issues for intent phrases no objective collects (empty when the intent is fully accounted for)."""
    if not spec.manager_intent.strip():
        return []
    phrases = read_intent(spec.manager_intent, rules, spec.default_language).phrases
    claims = {o.id: _claimed(o) for o in spec.objectives}
    if all(c is None for c in claims.values()):
        return _by_kind(phrases, spec, rules)
    issues: list[tuple[str, str]] = []
    texts = {p.text for p in phrases}
    claimed = {text for c in claims.values() if c for text in c}
    for objective_id, claim in claims.items():
        if claim == []:
            issues.append(("goalspec.field_invalid",
                           f"objective '{objective_id}': params.{INTENT_PHRASES} must be a list of intent phrases"))
        for text in claim or []:
            if text not in texts and text not in spec.manager_intent:
                issues.append((UNKNOWN, f"objective '{objective_id}' collects '{text}', which the intent "
                                        "does not ask for (was the intent edited after compilation?)"))
    for phrase in phrases:
        if not _covered(phrase.text, claimed):
            issues.append((UNACCOUNTED, f"the intent asks for '{phrase.text}' but no objective collects it "
                                        f"(add an objective with params.{INTENT_PHRASES} naming it)"))
    return issues
