"""Time expressions in a query -> ``HoursConstraint`` (weekdays, dates relative to a reference, time of day).

A bare weekday ('on Saturdays', 'el sábado') is recurring: any opening on that weekday. A dated expression
('tomorrow', 'this Saturday', 'March 5', 'now') resolves against the reference date given by the caller, and
only openings certain to happen on that date count (irregular or seasonal openings do not).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from engine.directory.constraints import HoursConstraint, TimeCondition
from engine.directory.directory_rules import TimeVocabulary


def _alt(words: list[str] | tuple[str, ...]) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


@dataclass
class TimeParse:
    hours: HoursConstraint | None
    spans: list[tuple[int, int, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class QueryTimeParser:
    def __init__(self, vocab: TimeVocabulary) -> None:
        self.vocab = vocab
        self._dayparts = [(re.compile(rf"(?<![a-z]){re.escape(w)}(?![a-z])"), part)
                          for part in vocab.dayparts for w in sorted(part.words, key=len, reverse=True)]
        self._dayparts.sort(key=lambda item: -len(item[0].pattern))
        self._relative = [(re.compile(rf"(?<![a-z]){re.escape(w)}(?![a-z])"), offset)
                          for w, offset in vocab.relative_days]
        self._now = re.compile(rf"(?<![a-z])(?:{_alt(vocab.now_words)})(?![a-z])")
        self._day = re.compile(rf"(?<![a-z])(?:{_alt(list(vocab.day_words))})(?![a-z])")
        self._abbr = re.compile(rf"(?<![A-Za-z])(?:{_alt([a.capitalize() for a in vocab.day_abbreviations])})(?![a-z])")
        # Lower-case 'mon', 'wed', 'sat' are also ordinary words; they name a day only right after an open word
        # or a dated prefix ('open wed', 'this sat') - people type queries in lower case.
        cues = _alt(sorted(vocab.open_words) + list(vocab.dated_weekday_prefixes))
        self._cued_abbr = re.compile(
            rf"(?<![a-z])(?:{cues})\s+(?P<abbr>{_alt(list(vocab.day_abbreviations))})(?![a-z])")
        self._prefix = re.compile(rf"(?:{_alt(vocab.dated_weekday_prefixes)})\s+$")
        self._weekend = re.compile(rf"(?<![a-z])(?:{_alt(vocab.weekend_words)})(?![a-z])")
        self._workweek = re.compile(rf"(?<![a-z])(?:{_alt(vocab.weekday_group_words)})(?![a-z])")
        months = _alt(list(vocab.month_words))
        self._date_md = re.compile(rf"(?<![a-z])(?P<month>{months})\.?\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?(?!\d)")
        self._date_dm = re.compile(rf"(?<!\d)(?P<day>\d{{1,2}})\s+de\s+(?P<month>{months})(?![a-z])")
        am = _alt([w for w in vocab.am_words if len(w) > 1])
        pm = _alt([w for w in vocab.pm_words if len(w) > 1])
        self._clock = re.compile(
            rf"(?<![\d:/])(?P<h>\d{{1,2}})(?::(?P<m>\d{{2}}))?\s*(?:(?P<am>{am})|(?P<pm>{pm}))?(?![\d:/a-z])"
            rf"|(?<![a-z])(?P<noon>{_alt(vocab.noon_words)})(?![a-z])"
            rf"|(?<![a-z])(?P<midnight>{_alt(vocab.midnight_words)})(?![a-z])")
        self._relations = [(re.compile(rf"(?<![a-z]){re.escape(w)}\s*$"), rel) for w, rel in vocab.time_relations]
        self._range_joiners = re.compile(r"^\s*(?:-|to|and|until|till|a|y|hasta)\s*(?:las\s*|la\s*)?$")
        self._between = re.compile(
            rf"(?:{_alt(vocab.range_openers)})\s+(?:las\s+|la\s+)?$")
        fillers = rf"(?:(?:{_alt(sorted(vocab.negation_fillers))})\s+)*" if vocab.negation_fillers else ""
        self._negated_before = re.compile(
            rf"(?<![a-z'])(?:{_alt(vocab.negation_cues)})\s+{fillers}$") if vocab.negation_cues else None
        self._closed_before = re.compile(rf"(?<![a-z])(?:{_alt(vocab.closed_words)})\s+{fillers}$")
        self._indifferent_after = re.compile(
            rf"^\s*(?:{_alt(vocab.indifference_cues)})(?![a-z])") if vocab.indifference_cues else None

    def _polarity(self, folded: str, start: int, end: int) -> str:
        """'not' / 'except' before a time word exclude it ('not on Sundays'); 'closed Mondays is fine' makes it
        no constraint ('skip'); anything else is a wanted time ('want')."""
        before = folded[:start]
        if (self._indifferent_after is not None and self._closed_before.search(before)
                and self._indifferent_after.search(folded[end:])):
            return "skip"
        if self._negated_before is not None and self._negated_before.search(before):
            return "not"
        return "want"

    # ------------------------------------------------------------------
    def parse(self, folded: str, original: str, free: list[bool], reference: datetime) -> TimeParse:
        result = TimeParse(hours=None)
        days: set[int] = set()
        dates: list[date] = []
        conditions: list[TimeCondition] = []
        today = reference.date()

        def take(start: int, end: int, kind: str) -> bool:
            if not all(free[start:end]):
                return False
            for i in range(start, end):
                free[i] = False
            result.spans.append((start, end, kind))
            return True

        dayparts: list[tuple[int, int, str, int, int]] = []
        negated_parts: list[tuple[str, int, int]] = []
        excluded: set[int] = set()
        for regex, part in self._dayparts:
            for m in regex.finditer(folded):
                if all(free[m.start():m.end()]):
                    polarity = self._polarity(folded, m.start(), m.end())
                    if polarity == "want":
                        dayparts.append((m.start(), m.end(), part.id, part.start, part.end))
                    elif polarity == "not":
                        negated_parts.append((part.id, part.start, part.end))
                    take(m.start(), m.end(), f"daypart:{part.id}" if polarity == "want" else
                         f"daypart_{polarity}:{part.id}")
        for regex, offset in self._relative:
            for m in regex.finditer(folded):
                # "tonight", "this morning" contain a daypart; "manana" inside "por la manana" does not count
                inner = [(s, e) for s, e, *_ in dayparts if m.start() <= s and e <= m.end()]
                busy = [i for i in range(m.start(), m.end()) if not free[i]]
                if busy and not all(any(s <= i < e for s, e in inner) for i in busy):
                    continue
                for i in range(m.start(), m.end()):
                    free[i] = False
                result.spans.append((m.start(), m.end(), f"relative:{offset}"))
                dates.append(today + timedelta(days=offset))
        asks_open = any(w in self.vocab.open_words for w in re.findall(r"[a-z]+", folded))
        for m in self._now.finditer(folded):
            if asks_open and take(m.start(), m.end(), "now"):
                dates.append(today)
                if reference.hour or reference.minute:
                    minute = reference.hour * 60 + reference.minute
                    conditions.append(TimeCondition("at", minute, label=f"{minute // 60}:{minute % 60:02d}"))
        for m in self._weekend.finditer(folded):
            polarity = self._polarity(folded, m.start(), m.end())
            if take(m.start(), m.end(), "weekend" if polarity == "want" else f"weekend_{polarity}"):
                prefix = self._prefix.search(folded[:m.start()])
                if polarity != "want":
                    excluded.update({5, 6} if polarity == "not" else ())
                elif prefix:
                    dates.extend(_next_weekday(today, d) for d in (5, 6))
                else:
                    days.update({5, 6})
        for m in self._workweek.finditer(folded):
            polarity = self._polarity(folded, m.start(), m.end())
            if take(m.start(), m.end(), "weekdays" if polarity == "want" else f"weekdays_{polarity}"):
                if polarity == "want":
                    days.update(range(5))
                elif polarity == "not":
                    excluded.update(range(5))
        self._weekdays(folded, original, take, days, dates, today, excluded)
        for regex in (self._date_md, self._date_dm):
            for m in regex.finditer(folded):
                when = _calendar_date(self.vocab.month_words.get(m.group("month")), int(m.group("day")), today)
                if when is not None and take(m.start(), m.end(), "date"):
                    dates.append(when)
        meridiem_spans: set[tuple[int, int]] = set()
        self._clocks(folded, free, take, dayparts, conditions, meridiem_spans)
        for start, end, part_id, window_start, window_end in dayparts:
            if (start, end) not in meridiem_spans:
                conditions.append(TimeCondition("window", window_start, window_end, label=part_id))
        for part_id, window_start, window_end in negated_parts:
            # 'not in the morning': open after the morning ends; 'not in the evening': open before it starts;
            # a window in mid-day leaves two sides, which one condition cannot say: no time condition
            first = min(part.start for part in self.vocab.dayparts)
            middle = (first + max(part.end for part in self.vocab.dayparts)) / 2
            if window_start <= first:
                conditions.append(TimeCondition("after", window_end, label=f"not {part_id}"))
            elif window_start >= middle:  # a late window: open before it starts
                conditions.append(TimeCondition("before", window_start, label=f"not {part_id}"))
            else:
                result.notes.append(f"negated_daypart_unsupported:{part_id}")
        if excluded:
            # 'any day except Monday', 'not on weekends': open on one of the other days
            days = (days or set(range(7))) - excluded
            if not days:
                result.notes.append("every_day_excluded")
        closed = frozenset(excluded) if self.vocab.negated_day_closed and days else frozenset()
        if days or dates or conditions:
            result.hours = HoursConstraint(days=frozenset(days), dates=tuple(dict.fromkeys(dates)),
                                           conditions=tuple(dict.fromkeys(conditions)), closed_days=closed)
        return result

    def _weekdays(self, folded: str, original: str, take: Callable[[int, int, str], bool], days: set[int],
                  dates: list[date], today: date, excluded: set[int]) -> None:
        found: list[tuple[int, int, int]] = [(m.start(), m.end(), self.vocab.day_words[m.group(0)])
                                             for m in self._day.finditer(folded)]
        for m in self._abbr.finditer(original):
            word = folded[m.start():m.end()]
            found.append((m.start(), m.end(), self.vocab.day_abbreviations[word]))
        seen = {start for start, _, _ in found}
        for m in self._cued_abbr.finditer(folded):
            if m.start("abbr") not in seen:
                found.append((m.start("abbr"), m.end("abbr"), self.vocab.day_abbreviations[m.group("abbr")]))
        found.sort()
        previous: tuple[int, int] | None = None  # (end offset, day) of the last weekday, for ranges
        polarity = "want"
        for start, end, day in found:
            between = folded[previous[0]:start] if previous else ""
            joined = previous is not None and bool(re.fullmatch(
                rf"\s*(?:{_alt(self.vocab.day_range_connectors + self.vocab.list_connectors)}|\s)*\s*", between))
            # a day joined to a negated one shares it ('not on Mondays or Tuesdays')
            polarity = polarity if joined and polarity != "want" else self._polarity(folded, start, end)
            if not take(start, end, f"weekday:{day}" if polarity == "want" else f"weekday_{polarity}:{day}"):
                continue
            target = days if polarity == "want" else excluded if polarity == "not" else set()
            if previous and re.fullmatch(rf"\s*(?:{_alt(self.vocab.day_range_connectors)})\s*", between):
                target.update(_day_range(previous[1], day))
            elif polarity == "want" and self._prefix.search(folded[:start]):
                dates.append(_next_weekday(today, day))
            else:
                target.add(day)
            previous = (end, day)

    def _clocks(self, folded: str, free: list[bool], take: Callable[[int, int, str], bool],
                dayparts: list[tuple[int, int, str, int, int]], conditions: list[TimeCondition],
                meridiem_spans: set[tuple[int, int]]) -> None:
        matches = [m for m in self._clock.finditer(folded) if all(free[m.start():m.end()])]
        used: set[int] = set()
        for index, m in enumerate(matches):
            if index in used:
                continue
            minute, explicit = self._minute(m, dayparts, meridiem_spans)
            if minute is None:
                continue
            before = folded[:m.start()]
            # "between 2 and 4pm" / "from 2 to 4": a window
            if index + 1 < len(matches) and self._range_joiners.match(folded[m.end():matches[index + 1].start()]):
                nxt = matches[index + 1]
                end_minute, end_explicit = self._minute(nxt, dayparts, meridiem_spans)
                ranged = end_minute is not None and (self._between.search(before) or explicit or end_explicit)
                if ranged and end_minute is not None and end_minute > minute and take(m.start(), nxt.end(),
                                                                                      "clock:range"):
                    conditions.append(TimeCondition("window", minute, end_minute,
                                                    label=f"{_fmt(minute)}-{_fmt(end_minute)}"))
                    used.add(index + 1)
                    continue
            relation = None
            relation_start = m.start()
            for regex, rel in self._relations:
                found = regex.search(before)
                if found:
                    relation, relation_start = rel, found.start()
                    break
            if relation is None and not explicit:
                continue  # a bare number ('2 kids') is not a time
            if take(relation_start if relation else m.start(), m.end(), f"clock:{relation or 'at'}"):
                conditions.append(TimeCondition(relation or "at", minute, label=_fmt(minute)))

    def _minute(self, m: re.Match[str], dayparts: list[tuple[int, int, str, int, int]],
                meridiem_spans: set[tuple[int, int]]) -> tuple[int | None, bool]:
        if m.group("noon"):
            return 12 * 60, True
        if m.group("midnight"):
            return 24 * 60 - 1, True
        hour, minute = int(m.group("h")), int(m.group("m") or 0)
        if hour > 24 or minute > 59:
            return None, False
        if m.group("am") or m.group("pm"):
            if hour > 12:
                return None, False
            base = 0 if hour == 12 else hour
            return (base + (12 if m.group("pm") else 0)) * 60 + minute, True
        # a daypart right after a bare hour is its meridiem: "a las 6 de la tarde", "at 7 in the evening"
        for start, end, _, window_start, _ in dayparts:
            if 0 <= start - m.end() <= 4:
                meridiem_spans.add((start, end))
                base = hour % 12 + (12 if window_start >= 12 * 60 else 0)
                return base * 60 + minute, True
        if hour > 12:
            return hour * 60 + minute, m.group("m") is not None
        explicit = m.group("m") is not None
        if 1 <= hour <= 6:
            hour += 12  # opening hours without am/pm: 1-6 are afternoon
        return hour * 60 + minute, explicit


def _fmt(minute: int) -> str:
    hour, rest = divmod(minute, 60)
    suffix = "am" if hour < 12 else "pm"
    shown = hour % 12 or 12
    return f"{shown}:{rest:02d}{suffix}" if rest else f"{shown}{suffix}"


def _day_range(first: int, last: int) -> list[int]:
    out = [first]
    day = first
    while day != last:
        day = (day + 1) % 7
        out.append(day)
    return out


def _next_weekday(today: date, day: int) -> date:
    return today + timedelta(days=(day - today.weekday()) % 7)


def _calendar_date(month: int | None, day: int, today: date) -> date | None:
    if month is None:
        return None
    for year in (today.year, today.year + 1):
        try:
            when = date(year, month, day)
        except ValueError:
            return None
        if when >= today - timedelta(days=1):
            return when
    return None
