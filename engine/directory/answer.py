"""Turning an ``Answer`` into visitor text with citations, and the GRACE ``Answerer`` adapter.

Every sentence is a rule-file template filled with directory values or parsed constraint labels; record lines
quote the directory verbatim and carry a ``[directory#index]`` citation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from engine.directory.constraints import Constraints, HoursConstraint
from engine.directory.directory_rules import DirectoryRules
from engine.directory.models import Record
from engine.directory.retriever import Answer, TraceRetriever
from engine.kernel.ports import Citation, GroundedAnswer
from engine.kernel.turn_context import TurnContext


def _minutes(value: int) -> str:
    hour, minute = divmod(value, 60)
    suffix = "am" if hour < 12 or hour == 24 else "pm"
    shown = hour % 12 or 12
    return f"{shown}:{minute:02d}{suffix}" if minute else f"{shown}{suffix}"


def _hours_labels(rules: DirectoryRules, hours: HoursConstraint, language: str) -> list[str]:
    msgs = rules.messages
    day_names = msgs["day_names"].get(language) or msgs["day_names"]["en"]
    labels = []
    or_word = f" {rules.message('or_word', language)} "
    if hours.days:
        value = or_word.join(day_names[d] for d in sorted(hours.days))
        labels.append(rules.messages["labels"]["days"].get(language, msgs["labels"]["days"]["en"]).format(value=value))
    if hours.dates:
        value = or_word.join(f"{day_names[d.weekday()]} {d.isoformat()}" for d in hours.dates)
        labels.append(rules.messages["labels"]["date"].get(language, msgs["labels"]["date"]["en"]).format(value=value))
    names = msgs["daypart_names"].get(language) or msgs["daypart_names"]["en"]
    for cond in hours.conditions:
        kind = cond.relation
        if kind == "window":
            kind = "overlap" if cond.label in names else "between"
        relation = msgs["relation_words"][kind]
        template = relation.get(language) or relation["en"]
        span = f"{_minutes(cond.start)}-{_minutes(cond.end or cond.start)}"
        value = names.get(cond.label, span) if kind == "overlap" else span
        text = template.format(value=value, time=_minutes(cond.start))
        labels.append(text)
    return labels


def constraint_labels(rules: DirectoryRules, constraints: Constraints, language: str) -> list[str]:
    labels_cfg: dict[str, Any] = rules.messages["labels"]

    def label(kind: str, value: str) -> str:
        entry = labels_cfg[kind]
        return str(entry.get(language) or entry["en"]).format(value=value)

    out = [label(p.kind, p.label) for p in constraints.places]
    out += [label("unknown_place", p) for p in constraints.unknown_places]
    out += [label("name", n.label) for n in constraints.names]
    out += [rules.natural.message("excluded_label", language).format(value=label("name", n.label))
            for n in constraints.excluded_names]
    if constraints.hours is not None:
        out += _hours_labels(rules, constraints.hours, language)
    out += [rules.semantic.concepts[c].label(language) for c in constraints.concepts]
    out += [rules.semantic.concepts[c].label(language) for c in constraints.preferred]
    out += [rules.natural.message("excluded_label", language).format(value=rules.semantic.concepts[c].label(language))
            for c in constraints.excluded]
    nat = rules.natural
    prox = constraints.proximity
    if prox is not None:
        if prox.radius is not None:
            out.append(nat.message("within_label", language).format(miles=f"{prox.radius:g}", value=prox.label))
        else:
            out.append(nat.message("near_label", language).format(value=prox.label))
    if constraints.service is not None:
        out.append(nat.message("service_label", language).format(value=constraints.service))
    if constraints.served_zip is not None:
        out.append(nat.message("served_zip_label", language).format(value=constraints.served_zip))
    return out


def _hours_shown(record: Record) -> str | None:
    """The quote the schedule was read from; a day note read with the hours field's times shows both."""
    quote = record.hours_evidence.quote if record.hours_evidence else None
    if quote is None:
        return record.hours_text
    if record.hours_text and record.hours_text not in quote and not any(c.isdigit() for c in quote):
        return f"{quote} {record.hours_text}"
    return quote


def render(answer: Answer, rules: DirectoryRules, directory_id: str, language: str | None = None) -> str:
    lang = language or answer.parsed.language
    constraints = answer.parsed.constraints
    if answer.status == "clarify":
        return answer.question or rules.message("clarify_question", lang)
    described = ", ".join(constraint_labels(rules, constraints, lang))
    if answer.status == "no_match":  # INVARIANT (T-4): names the constraints, never a record
        lines = [rules.message("unknown_place", lang).format(place=p) for p in constraints.unknown_places]
        lines.append(rules.message("no_match", lang).format(constraints=described))
        return " ".join(lines)
    header = (rules.message("results_header", lang).format(constraints=described) if described
              else rules.message("results_header_plain", lang))
    lines = [header]
    unknown = rules.message("unknown_value", lang)
    for rank, result in enumerate(answer.results, 1):
        record = result.record
        lines.append(rules.message("result_line", lang).format(
            rank=rank, name=record.name, address=record.address or unknown,
            hours=_hours_shown(record) or unknown,
            phone=record.phone or unknown, source=f"{directory_id}#{record.source_index}"))
        prox = constraints.proximity
        if result.distance_miles is not None and prox is not None:
            shown = round(result.distance_miles, rules.natural.miles_decimals)
            lines[-1] += " (" + rules.natural.message("distance", lang).format(miles=f"{shown:g}",
                                                                              anchor=prox.label) + ")"
        for label, ev in result.citations:
            if label.startswith(("concept:", "not:")):  # the quote that shows it (or the text read, stating neither)
                lines.append(rules.message("evidence_line", lang).format(quote=ev.quote, field=ev.field))
    if not constraints.places and not constraints.names and constraints.proximity is None:
        lines.append(rules.message("location_hint", lang))
    if answer.parsed.carried:
        lines.insert(0, rules.natural.message("carried", lang).format(constraints=described))
    return "\n".join(lines)


def citations(answer: Answer, directory_id: str) -> list[Citation]:
    out = []
    for result in answer.results:
        seen = set()
        for _, ev in result.citations or (("name", _name_evidence(result)),):
            key = (ev.field, ev.quote)
            if key in seen:
                continue
            seen.add(key)
            out.append(Citation(source=f"{directory_id}#{result.source_index}",
                                passage_id=f"{directory_id}:{result.source_index}:{ev.field}", quote=ev.quote))
    return out


def _name_evidence(result: Any) -> Any:
    quotes = result.record.raw.get("name")
    return quotes[0]


class DirectoryAnswerer:
    """GRACE ``Answerer`` over a service directory. With ``history`` (the visitor's earlier messages of the same
    conversation) the constraints of earlier turns carry over; the answer lists what was carried."""

    def __init__(self, retriever: TraceRetriever, clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.retriever = retriever
        self.clock = clock

    def company_texts(self) -> list[str]:
        """Every directory value this answerer can show (phones, links, notes): never the visitor's contact."""
        records = self.retriever.directory.records
        return [*(r.phone for r in records if r.phone), *(ev.quote for r in records for evs in r.raw.values()
                                                          for ev in evs)]

    def reference_time(self) -> datetime:
        """The request time on the directory's clock ('today', 'open now'); a naive clock is taken as local."""
        now = self.clock()
        zone = self.retriever.resolver.timezone
        if now.tzinfo is not None and zone:
            now = now.astimezone(ZoneInfo(zone))
        return now.replace(tzinfo=None, second=0, microsecond=0)

    def answer(self, message: str, language: str, history: Sequence[str] = (),
               context: TurnContext | None = None) -> GroundedAnswer:
        reference = self.reference_time()
        previous = None
        limit = self.retriever.rules.natural.max_history_turns
        for earlier in list(history)[-limit:] if limit else []:  # bounded work per turn
            previous = self.retriever.follow(earlier, reference, previous)
        result = self.retriever.answer(message, reference, previous)
        parsed = result.parsed
        if not parsed.intent:
            return GroundedAnswer(text="", citations=[], supported=False, is_question=False)
        lang = language or parsed.language
        text = render(result, self.retriever.rules, self.retriever.directory.id, lang)
        return GroundedAnswer(text=text, citations=citations(result, self.retriever.directory.id),
                              supported=result.status == "results", is_question=True, carried=list(parsed.carried))
