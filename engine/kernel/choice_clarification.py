"""A choice the visitor's words fit several options of (issue 32): the reply names those options and asks which one.

The offline proposer records the candidates in a proposal note (``proposer.choice_ambiguous:<objective>:<a>,<b>``)
instead of guessing a value. Wording only: when the policy asks that objective, its question becomes "Which one do
you mean: A or B?"; otherwise one sentence names the candidates. Which objective is asked stays the policy's
decision. Wording is rule data (``rules/arc/<language>.json`` -> ``choice_ambiguous``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from babel.dates import format_date, get_day_names

from engine.kernel.arc_values import option_label
from engine.kernel.company_data import criterion_vocabulary
from engine.kernel.goal_models import GoalSpec
from engine.rules.loader import RuleBundle

AMBIGUOUS = "proposer.choice_ambiguous:"
WEEKDAY = "proposer.weekday_conflict:"  # "<prefix><objective>:<YYYY-MM-DD>:<stated weekday key>"
_KEYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
NOTE = "arc.choice_ambiguous:"  # audit note "arc.choice_ambiguous:<objective>:<mode>"


@dataclass(frozen=True)
class ChoiceClarification:
    objective: str
    mode: str  # "ask": replaces the decided question; "notice": said before another question
    text: str

    @property
    def note(self) -> str:
        return f"{NOTE}{self.objective}:{self.mode}"


def choice_clarification(bundle: RuleBundle, spec: GoalSpec, language: str, chosen: str | None,
                         proposal_notes: Sequence[str], completed: Sequence[str]) -> ChoiceClarification | None:
    texts = None
    for lang in (language, spec.default_language, "en"):
        if bundle.has(f"arc/{lang}"):
            texts = bundle.file(f"arc/{lang}").get("choice_ambiguous")
            break
    if not texts:
        return None
    by_id = {o.id: o for o in spec.objectives}
    for note in proposal_notes:
        if not note.startswith(AMBIGUOUS):
            continue
        objective_id, _, options = note[len(AMBIGUOUS):].partition(":")
        objective = by_id.get(objective_id)
        if objective is None or objective_id in completed:
            continue
        vocabulary = criterion_vocabulary(objective.criterion, spec, bundle)
        labels = [option_label(vocabulary, option, language, spec.default_language)
                  for option in options.split(",") if option]
        if len(labels) < 2:
            continue
        candidates = f"{', '.join(labels[:-1])} {texts['or']} {labels[-1]}"
        mode = "ask" if chosen == objective_id else "notice"
        name = objective.label(language, spec.default_language).lower()
        text = texts[mode].replace("{candidates}", candidates).replace("{objective}", name)
        return ChoiceClarification(objective_id, mode, text)
    return None


def weekday_clarification(bundle: RuleBundle, spec: GoalSpec, language: str, chosen: str | None,
                          proposal_notes: Sequence[str]) -> ChoiceClarification | None:
    """'Saturday 16 May' when 16 May is a Sunday: name both and ask which day is meant (nothing was recorded)."""
    texts = None
    for lang in (language, spec.default_language, "en"):
        if bundle.has(f"arc/{lang}"):
            texts = bundle.file(f"arc/{lang}").get("weekday_conflict")
            break
    if not texts:
        return None
    for note in proposal_notes:
        if not note.startswith(WEEKDAY):
            continue
        objective_id, day_text, stated = note[len(WEEKDAY):].split(":")
        try:
            day = date.fromisoformat(day_text)
            names = get_day_names("wide", locale=language)
            values = {"date": str(format_date(day, format="long", locale=language)),
                      "actual": str(names[day.weekday()]), "stated": str(names[_KEYS.index(stated)])}
        except (ValueError, LookupError):
            continue
        mode = "ask" if chosen == objective_id else "notice"
        text = texts[mode]
        for name, value in values.items():
            text = text.replace("{" + name + "}", value)
        return ChoiceClarification(objective_id, mode, text)
    return None
