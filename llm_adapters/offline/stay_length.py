"""A stay or trip length gives the second date of a pair (issue 28, item 5): "we leave on the 18th, ten days" is a
return on the 28th; "check in on 2 May for 3 nights" is a check-out on 5 May.

The pair is the spec's first two date objectives (granularity ``date``) in approved order: the first starts,
the second ends (departure/return, check-in/check-out, pick-up/drop-off). The end date is proposed only when the
start date is known — read in this message or already recorded — the end objective is open, nothing in the
message answers it directly, and the message states a length: a number (digits, words or an article) right
before a duration noun of the language data (``durations`` of rules/quantity/<lang>.json: 'days' 1, 'week' 7),
not introduced by a relative-date lead ('in ten days' is a date, not a length: ``duration_excluded_before``).
The witness is the visitor's sentence stating the length; the decision layer validates the value as any date.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from decimal import Decimal

from engine.kernel.goal_models import CriterionKind, GoalSpec, Objective
from engine.text import fold
from llm_adapters.offline.analysis import Analysis
from llm_adapters.offline.evidence import Evidence
from llm_adapters.offline.memo import memo
from llm_adapters.offline.numbers import digit_mentions
from llm_adapters.offline.quantity_data import alternation
from llm_adapters.offline.spelled import spelled_numbers

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DAY_PART = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:$|T)")
_MAX_DAYS = 366  # a longer "length" is not a stay
_HOURS_PER_DAY = 24
_FLAGS = re.IGNORECASE | re.UNICODE


def date_pair(spec: GoalSpec | None) -> tuple[Objective, Objective] | None:
    """The (start, end) date objectives of the spec, or None when it has fewer than two."""
    if spec is None:
        return None
    dates = [o for o in spec.ordered() if o.criterion.kind is CriterionKind.DATETIME
             and str(o.criterion.params.get("granularity", "date")) == "date"]
    return (dates[0], dates[1]) if len(dates) >= 2 else None


class _Durations:
    """The duration nouns and relative-date leads of every active language, compiled once per rules object."""

    def __init__(self, analysis: Analysis) -> None:
        units: dict[str, int] = {}
        excluded: list[str] = []
        articles: set[str] = set()
        hours: set[str] = set()
        relative: dict[str, int] = {}
        for data in analysis.rules.family("quantity").values():
            raw = data.get("durations", {})
            if isinstance(raw, dict):
                units.update({fold(k).strip(): int(v) for k, v in raw.items()})
            excluded += [str(w) for w in data.get("duration_excluded_before", [])]
            articles |= {fold(str(w)) for w in data.get("articles", [])}
            hours |= {fold(str(w)).strip() for w in data.get("duration_hours", [])}
            ends = data.get("end_relative_days", {})
            if isinstance(ends, dict):
                relative.update({" ".join(fold(k).split()): int(v) for k, v in ends.items()})
        self.days = units
        self.relative_days = relative
        hour_body = alternation(hours)
        self.hours_after = re.compile(rf"[\s\-]*(?:{hour_body})(?![^\W_])", _FLAGS) if hour_body else None
        relative_body = alternation(relative)
        self.relative = re.compile(rf"(?<![^\W_])({relative_body})(?![^\W_])", _FLAGS) if relative_body else None
        body = alternation(units)
        # no "^": it is used as match(text, pos), which anchors at pos (a "^" would only match at 0)
        self.unit_after = re.compile(rf"[\s\-]*({body})(?![^\W_])", _FLAGS) if body else None
        self.unit_any = re.compile(rf"(?<![^\W_])({body})(?![^\W_])", _FLAGS) if body else None
        lead = alternation(excluded)
        self.excluded = re.compile(rf"(?<![^\W_]){lead}\s+$", _FLAGS) if lead else None
        article = alternation(articles)
        self.article_before = re.compile(rf"(?<![^\W_]){article}\s+$", _FLAGS) if article else None


def _durations(analysis: Analysis) -> _Durations:
    return memo(analysis.rules, "stay_durations", lambda: _Durations(analysis))


def stated_length(analysis: Analysis, relative: bool = False) -> tuple[int, int] | None:
    """(days, folded position) of the first stay length the message states, or None. ``relative``: an end counted
    from the start ('le lendemain', 'the next day') counts too, as the answer to the end's question just asked
    (unasked, 'the next day' as often moves the start)."""
    data = _durations(analysis)
    if data.unit_after is None or data.unit_any is None:
        return None
    text = analysis.masked
    numbers: list[tuple[int, int, Decimal]] = [(m.start, m.end, m.value) for m in digit_mentions(analysis)]
    numbers += [(n.start, n.end, n.value) for n in spelled_numbers(analysis) if not n.ordinal]
    candidates: list[tuple[int, int]] = []
    for start, end, value in numbers:
        unit = data.unit_after.match(text, end)
        if unit is None and data.hours_after is not None and data.hours_after.match(text, end) is not None \
                and value % _HOURS_PER_DAY == 0 and 0 < value <= _HOURS_PER_DAY * _MAX_DAYS:
            candidates.append((start, int(value // _HOURS_PER_DAY)))  # 'je la garde 24 heures': one day
            continue
        if unit is None or value != value.to_integral_value() or not 0 < value <= _MAX_DAYS:
            continue
        candidates.append((start, int(value) * data.days[fold(unit.group(1)).strip()]))
    if relative and data.relative is not None:  # 'le lendemain', 'the same evening': the end counted from the start
        candidates += [(m.start(), data.relative_days[" ".join(m.group(1).split())])
                       for m in data.relative.finditer(text)]
    if data.article_before is not None:
        for unit in data.unit_any.finditer(text):  # 'a week', 'une semaine': one unit
            window = max(0, unit.start() - 8)
            article = data.article_before.search(text[window:unit.start()])
            if article is not None:
                candidates.append((window + article.start(), data.days[fold(unit.group(1)).strip()]))
    for start, days in sorted(candidates):
        before = text[max(0, start - 24):start]
        if data.excluded is not None and data.excluded.search(before):
            continue  # 'in ten days' is a date, not a length
        if days <= _MAX_DAYS:
            return days, start
    return None


def is_full_date(value: str) -> bool:
    return _DATE.match(value.strip()) is not None


def end_from_length(analysis: Analysis, start_value: str | None, days_pos: tuple[int, int] | None
                    ) -> Evidence | None:
    """The end date 'start + length', with the length's sentence as its witness."""
    day = _DAY_PART.match(start_value.strip()) if start_value is not None else None
    if day is None or days_pos is None:
        return None  # the start's day counts, with or without its time ('2027-07-03T08:00')
    days, pos = days_pos
    sentence = analysis.sentence_at(pos)
    if sentence is None or sentence.is_question:
        return None
    end = date.fromisoformat(day.group(1)) + timedelta(days=days)
    return Evidence(value=end.isoformat(), pos=pos, sentences=((sentence.start, sentence.end),), rank=1)
