"""Dates, times, schedules and time frames in a visitor message (spec/adr/0003 §3-4).

``temporal_mentions`` finds every temporal expression with its folded span and grammar values, resolved against
the turn's reference time in the company's time zone; money and quantity extractors call it to leave those spans
alone. ``extract_datetime`` turns mentions into evidence for one datetime objective by its granularity.

Our own patterns (rules/temporal/<lang>.json) find and read the expressions; dateparser reads the month-name
dates they leave half-read ("September the 4th of 2027"), on that short span only, a few times per message.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

import structlog

from engine.kernel.company_data import time_zone
from engine.kernel.goal_models import CriterionKind, GoalSpec, Objective
from engine.kernel.validators.temporal import COMPLETES, TemporalError, TemporalValue, parse_value
from engine.text import fold
from llm_adapters.offline.analysis import Analysis, Sentence
from llm_adapters.offline.evidence import Evidence, ExtractionContext
from llm_adapters.offline.free_text_words import free_text_words
from llm_adapters.offline.memo import memo
from llm_adapters.offline.offer import seeks_offer
from llm_adapters.offline.offline_rules import OfflineRules
from llm_adapters.offline.temporal_availability import Mentioned, excluded_days, sentence_availability
from llm_adapters.offline.temporal_parse import Reading, read_sentence
from llm_adapters.offline.temporal_rules import TemporalGrammar, bounded, grammar
from llm_adapters.offline.terms import replaced

log = structlog.get_logger("grace.proposer.offline")


@dataclass(frozen=True)
class TemporalMention:
    start: int  # folded offsets of the expression
    end: int
    values: tuple[str, ...]  # grammar values, preferred first ('weekly:tue,thu@evening', then 'evening')
    language: str
    weak: bool  # a lone month name or one-word part of day: only an answer to the question just asked
    sentence: Sentence
    core: int  # start of the expression proper, after a leading 'before' / 'every' / 'between'
    role: str | None = None  # 'start' ('from Thursday'), 'end' ('until March 13th'): one end of a range


# --- mentions ---------------------------------------------------------------------------------------------


def _languages(rules: OfflineRules, compiled: TemporalGrammar, spec: GoalSpec | None) -> list[str]:
    """The message's languages (the rules are already scoped to them), the spec's default language first: it
    decides the day/month order of numeric dates."""
    available = sorted(compiled.languages)
    first = spec.default_language if spec is not None else None
    return sorted(available, key=lambda lang: (lang != first, lang))


def _today(reference_time: datetime | None, spec: GoalSpec | None) -> date:
    moment = reference_time or datetime.now(UTC)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(time_zone(spec)).date()


def _region(spec: GoalSpec | None) -> str | None:
    return spec.locale.phone_region if spec is not None and spec.locale is not None else None


def temporal_mentions(analysis: Analysis, reference_time: datetime | None = None,
                      spec: GoalSpec | None = None) -> list[TemporalMention]:
    """Every temporal expression of the message, in order; computed once per message and reference (the memo
    lives on the Analysis: a global table with GC finalizers deadlocked on its own lock)."""
    today = _today(reference_time, spec)
    region = _region(spec)
    language = spec.default_language if spec is not None else None
    key = f"temporal_mentions:{today.isoformat()}:{region}:{language}"
    return memo(analysis, key, lambda: _find(analysis, today, region, spec))


def _find(analysis: Analysis, today: date, region: str | None, spec: GoalSpec | None) -> list[TemporalMention]:
    compiled = grammar(analysis.rules)
    languages = _languages(analysis.rules, compiled, spec)
    if not languages:
        return []
    mentions: list[TemporalMention] = []
    budget = [compiled.settings.max_dateparser_calls]
    for sentence in analysis.sentences:
        text = analysis.masked[sentence.start:sentence.end]
        readings = read_sentence(compiled, languages, today, region, text, sentence.start)
        for reading in readings:
            reading = _with_dateparser(reading, analysis, compiled, today, budget)
            lone_today = reading.values == (today.isoformat(),) and reading.weak
            if lone_today and _social(analysis, reading):
                continue  # 'thanks for your help today': a pleasantry, not a day
            weak = reading.weak and not (lone_today and _closes_statement(analysis, reading, sentence))
            mentions.append(TemporalMention(reading.start, reading.end, reading.values, reading.language,
                                            weak, sentence, max(reading.core, reading.start), reading.role))
            if len(mentions) >= compiled.settings.max_mentions:
                return mentions
    return mentions


def _closes_statement(analysis: Analysis, reading: Reading, sentence: Sentence) -> bool:
    """A lone 'today' is chat more often than an answer ('today I wanted to ask ...'), except as the last word
    of a statement's clause: 'I'll be checking in today.', 'I want to fly to Vancouver later today.'"""
    if sentence.is_question:
        return False
    _, clause_end = analysis.clause_at(reading.start)
    return not analysis.masked[reading.end:max(clause_end, reading.end)].strip(" .!,;:")


def _social(analysis: Analysis, reading: Reading) -> bool:
    """The clause is a social aside of the free-text language data ('thanks for your help today')."""
    start, end = analysis.clause_at(reading.start)
    return free_text_words(analysis.rules).asides.search(analysis.masked, start, max(end, reading.end)) is not None


# --- dateparser: month-name dates our patterns leave half-read --------------------------------------------

_DP_LOCK = threading.Lock()


def _dateparser_settings(today: date) -> dict[str, Any]:
    return {"RELATIVE_BASE": datetime(today.year, today.month, today.day), "PREFER_DATES_FROM": "future",
            "REQUIRE_PARTS": ["day", "month"]}


def _with_dateparser(reading: Reading, analysis: Analysis, compiled: TemporalGrammar, today: date,
                     budget: list[int]) -> Reading:
    """A lone month ('in June', weak) next to a number may be a date our patterns did not read: ask dateparser
    about a short window around it, at most ``max_dateparser_calls`` times per message."""
    if budget[0] <= 0 or not reading.values[0].startswith("period:") or not reading.weak:
        return reading
    lang = compiled.languages.get(reading.language)
    if lang is None or not lang.dateparser_language:
        return reading
    sentence = analysis.sentence_at(reading.start)
    if sentence is None:
        return reading
    lo = max(sentence.start, reading.start - 16)
    hi = min(sentence.end, reading.end + 16)
    window = analysis.masked[lo:hi]
    if not re.search(r"\d", window):
        return reading
    budget[0] -= 1
    try:
        from dateparser.search import search_dates

        with _DP_LOCK:
            found = search_dates(window, languages=[lang.dateparser_language], settings=_dateparser_settings(today))
    except Exception as exc:  # a library failure must never fail a turn
        log.warning("proposer.temporal.dateparser_failed", error=type(exc).__name__)
        return reading
    for text, moment in found or []:
        at = window.find(text)
        if at < 0 or not re.search(r"\d", text):
            continue
        start, end = lo + at, lo + at + len(text)
        if start <= reading.start and end >= reading.end:
            return Reading(start, end, (moment.date().isoformat(),), reading.language)
    return reading


def warm_temporal(rules: OfflineRules) -> None:
    """Compile the temporal grammar and load dateparser's languages once, at proposer start-up (its first call
    costs about 0.1 s per language)."""
    compiled = grammar(rules)
    try:
        from dateparser.search import search_dates
    except ImportError:  # pragma: no cover - dateparser is a pinned dependency
        return
    today = datetime.now(UTC).date()
    for lang in compiled.languages.values():
        if lang.dateparser_language:
            with _DP_LOCK:
                search_dates("1 2", languages=[lang.dateparser_language], settings=_dateparser_settings(today))


# --- evidence for one datetime objective ------------------------------------------------------------------


def _value_for(mention: TemporalMention, granularity: str) -> str | None:
    for value in mention.values:
        try:
            parsed = parse_value(value)
        except TemporalError:  # pragma: no cover - the parser only writes grammar values
            continue
        if parsed.kind in COMPLETES.get(granularity, frozenset()):
            return parsed.canonical
    return None


def _project(value: str, granularity: str, siblings: Sequence[Objective]) -> str:
    """Split a datetime when the spec asks for the date and the time separately (two objectives)."""
    parsed: TemporalValue = parse_value(value)
    if parsed.kind != "datetime":
        return value
    others = {str(o.criterion.params.get("granularity", "date")) for o in siblings}
    day, _, clock = parsed.canonical.partition("T")
    if granularity == "date" and "time" in others:
        return day
    if granularity == "time" and "date" in others:
        return clock
    return value


_QUOTED = re.compile(r"«[^»]*»|“[^”]*”|\"[^\"]*\"|(?<![\w])'[^']*'(?![\w])")


def _objective_text(objective: Objective) -> str:
    """The objective's own words; quoted examples of its description are left out ('« La fin du mois » ne
    compte pas' names no end of a range)."""
    cues = objective.criterion.params.get("cues") or {}
    description = _QUOTED.sub(" ", objective.criterion.description)
    words = [objective.id.replace("_", " ").replace("-", " "), objective.name, description]
    words += [str(t) for terms in cues.values() for t in terms]
    return fold(" ".join(words))


def _cue_terms(objective: Objective) -> list[str]:
    cues = objective.criterion.params.get("cues") or {}
    return [fold(str(t)).strip() for terms in cues.values() for t in terms if fold(str(t)).strip()]


def _role(objective: Objective, compiled: TemporalGrammar) -> str | None:
    """'start' or 'end' of a range, from the objective's own words (check-in / check-out, pick-up / return): its
    id and name first, then all its words (a description may name the other end: 'the return day, or a length
    from which it follows once the start is known')."""
    titled = fold(" ".join([objective.id.replace("_", " ").replace("-", " "), objective.name]))
    return _roles_in(titled, compiled) or _roles_in(_objective_text(objective), compiled)


def _roles_in(text: str, compiled: TemporalGrammar) -> str | None:
    roles = set()
    for lang in compiled.languages.values():
        for role, name in (("start", "start_terms"), ("end", "end_terms")):
            regex = lang.lex[name].regex
            if regex and bounded(regex).search(text):
                roles.add(role)
    return roles.pop() if len(roles) == 1 else None


def _role_markers(objective: Objective, compiled: TemporalGrammar) -> list[re.Pattern[str]]:
    """The message words that mark a date as this objective's end of a range ('livraison le …' for a start).
    The lexicon's regex, not its lookup keys: keys are written without spaces ('checkout'), so a marker of
    several words ('check out', 'pick it up') would never be found in a message."""
    role = _role(objective, compiled)
    if role is None:
        return []
    name = "start_markers" if role == "start" else "end_markers"
    return [bounded(lang.lex[name].regex) for lang in compiled.languages.values() if lang.lex[name].regex]


def _nearest_cue(analysis: Analysis, mention: TemporalMention, objectives: Sequence[Objective],
                 compiled: TemporalGrammar | None = None) -> Objective | None:
    """The objective whose cue term (or role marker: 'reprise le lundi 3' for the end of a range) stands closest
    before the mention in its sentence (or right after it). None when the closest term is as close for another
    objective too (a word both share, 'hotel reservation on March 4th' under a start and an end date): it names
    neither, and the order of the dates decides."""
    sentence = mention.sentence
    before = analysis.masked[sentence.start:mention.start]
    after = analysis.masked[mention.end:sentence.end]
    nearest: dict[str, int] = {}
    for objective in objectives:
        markers = _role_markers(objective, compiled) if compiled is not None else []
        patterns = [re.compile(rf"(?<![\w]){_inflected(term)}", re.IGNORECASE)
                    for term in dict.fromkeys(_cue_terms(objective))]
        for pattern in [*patterns, *markers]:
            hits = [len(before) - m.end() for m in pattern.finditer(before)]
            hits += [m.start() + 1000 for m in pattern.finditer(after)]  # after the mention counts less
            if hits:
                nearest[objective.id] = min(min(hits), nearest.get(objective.id, min(hits)))
    if not nearest:
        return None
    closest = min(nearest.values())
    winners = [o for o in objectives if nearest.get(o.id) == closest]
    return winners[0] if len(winners) == 1 else None


def _inflected(term: str) -> str:
    """A cue term whose words of four letters or more may carry an ending: 'check out' also finds 'checking
    out', 'arrive' finds 'arrives' (the company writes the base form; visitors inflect it)."""
    return r"\s+".join(re.escape(w) + (r"\w*" if len(w) >= 4 else "") for w in term.split())


def _proposal_question(analysis: Analysis, sentence: Sentence, compiled: TemporalGrammar) -> bool:
    """A question that opens with a proposal ('could we do Friday?') or ends with a proposal tag ('el martes a la
    tarde, te viene bien?')."""
    body = analysis.masked[sentence.start:sentence.end].lstrip("¿¡ ")
    tail = body.rstrip("?!. ")
    for lang in compiled.languages.values():
        regex = lang.lex["proposal_questions"].regex
        if regex and re.match(rf"{regex}(?![\w])", body, re.IGNORECASE):
            return True
        tags = lang.lex["proposal_tags"].regex
        if tags and re.search(rf"(?<![\w]){tags}$", tail, re.IGNORECASE):
            return True
    return False


def _ruled_out(analysis: Analysis, mention: TemporalMention, compiled: TemporalGrammar) -> bool:
    """'I can't do Monday', 'mañana no puedo', 'sauf le lundi': a date the visitor rules out."""
    clause_start, clause_end = analysis.clause_at(mention.core)
    before = analysis.masked[max(clause_start, mention.sentence.start):mention.core]
    after = analysis.masked[mention.end:max(clause_end, mention.end)]
    for lang in compiled.languages.values():
        if lang.patterns["negated_before"].search(before):
            return True
        negation = lang.patterns["negated_after"].match(after)
        if negation is not None and not _opens_next_clause(negation.group(), after[negation.end():]):
            return True
    return False


_NEXT_WORD = re.compile(r"\s+[^\W\d_]")


def _opens_next_clause(negation: str, rest: str) -> bool:
    """', no necesito grúa' after 'el sábado en la mañana': a lone negation word after a comma and before
    another word negates that next clause's verb, not the date ('el sábado, no' and 'el sábado no' rule it
    out)."""
    words = negation.replace(",", " ").split()
    return "," in negation and len(words) == 1 and _NEXT_WORD.match(rest) is not None


def _siblings(ctx: ExtractionContext) -> list[Objective]:
    if ctx.spec is None:
        return [ctx.objective]
    found = [o for o in ctx.spec.ordered() if o.criterion.kind is CriterionKind.DATETIME]
    return found if any(o.id == ctx.objective.id for o in found) else [ctx.objective]


def _day_and_hour(ctx: ExtractionContext, usable: Sequence[TemporalMention]) -> list[Evidence]:
    """'el domingo 4 de abril temprano, como a las 7 de la mañana': a sentence holding one day and, apart from
    it, one clock time gives the day at that time to the only date-and-time objective."""
    by_sentence: dict[int, tuple[list[TemporalMention], list[TemporalMention]]] = {}
    for mention in usable:
        kind = _kind(mention)
        if kind in ("date", "time"):
            days, hours = by_sentence.setdefault(mention.sentence.start, ([], []))
            (days if kind == "date" else hours).append(mention)
    evidence = []
    for days, hours in by_sentence.values():
        if len(days) == 1 and len(hours) == 1 and not days[0].weak and not hours[0].weak:
            day, hour = parse_value(days[0].values[0]).canonical, parse_value(hours[0].values[0]).canonical
            evidence.append(_evidence(ctx, days[0], f"{day}T{hour}", 1))
    return evidence


def _kind(mention: TemporalMention) -> str | None:
    try:
        return parse_value(mention.values[0]).kind if mention.values else None
    except TemporalError:  # pragma: no cover - the parser only writes grammar values
        return None


def _range_end(value: str, role: str) -> str:
    """One end of a date range (or of a datetime range's date part) for a start or end objective."""
    parsed = parse_value(value)
    if parsed.kind != "date_range":
        return value
    first, _, last = parsed.canonical.partition("/")
    return first if role == "start" else last


def extract_datetime(ctx: ExtractionContext) -> list[Evidence]:
    analysis = ctx.analysis
    granularity = str(ctx.params.get("granularity", "date"))
    mentions = temporal_mentions(analysis, ctx.reference_time, ctx.spec)
    if not mentions:
        return _bare_hour(ctx, granularity)
    compiled = grammar(analysis.rules)
    if granularity == "availability":
        return _availability(ctx, mentions, compiled)
    siblings = _siblings(ctx)
    others = [o for o in siblings if o.id != ctx.objective.id]
    usable: list[TemporalMention] = []
    for mention in mentions:
        sentence = mention.sentence
        if sentence.is_question and not ctx.allowed(True, "datetime", seeks_offer(ctx, sentence)) and not _proposes(
                ctx, mention, compiled):
            continue
        if mention.weak and not ctx.lenient:
            continue
        if analysis.blocked(mention.start) or _ruled_out(analysis, mention, compiled):
            continue
        usable.append(mention)
    today = _today(ctx.reference_time, ctx.spec)
    usable = [m for m in usable if not _past(m, today)]
    same = [o for o in others if _granularity(o) == granularity]  # they compete for the same mentions
    evidence: list[Evidence] = _day_and_hour(ctx, usable) if granularity == "datetime" and not others else []
    shared: list[TemporalMention] = []  # mentions another datetime objective could take too
    for mention in usable:
        value = _value_for(mention, granularity)
        rank = 1
        if same and mention.role is not None:  # 'until the 14th' is the end objective's, whatever the cues say
            own = _role(ctx.objective, compiled) or _position_role(ctx.objective, siblings, granularity)
            if own is not None and own != mention.role:
                continue
            if own == mention.role:
                rank = 2
        elif same:
            named = _nearest_cue(analysis, mention, [ctx.objective, *same], compiled)
            if named is not None and named.id != ctx.objective.id:
                if not _is_range(value):
                    continue
            elif named is not None:
                rank = 2
            elif any(_value_for(mention, granularity) for o in same):
                shared.append(mention)
        if value is None:
            if ctx.lenient and mention.values:  # kept as partial evidence: the validator never completes it
                evidence.append(_evidence(ctx, mention, mention.values[0], -1))
            continue
        value = _project(value, granularity, others)
        if same and _is_range(value):
            role = _role(ctx.objective, compiled) or _position_role(ctx.objective, siblings, granularity)
            if role is None:
                continue
            end = _range_end(value, role)
            rank = 2
            if role == "end" and end != value:  # the range's last day is written at its end: a weekday named
                evidence.append(_evidence(ctx, mention, end, rank, at=mention.end - 1))  # at its start is not it
                continue
            value = end
        elif (same and mention in shared and not ctx.lenient  # the question just asked claims an unnamed date
              and (ctx.asked in {o.id for o in same}
                   or not _first_of_its_kind(ctx.objective, siblings, granularity, mention, shared,
                                             _recorded_elsewhere(ctx, value)))):
            continue
        evidence.append(_evidence(ctx, mention, value, rank if not mention.weak else 0))
    return evidence


def _availability(ctx: ExtractionContext, mentions: Sequence[TemporalMention],
                  compiled: TemporalGrammar) -> list[Evidence]:
    """When the visitor can come (spec/adr/0008): per sentence, its day and time as one value, less the weekdays
    it rules out; a sentence that only rules days out counts as an answer to the question just asked, or beside
    a time ('not Mondays, evenings from 6')."""
    analysis = ctx.analysis
    today = _today(ctx.reference_time, ctx.spec)
    groups: dict[tuple[int, int], tuple[list[Mentioned], set[str], list[Mentioned]]] = {}
    origin: dict[int, TemporalMention] = {}
    for mention in mentions:
        sentence = mention.sentence
        if sentence.is_question and not ctx.allowed(True, "datetime", seeks_offer(ctx, sentence)) and not _proposes(
                ctx, mention, compiled):
            continue
        if analysis.blocked(mention.start) or _past(mention, today):
            continue
        item = Mentioned(mention.start, mention.end, (sentence.start, sentence.end), mention.values)
        origin[id(item)] = mention
        usable, excluded, anchors = groups.setdefault(item.sentence, ([], set(), []))
        if _ruled_out(analysis, mention, compiled):
            days = excluded_days(analysis, item, compiled)
            excluded.update(days)
            if days:
                anchors.append(item)
            continue
        usable.append(item)
    evidence: list[Evidence] = []
    for usable, excluded, anchors in groups.values():
        # A weak mention ('morning', a lone month) counts beside a firm one of its sentence ('Fridays are best,
        # late morning') or as the answer to the question just asked; never alone.
        if not ctx.lenient:
            firm = [m for m in usable if not origin[id(m)].weak]
            usable[:] = usable if firm else []
            anchors[:] = [m for m in anchors if not origin[id(m)].weak]
        anchor = anchors[0] if anchors and (ctx.lenient or usable) else None
        for found in sentence_availability(usable, frozenset(excluded), anchor):
            mention = origin[id(found.anchor)]
            evidence.append(_evidence(ctx, mention, found.value, 0 if mention.weak else 1))
    return evidence


_BARE_CLOCK = re.compile(r"^\W*(\d{1,2})(?:[:.h](\d{2}))?\W*$")


def _bare_hour(ctx: ExtractionContext, granularity: str) -> list[Evidence]:
    """'17', '9.30' as the whole answer to 'what time suits you?': a clock time, read like a bare 'at 5'."""
    if not ctx.lenient or granularity not in ("time", "availability") or len(ctx.analysis.sentences) != 1:
        return []
    sentence = ctx.analysis.sentences[0]
    match = _BARE_CLOCK.match(ctx.analysis.masked[sentence.start:sentence.end])
    if match is None:
        return []
    hour, minute = int(match.group(1)), int(match.group(2) or 0)
    if hour > 23 or minute > 59:
        return []
    below = grammar(ctx.analysis.rules).settings.bare_hour_pm_below
    if 1 <= hour < below and not match.group(1).startswith("0"):
        hour += 12
    start = sentence.start + match.start(1)
    return [Evidence(value=f"{hour:02d}:{minute:02d}", pos=start, sentences=((sentence.start, sentence.end),), rank=0)]


def _granularity(objective: Objective) -> str:
    return str(objective.criterion.params.get("granularity", "date"))


_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _past(mention: TemporalMention, today: date) -> bool:
    """Every reading lies before today ('I had a crown put in on 3/14/2024'): history, not a wish."""
    ends = [_ISO_DATE.findall(v) for v in mention.values]
    dated = [found[-1] for found in ends if found]
    return bool(dated) and len(dated) == len(mention.values) and all(d < today.isoformat() for d in dated)


def _proposes(ctx: ExtractionContext, mention: TemporalMention, compiled: TemporalGrammar) -> bool:
    """A question that proposes a date or time ('could we do Friday at 10?', 'is 12/06/2027 still free?'):
    evidence after the question about it, or anytime when it names a day or hour in digits."""
    if not _proposal_question(ctx.analysis, mention.sentence, compiled) and not _only_the_time(ctx.analysis, mention):
        return False
    return ctx.lenient or any(ch.isdigit() for ch in ctx.analysis.masked[mention.start:mention.end]) or (
        not mention.weak and _named_day_or_hour(mention))


def _only_the_time(analysis: Analysis, mention: TemporalMention) -> bool:
    """'tmrw am?', '¿el viernes a las 10?': a question that says nothing but the time proposes it."""
    sentence = mention.sentence
    rest = analysis.masked[sentence.start:mention.start] + analysis.masked[mention.end:sentence.end]
    return not any(ch.isalnum() for ch in rest)


def _named_day_or_hour(mention: TemporalMention) -> bool:
    """'tomorrow', 'at five pm': a day or a clock time named in words is as definite as one in digits (not a part
    of day, a schedule or a time frame)."""
    try:
        return parse_value(mention.values[0]).kind in ("date", "datetime", "time")
    except TemporalError:  # pragma: no cover - the parser only writes grammar values
        return False


def _is_range(value: str | None) -> bool:
    if value is None:
        return False
    try:
        return parse_value(value).kind == "date_range"
    except TemporalError:  # pragma: no cover
        return False


def _position_role(objective: Objective, siblings: Sequence[Objective], granularity: str) -> str | None:
    """No start/end words: the first objective of this granularity takes the start, the second the end."""
    same = [o for o in siblings if str(o.criterion.params.get("granularity", "date")) == granularity]
    index = next((i for i, o in enumerate(same) if o.id == objective.id), None)
    return {0: "start", 1: "end"}.get(index if index is not None else -1)


def _recorded_elsewhere(ctx: ExtractionContext, value: str) -> frozenset[str]:
    """The other objectives already holding a value, unless one holds this very value: then the visitor restates
    it ('yes, the 5th') and the open objective must not take it."""
    if any(held == value for oid, held in ctx.recorded if oid != ctx.objective.id):
        return frozenset()
    return frozenset(oid for oid, _ in ctx.recorded if oid != ctx.objective.id)


def _first_of_its_kind(objective: Objective, siblings: Sequence[Objective], granularity: str,
                       mention: TemporalMention, shared: Sequence[TemporalMention],
                       recorded: frozenset[str] = frozenset()) -> bool:
    """Two date objectives and two unnamed dates: the k-th date goes to the k-th objective still open (a
    check-in already recorded leaves 'on the 13th' to the check-out; a change of it needs a correction cue)."""
    same = [o for o in siblings if str(o.criterion.params.get("granularity", "date")) == granularity
            and (o.id == objective.id or o.id not in recorded)]
    index = next((i for i, o in enumerate(same) if o.id == objective.id), 0)
    position = shared.index(mention)
    return position == index or (len(shared) == 1 and index == 0)


def _evidence(ctx: ExtractionContext, mention: TemporalMention, value: str, rank: int,
              at: int | None = None) -> Evidence:
    sentence = mention.sentence
    return Evidence(
        value=value, pos=mention.start if at is None else at, sentences=((sentence.start, sentence.end),),
        # Only a correction replaces a date: 'we want to switch before the end of the year' names no old value.
        old=ctx.correcting and replaced(ctx.analysis, sentence, mention.core, mention.end, True), rank=rank,
    )
