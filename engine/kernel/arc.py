"""The conversation arc around the decided question: clarifications after a rejected answer, and the closing turn.

Wording only. Which objective is asked, if any, is decided by the policy (engine/kernel/policy.py); this module never
adds a question of its own. It words the decided one as a clarification when the visitor's last answer to that
same objective was rejected by its validator, says in one sentence why an answer was not recorded when the policy
asks something else, and closes the conversation with a summary of what was recorded (in the visitor's own words)
and the company's next step. All wording is rule data (rules/arc/<language>.json).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from babel.numbers import get_currency_name

from engine.kernel.arc_values import display_value, option_label
from engine.kernel.company_data import criterion_vocabulary, locale_value
from engine.kernel.conversation import ConversationState
from engine.kernel.decision.decider import Decision
from engine.kernel.goal_models import GoalSpec, Objective, company_name
from engine.kernel.values import current_value
from engine.rules.loader import RuleBundle

REJECTED = "validator.rejected"
CLOSING_NOTE = "arc.closing:"  # audit-record note of the closing turn: "arc.closing:<reason>"
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


@dataclass(frozen=True)
class Clarification:
    objective: str
    code: str  # the validator's reason code that was worded
    mode: str  # "ask": replaces the decided question; "notice": said before another question, or alone
    text: str


@dataclass(frozen=True)
class Closing:
    reason: str  # "all_complete" | "visitor_stopped"
    text: str

    @property
    def note(self) -> str:
        return CLOSING_NOTE + self.reason


def closing_reason(record: Mapping[str, Any]) -> str | None:
    """The closing reason an audit record carries in its notes, or None for any other turn."""
    for note in record.get("notes") or []:
        if isinstance(note, str) and note.startswith(CLOSING_NOTE):
            return note[len(CLOSING_NOTE):]
    return None


class ArcWording:
    """The arc texts of one conversation language (falling back to the spec's default language)."""

    def __init__(self, bundle: RuleBundle, spec: GoalSpec, language: str) -> None:
        self.spec = spec
        self.bundle = bundle
        self.language = language
        data = None
        for lang in (language, spec.default_language, "en"):
            if bundle.has(f"arc/{lang}"):
                data = bundle.file(f"arc/{lang}")
                break
        self._data: dict[str, Any] | None = data

    @property
    def available(self) -> bool:
        return self._data is not None

    # ---- clarification -------------------------------------------------------------------------------------

    def clarification(self, decision: Decision, question: str | None) -> Clarification | None:
        """The wording for this turn's first rejected answer, if any; None when nothing was rejected."""
        if self._data is None:
            return None
        rejected = self._rejected(decision)
        if rejected is None:
            return None
        objective, code = rejected
        texts = self._data["clarifications"].get(code, self._data["clarification_default"])
        asked_again = question is not None and decision.chosen == objective.id
        template = texts["ask"] if asked_again else texts["notice"]
        text = self._fill(template, objective, question)
        if text is None:  # a placeholder this objective cannot fill: the generic wording always can
            texts = self._data["clarification_default"]
            template = texts["ask"] if asked_again else texts["notice"]
            text = self._fill(template, objective, question) or ""
        return Clarification(objective.id, code, "ask" if asked_again else "notice", text)

    def notice_for(self, objective: Objective, code: str) -> str | None:
        """The one-sentence notice for a rejected value of ``objective`` (e.g. a rejected correction)."""
        if self._data is None:
            return None
        texts = self._data["clarifications"].get(code, self._data["clarification_default"])
        return self._fill(texts["notice"], objective, None) or self._fill(
            self._data["clarification_default"]["notice"], objective, None)

    def _rejected(self, decision: Decision) -> tuple[Objective, str] | None:
        by_id = {o.id: o for o in self.spec.objectives}
        for candidate in decision.candidates:
            objective_id = candidate.command.get("objective")
            if candidate.reason != REJECTED or objective_id not in by_id:
                continue
            index = [o.id for o in self.spec.ordered()].index(objective_id)
            if decision.bits_after[index] == 1:  # another value of the same turn completed it
                continue
            return by_id[objective_id], candidate.validator_code or REJECTED
        return None

    def _fill(self, template: str, objective: Objective, question: str | None) -> str | None:
        values = self._placeholders(objective, question)
        missing = [name for name in _PLACEHOLDER.findall(template) if not values.get(name)]
        if missing:
            return None
        return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template).strip()

    def _placeholders(self, objective: Objective, question: str | None) -> dict[str, str]:
        lang, fallback = self.language, self.spec.default_language
        params = objective.criterion.params
        values = {
            "question": question or objective.question(lang, fallback),
            "objective": objective.label(lang, fallback).lower(),
            "company": self.company,
            "currency": _currency_name(locale_value(self.spec, objective.criterion, "currency", "currency"), lang),
            "unit": str(params.get("unit", "")),
        }
        defaults = self.bundle.file("criteria").get("quantity", {}) if self.bundle.has("criteria") else {}
        for bound in ("min", "max"):
            value = params.get(bound, defaults.get(bound))
            values[bound] = "" if value is None else _number(value)
        vocabulary = criterion_vocabulary(objective.criterion, self.spec, self.bundle)
        if vocabulary is not None:
            values["options"] = ", ".join(option_label(vocabulary, option, lang, fallback)
                                          for option in vocabulary.options)
        return values

    # ---- pending (SPEC D-11) -------------------------------------------------------------------------------

    def pending(self, objective_ids: tuple[str, ...], max_listed_options: int) -> str | None:
        """The statement that names what is still open as optional, with the options of a short vocabulary; None
        when this language's wording has no pending block (a bundle before 1.9.0)."""
        texts = (self._data or {}).get("pending")
        if texts is None or not objective_ids:
            return None
        lang, fallback = self.language, self.spec.default_language
        by_id = {o.id: o for o in self.spec.objectives}
        named = [by_id[i] for i in objective_ids if i in by_id]
        labels = [o.label(lang, fallback).lower() for o in named]
        joined = labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + texts["last_joiner"] + labels[-1]
        sentences = [str(texts["statement"]).replace("{objectives}", joined)]
        for objective in named:
            vocabulary = criterion_vocabulary(objective.criterion, self.spec, self.bundle)
            if vocabulary is None or not 0 < len(vocabulary.options) <= max_listed_options:
                continue
            options = ", ".join(option_label(vocabulary, option, lang, fallback) for option in vocabulary.options)
            sentences.append(str(texts["options"]).replace("{objective}", objective.label(lang, fallback).lower())
                             .replace("{options}", options))
        return " ".join(sentences)

    # ---- closing -------------------------------------------------------------------------------------------

    @property
    def company(self) -> str:
        """The configured company name, or '' (the wording then falls back to one that names no company)."""
        return company_name(self.spec) or ""

    def closing(self, before: ConversationState, after: ConversationState) -> Closing | None:
        """The closing turn: the turn every objective became complete, or the visitor asked to stop."""
        if self._data is None:
            return None
        if all(after.bits) and not all(before.bits):
            reason = "all_complete"
        elif after.stopped and not before.stopped:
            reason = "visitor_stopped"
        else:
            return None
        texts = self._data["closing"]
        lines = self._summary(after)
        if not lines:
            return Closing(reason, f"{texts['nothing_recorded']}\n\n{self._next_step()}")
        intro = texts["intro_complete"] if reason == "all_complete" else texts["intro_stopped"]
        body = "\n".join(f"- {line}" for line in lines)
        return Closing(reason, f"{intro}\n{body}\n\n{texts['correction']} {self._next_step()}")

    def _summary(self, state: ConversationState) -> list[str]:
        """One line per recorded objective, in approved order: the latest accepted value, as the visitor reads it."""
        lines = []
        for objective in self.spec.ordered():
            records = state.values.get(objective.id)
            if not records:
                continue
            latest = records[-1]
            message = state.visitor_message(latest.turn)
            words = message.text[latest.span_start:latest.span_end].strip() if message else ""
            label = objective.label(self.language, self.spec.default_language)
            value = current_value([r.value for r in records])  # every contact channel kept (spec/adr/0006)
            shown = display_value(objective, value, words, self.language, self.spec, self.bundle)
            lines.append(f"{label}: {shown}")
        return lines

    def _next_step(self) -> str:
        closing = self.spec.closing
        configured = closing.next_step if closing else {}
        text = configured.get(self.language) or configured.get(self.spec.default_language)
        if text:
            return text.strip()
        assert self._data is not None
        texts = self._data["closing"]
        if not self.company and texts.get("default_next_step_unnamed"):
            return str(texts["default_next_step_unnamed"])  # never a title cut short where a name should be
        return str(texts["default_next_step"]).replace("{company}", self.company)


def _currency_name(code: Any, language: str) -> str:
    """'EUR' -> 'euros' in the visitor's language (plural: 'amounts in euros'); the code when babel has no name."""
    if not code:
        return ""
    try:
        return str(get_currency_name(str(code), count=2, locale=language))
    except (ValueError, LookupError):
        return str(code)


def _number(value: Any) -> str:
    text = str(value)
    return text[:-2] if text.endswith(".0") else text
