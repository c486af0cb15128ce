"""Free-text opening hours -> weekly ``Slot`` intervals.

The parser tokenises the text (weekdays, ordinals, clock times, connectors, 'closed' clauses) and runs a small
state machine: weekdays accumulate into a group, the clock ranges that follow attach to that group, a weekday
after a time starts a new group. Ordinals ("2nd & 4th") restrict the weeks of the month; "of each month" after a
bare weekday, "twice a month", "every other" make the opening irregular (no specific date can be derived). A
'closed ...' clause subtracts from what was parsed. Calendar dates ("Next mobile pantry: March 26, 2025") are
one-off events and removed first. Anything not understood stays unknown: a text without a weekday yields no slot.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import pairwise

from engine.directory.directory_rules import TimeVocabulary
from engine.directory.models import ALL_WEEKS, Schedule, Slot
from engine.directory.normalize import clean, fold_same_length

DAY_MINUTES = 24 * 60


def _alternation(words: Iterable[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


@dataclass(frozen=True)
class _Clock:
    hour: int
    minute: int
    meridiem: str | None  # "am" | "pm" | None
    seconds: bool
    strong: bool  # has minutes, a meridiem or is a noon/midnight word: safe to read alone


@dataclass
class _Tok:
    kind: str
    start: int
    end: int
    text: str = ""
    days: tuple[int, ...] = ()
    week: int = 0
    clock: _Clock | None = None
    span: tuple[int, int | None] | None = None


@dataclass
class _Group:
    entries: list[tuple[int, frozenset[int] | None, bool]] = field(default_factory=list)
    times: list[tuple[int, int | None]] = field(default_factory=list)
    chain_start: int = 0


def _to_minutes(hour: int, minute: int, meridiem: str | None) -> int:
    if meridiem == "am":
        hour = 0 if hour == 12 else hour
    elif meridiem == "pm":
        hour = hour if hour == 12 else hour + 12
    return hour * 60 + minute


def _other(meridiem: str) -> str:
    return "am" if meridiem == "pm" else "pm"


def _bare_start(hour: int, minute: int) -> int:
    # Pantry hours without am/pm: 1-6 are afternoon, 7-11 morning, 12 noon.
    if 1 <= hour <= 6:
        return (hour + 12) * 60 + minute
    return hour * 60 + minute


def infer_range(first: _Clock, second: _Clock) -> tuple[int, int] | None:
    """Minutes of a clock range, reading missing am/pm from the other end; None if it cannot be an interval."""
    if first.hour > 24 or second.hour > 24 or first.minute > 59 or second.minute > 59:
        return None
    twenty_four = (first.hour > 12 or second.hour > 12 or first.seconds or second.seconds) and not (
        first.meridiem and second.meridiem)
    if twenty_four:
        start = _to_minutes(first.hour, first.minute, first.meridiem if first.hour <= 12 else None)
        end = _to_minutes(second.hour, second.minute, second.meridiem if second.hour <= 12 else None)
    elif first.meridiem and second.meridiem:
        start = _to_minutes(first.hour, first.minute, first.meridiem)
        end = _to_minutes(second.hour, second.minute, second.meridiem)
    elif second.meridiem:
        end = _to_minutes(second.hour, second.minute, second.meridiem)
        end = DAY_MINUTES if end == 0 else end
        same = _to_minutes(first.hour, first.minute, second.meridiem)
        start = same if same < end else _to_minutes(first.hour, first.minute, _other(second.meridiem))
    elif first.meridiem:
        start = _to_minutes(first.hour, first.minute, first.meridiem)
        options = [_to_minutes(second.hour, second.minute, m) for m in ("am", "pm")]
        later = [o if o else DAY_MINUTES for o in options if (o if o else DAY_MINUTES) > start]
        if not later:
            return None
        end = min(later)
    else:
        start = _bare_start(first.hour, first.minute)
        options = [second.hour * 60 + second.minute, (second.hour + 12) * 60 + second.minute]
        later = [o for o in options if start < o <= DAY_MINUTES]
        if not later:
            return None
        end = min(later)
    if end == 0:
        end = DAY_MINUTES
    if not 0 <= start < end <= DAY_MINUTES:
        return None
    return start, end


def _single(clock: _Clock) -> int | None:
    if clock.hour > 24 or clock.minute > 59:
        return None
    if clock.meridiem:
        return _to_minutes(clock.hour, clock.minute, clock.meridiem)
    if clock.seconds or clock.hour > 12:
        return clock.hour * 60 + clock.minute
    return _bare_start(clock.hour, clock.minute)


def _subtract(start: int, end: int, cut_start: int, cut_end: int) -> list[tuple[int, int]]:
    if cut_end <= start or cut_start >= end:
        return [(start, end)]
    pieces = []
    if start < cut_start:
        pieces.append((start, cut_start))
    if cut_end < end:
        pieces.append((cut_end, end))
    return pieces


class HoursParser:
    """Compiled once per vocabulary; ``parse`` is pure and deterministic."""

    def __init__(self, vocab: TimeVocabulary) -> None:
        self.vocab = vocab
        day_words = {**vocab.day_words, **vocab.day_abbreviations}
        self._day_lookup = day_words
        months = [w for w in vocab.month_words if w != "may"]
        month_alt = _alternation([*months, "may"])
        day_alt = _alternation(day_words)
        self._date = re.compile(
            rf"(?:(?<![a-z])(?:{day_alt})(?![a-z]),?\s*)?(?<![a-z])(?:{month_alt})(?![a-z])\.?\s*(\d{{1,2}})"
            rf"(?:st|nd|rd|th)?(?!\d)(?:\s*,?\s*\d{{4}})?|\b\d{{1,2}}/\d{{1,2}}/\d{{2,4}}\b", re.IGNORECASE)
        self._month_word = re.compile(rf"(?<![A-Za-z])(?:{_alternation(w.capitalize() for w in months)})(?![a-z])")
        self._month_may = re.compile(r"(?<![A-Za-z])May(?![a-z])")
        self._url = re.compile(r"https?://\S+|www\.\S+|/category/\S+|tel:\S+", re.IGNORECASE)
        self._phone = re.compile(r"\(?\b\d{3}\)?[-.\s]{0,2}\d{3}[-.\s]\d{4}\b(?:\s*x\s*\d+)?")
        codes = sorted(vocab.compact_day_codes, key=len, reverse=True)
        code_alt = "|".join(re.escape(c) for c in codes)
        self._compact = re.compile(rf"(?<![A-Za-z])(?:(?:{code_alt})-(?:{code_alt})|(?:{code_alt}){{2,7}})(?![A-Za-z])")
        self._code_split = re.compile(code_alt)
        # One day code alone ("Tu & Th: 1p", "M - F:", "2nd Sa 2p", "Th of each month") only where a schedule
        # continues (a colon, clock, list or range sign, bracket or 'of' follows); case-exact, so 'th' never is.
        self._single_code = re.compile(
            rf"(?<![A-Za-z0-9'])(?:{code_alt})(?![A-Za-z])(?=\.?\s*(?::|\d|[-&,/(]|and\b|of\b))")
        ordinal_alt = _alternation(vocab.ordinal_words)
        am = [w for w in vocab.am_words if len(w) > 1]
        pm = [w for w in vocab.pm_words if len(w) > 1]
        single_am = [w for w in vocab.am_words if len(w) == 1]
        single_pm = [w for w in vocab.pm_words if len(w) == 1]
        mer = (rf"(?:\s*(?P<am>{_alternation(am)})(?![a-z])|\s*(?P<pm>{_alternation(pm)})(?![a-z])"
               rf"|(?P<am1>{_alternation(single_am)})(?![a-z])|(?P<pm1>{_alternation(single_pm)})(?![a-z]))")
        connectors = set(vocab.day_range_connectors) | set(vocab.list_connectors) | set(vocab.time_range_connectors)
        word_connectors = [c for c in connectors if c.isalpha()]
        symbol_connectors = [c for c in connectors if not c.isalpha()]
        self._scanner = re.compile(
            rf"(?P<ord>(?<![a-z0-9])(?:\d(?:st|nd|rd|th)|{ordinal_alt})(?![a-z]))"
            rf"|(?P<day>(?<![a-z])(?:{day_alt})(?![a-z]))"
            rf"|(?P<noon>(?<![a-z])(?:{_alternation(vocab.noon_words)})(?![a-z]))"
            rf"|(?P<midnight>(?<![a-z])(?:{_alternation(vocab.midnight_words)})(?![a-z]))"
            rf"|(?P<clock>(?<!\d)(?<!\d:)(?P<h>\d{{1,2}})(?::(?P<m>\d{{2}}))?(?::(?P<s>\d{{2}}))?(?![\d:]){mer}?)"
            rf"|(?P<closed>(?<![a-z])(?:{_alternation(vocab.closed_words)})(?![a-z]))"
            rf"|(?P<between>(?<![a-z])(?:{_alternation(vocab.between_words)})(?![a-z]))"
            rf"|(?P<rel>(?<![a-z])(?:{_alternation(vocab.relative_to_day_words)})(?![a-z]))"
            rf"|(?P<conn>(?<![a-z])(?:{_alternation(word_connectors)})(?![a-z])|{_alternation(symbol_connectors)})"
            r"|(?P<boundary>[.;])|(?P<soft>[()\n])|(?P<num>\d+)|(?P<word>[a-z]+)"
        )

    # ---------------------------------------------------------------- preprocessing
    def _prepare(self, text: str) -> tuple[str, bool]:
        text = _opening_table_text(text)
        cleaned = clean(text.replace("\\n", "\n").replace("\r", "\n"))
        cleaned = self._url.sub(" ", cleaned)
        cleaned = self._phone.sub(" ", cleaned)
        cleaned = self._date.sub(lambda m: " " * len(m.group(0)), cleaned)  # one-off dates are not a weekly pattern
        months = set(self._month_word.findall(cleaned))
        seasonal = bool(months) or bool(re.search(r"\b\d{1,2}/\d{1,2}/\d{2,4}\b", clean(text)))
        if not seasonal and self._month_may.search(cleaned) and months:
            seasonal = True
        return cleaned, seasonal

    # ---------------------------------------------------------------- tokens
    def _tokens(self, original: str) -> list[_Tok]:
        folded = fold_same_length(original)
        tokens: list[_Tok] = []
        taken: list[tuple[int, int]] = []
        for match in self._compact.finditer(original):
            codes = self._code_split.findall(match.group(0).replace("-", " - "))
            days = [self.vocab.compact_day_codes[c] for c in codes]
            if "-" in match.group(0) and len(days) == 2:
                days = _day_range(days[0], days[1])
            elif any(b <= a for a, b in pairwise(days)):
                continue  # "SS", "SW": not a run of weekday initials
            tokens.append(_Tok("day", match.start(), match.end(), match.group(0), days=tuple(days)))
            taken.append((match.start(), match.end()))
        for match in self._single_code.finditer(original):
            if any(a <= match.start() < b for a, b in taken):
                continue
            day = self.vocab.compact_day_codes[match.group(0)]
            tokens.append(_Tok("day", match.start(), match.end(), match.group(0), days=(day,)))
            taken.append((match.start(), match.end()))
        for pattern, kind in ((self.vocab.irregular_patterns, "irregular"), (self.vocab.monthly_patterns, "monthly")):
            for regex in pattern:
                for match in regex.finditer(folded):
                    tokens.append(_Tok(kind, match.start(), match.start()))
        for regex in self.vocab.all_week_patterns:
            for match in regex.finditer(folded):
                tokens.append(_Tok("day", match.start(), match.end(), match.group(0), days=tuple(range(7))))
                taken.append((match.start(), match.end()))
                if any(p.search(match.group(0)) for p in self.vocab.all_day_patterns):
                    tokens.append(_Tok("times", match.end(), match.end(), span=(0, DAY_MINUTES)))
        for match in self._scanner.finditer(folded):
            if any(a <= match.start() < b for a, b in taken):
                continue
            kind = match.lastgroup or "word"
            if kind in {"am", "pm", "am1", "pm1", "h", "m", "s"}:
                kind = "clock"
            tok = _Tok(kind, match.start(), match.end(), match.group(0))
            if kind == "ord":
                word = match.group(0)
                tok.week = self.vocab.ordinal_words.get(word, int(word[0]) if word[0].isdigit() else 0)
                if tok.week == 0 or tok.week > 5:
                    tok.kind = "word"
            elif kind == "day":
                tok.days = (self._day_lookup[match.group(0)],)
            elif kind in ("noon", "midnight"):
                tok.kind = "clock"
                tok.clock = _Clock(12 if kind == "noon" else 0, 0, "pm" if kind == "noon" else "am", False, True)
            elif kind == "clock":
                meridiem = "am" if (match.group("am") or match.group("am1")) else (
                    "pm" if (match.group("pm") or match.group("pm1")) else None)
                has_minutes = match.group("m") is not None
                tok.clock = _Clock(int(match.group("h")), int(match.group("m") or 0), meridiem,
                                   match.group("s") is not None, has_minutes or meridiem is not None)
            tokens.append(tok)
        tokens.sort(key=lambda t: (t.start, 0 if t.kind in ("irregular", "monthly") else 1))
        return self._merge_times(tokens, folded)

    def _merge_times(self, tokens: list[_Tok], folded: str) -> list[_Tok]:
        range_words = set(self.vocab.time_range_connectors)
        out: list[_Tok] = []
        i = 0
        while i < len(tokens):
            tok = tokens[i]
            if tok.kind != "clock" or tok.clock is None:
                out.append(tok)
                i += 1
                continue
            between = bool(out) and out[-1].kind == "between"
            j = i + 1
            second: _Tok | None = None
            if j < len(tokens) and tokens[j].kind == "clock":
                gap = folded[tok.end:tokens[j].start].strip()
                next_clock = tokens[j].clock
                both_strong = tok.clock.strong and next_clock is not None and next_clock.strong
                if gap == "" and both_strong:
                    second = tokens[j]
            elif (j + 1 < len(tokens) and tokens[j].kind == "conn" and tokens[j + 1].kind == "clock"
                  and (tokens[j].text in range_words or (between and tokens[j].text in ("and", "y")))):
                second = tokens[j + 1]
                j += 1
            if second is not None and second.clock is not None:
                span = infer_range(tok.clock, second.clock)
                out.append(_Tok("times", tok.start, second.end, span=span) if span
                           else _Tok("badtime", tok.start, second.end))
                i = j + 1
                continue
            if tok.clock.strong:
                minute = _single(tok.clock)
                out.append(_Tok("times", tok.start, tok.end, span=(minute, None)) if minute is not None
                           else _Tok("badtime", tok.start, tok.end))
            else:
                out.append(_Tok("num", tok.start, tok.end, tok.text))
            i += 1
        return out

    # ---------------------------------------------------------------- grammar
    def parse(self, text: str | None) -> Schedule:
        if not text or not text.strip():
            return Schedule()
        prepared, seasonal = self._prepare(text)
        machine = _Machine(self.vocab)
        for tok in _without_stale_label(self._tokens(prepared), prepared):
            machine.feed(tok)
        slots = machine.finish()
        return Schedule(slots=slots, seasonal=seasonal and bool(slots))


def _without_stale_label(tokens: list[_Tok], text: str) -> list[_Tok]:
    """A leading weekday label ('Monday: ...', a scraped table's first row label) whose text starts with weekdays
    of its own, before any time ('Monday: 3rd Thursday of the month, 9am-11am'), labels nothing: it is dropped.
    'Monday: 9am-12pm; Thursday: 1-5pm' and 'Saturday: by appointment' keep their day."""
    if not tokens or tokens[0].kind != "day" or not text[tokens[0].end:].lstrip().startswith(":"):
        return tokens
    first = next((t for t in tokens[1:] if t.kind in ("day", "ord", "times")), None)
    return tokens[1:] if first is not None and first.kind in ("day", "ord") else tokens


_ROW = re.compile(r"<tr[^>]*>\s*<t[dh][^>]*>(.*?)</t[dh]>\s*<t[dh][^>]*>(.*?)</t[dh]>\s*</tr>", re.I | re.S)
_TAG = re.compile(r"<[^>]+>")
_CLOSED = re.compile(r"^\s*closed\s*$", re.I)


def _opening_table_text(text: str) -> str:
    """An HTML opening-hours table ('<tr><td>Monday</td><td>Closed</td></tr>...') as 'Monday 9:00 AM - 12:00 PM;'
    lines, closed rows dropped (a row of day names each followed by 'Closed' would otherwise join the days)."""
    if "<t" not in text.lower():
        return text
    rows = [(_TAG.sub(" ", day).strip(), _TAG.sub(" ", hours).strip()) for day, hours in _ROW.findall(text)]
    if not rows:
        return _TAG.sub(" ", text)
    return "; ".join(f"{day} {hours}" for day, hours in rows if hours and not _CLOSED.match(hours))


def _day_range(first: int, last: int) -> list[int]:
    days = [first]
    day = first
    while day != last:
        day = (day + 1) % 7
        days.append(day)
    return days


class _Machine:
    """Groups weekdays with the clock ranges that follow them; applies 'closed' clauses."""

    def __init__(self, vocab: TimeVocabulary) -> None:
        self.vocab = vocab
        self.slots: list[Slot] = []
        self.cur = _Group()
        self.neg: _Group | None = None
        self.ords: set[int] = set()
        self.ords_used = False
        self.irregular = False
        self.pending_times: list[tuple[int, int | None]] = []
        self.last = ""
        self.range_open = False
        self.last_day: int | None = None
        self.rel_entry: int | None = None
        self.skip_day = False

    def feed(self, tok: _Tok) -> None:
        handler = getattr(self, f"_on_{tok.kind}", None)
        if handler is not None:
            handler(tok)

    # tokens --------------------------------------------------------------
    def _on_day(self, tok: _Tok) -> None:
        if self.skip_day:  # "Friday before the 4th Saturday": the Saturday is a reference, not an opening
            self.skip_day = False
            self.ords.clear()
            self.last = "word"
            return
        if self.rel_entry is not None:
            self.rel_entry = None
        target = self.neg if self.neg is not None else self.cur
        if target is self.cur and (self.cur.times or (self.cur.entries and self.last == "word")):
            # A new weekday after times, or after other words ("EVERY SUN APPT / EVERY MON 9-5"), starts a
            # new group: the earlier weekdays keep their own (possibly unknown) hours.
            self._finalize()
            target = self.cur
        weeks = frozenset(self.ords) if self.ords else None
        days = list(tok.days)
        if self.range_open and self.last_day is not None and len(days) == 1:
            days = _day_range(self.last_day, days[0])[1:]
        for day in days:
            target.entries.append((day, weeks, self.irregular))
        self.ords_used = bool(self.ords)
        self.last_day = days[-1] if days else self.last_day
        self.range_open = False
        self.last = "day"

    def _on_ord(self, tok: _Tok) -> None:
        if self.rel_entry is not None:
            self.skip_day = True
            self._mark_irregular([self.rel_entry])
            self.rel_entry = None
        if self.ords_used:
            self.ords = set()
            self.ords_used = False
        self.ords.add(tok.week)
        target = self.neg if self.neg is not None else self.cur
        target.chain_start = len(target.entries)
        self.range_open = False
        self.last = "ord"

    def _on_conn(self, tok: _Tok) -> None:
        if self.last == "day" and tok.text in self.vocab.day_range_connectors:
            self.range_open = True
        # list connectors keep the current chain going
        if self.last != "day":
            self.range_open = False

    def _on_times(self, tok: _Tok) -> None:
        assert tok.span is not None
        if self.neg is not None:
            self.neg.times.append(tok.span)
        elif self.cur.entries:
            self.cur.times.append(tok.span)
        else:
            self.pending_times.append(tok.span)
        self.ords.clear()
        self.irregular = False
        self.range_open = False
        self.rel_entry = None
        self.skip_day = False
        self.last = "times"

    def _on_irregular(self, tok: _Tok) -> None:
        if self.last == "day":
            target = self.neg if self.neg is not None else self.cur
            self._mark_irregular(range(target.chain_start, len(target.entries)), target)
        else:
            self.irregular = True

    def _on_monthly(self, tok: _Tok) -> None:
        if self.last != "day":  # "Saturday of each month": only a weekday right before it is affected
            return
        target = self.neg if self.neg is not None else self.cur
        chain = [i for i in range(target.chain_start, len(target.entries)) if target.entries[i][1] is None]
        self._mark_irregular(chain, target)

    def _on_closed(self, tok: _Tok) -> None:
        self._end_negative()
        self._finalize()
        self.neg = _Group()
        self.last = "closed"

    def _on_rel(self, tok: _Tok) -> None:
        target = self.neg if self.neg is not None else self.cur
        if self.last == "day" and target.entries:
            self.rel_entry = len(target.entries) - 1
        self.last = "rel"

    def _on_boundary(self, tok: _Tok) -> None:
        self._end_negative()
        self._finalize()
        self.pending_times = []
        self._reset_pending()

    def _on_soft(self, tok: _Tok) -> None:
        if self.neg is not None:
            self._end_negative()

    def _on_word(self, tok: _Tok) -> None:
        if tok.text in self.vocab.filler_words:
            return
        self.ords.clear()
        self.ords_used = False
        self.range_open = False
        if self.rel_entry is not None and not self.skip_day:
            self.rel_entry = None
        self.last = "word"

    def _on_num(self, tok: _Tok) -> None:
        self._on_word(tok)

    def _on_badtime(self, tok: _Tok) -> None:
        # A stated but unreadable time ("9:00AM 4:30AM"): keep the weekday, time unknown; never lend it
        # the next line's hours.
        if self.neg is None and self.cur.entries and not self.cur.times:
            self._finalize()
        self._on_word(tok)

    # helpers -------------------------------------------------------------
    def _reset_pending(self) -> None:
        self.ords.clear()
        self.ords_used = False
        self.irregular = False
        self.range_open = False
        self.rel_entry = None
        self.skip_day = False
        self.last = ""

    def _mark_irregular(self, indexes: list[int] | range, group: _Group | None = None) -> None:
        target = group or (self.neg if self.neg is not None else self.cur)
        for i in indexes:
            if 0 <= i < len(target.entries):
                day, weeks, _ = target.entries[i]
                target.entries[i] = (day, weeks, True)

    def _finalize(self) -> None:
        group = self.cur
        if group.entries:
            times = group.times or self.pending_times
            for day, weeks, irregular in group.entries:
                if not times:
                    self.slots.append(Slot(day, None, None, weeks, irregular))
                for start, end in times:
                    self.slots.append(Slot(day, start, end, weeks, irregular))
            if not group.times:
                self.pending_times = []
        self.cur = _Group()

    def _end_negative(self) -> None:
        neg = self.neg
        self.neg = None
        if neg is None:
            return
        days = {day for day, _, _ in neg.entries}
        ords = {w for _, weeks, _ in neg.entries if weeks for w in weeks}
        cuts = [(s, e) for s, e in neg.times if e is not None]
        updated: list[Slot] = []
        for slot in self.slots:
            applies = not days or slot.day in days
            if not applies:
                updated.append(slot)
            elif cuts and slot.start is not None and slot.end is not None:
                pieces = [(slot.start, slot.end)]
                for cut_start, cut_end in cuts:
                    pieces = [p for s, e in pieces for p in _subtract(s, e, cut_start, cut_end)]
                updated.extend(Slot(slot.day, s, e, slot.weeks, slot.irregular) for s, e in pieces)
            elif cuts or not days:
                updated.append(slot)
            elif ords and slot.weeks is None and not slot.irregular:
                if -1 in ords:
                    updated.append(Slot(slot.day, slot.start, slot.end, None, True))
                else:
                    updated.append(Slot(slot.day, slot.start, slot.end, ALL_WEEKS - frozenset(ords), False))
            elif ords:
                updated.append(slot)
            # a plain 'closed <day>' drops the day
        self.slots = updated

    def finish(self) -> tuple[Slot, ...]:
        self._end_negative()
        self._finalize()
        return _tidy(self.slots)


def _tidy(slots: list[Slot]) -> tuple[Slot, ...]:
    normal: set[Slot] = set()
    for slot in slots:
        weeks = None if slot.weeks is not None and slot.weeks >= ALL_WEEKS else slot.weeks
        normal.add(Slot(slot.day, slot.start, slot.end, weeks, slot.irregular))
    weekly = {(s.day, s.start, s.end) for s in normal if s.weeks is None and not s.irregular}
    timed_days = {s.day for s in normal if s.start is not None}
    kept = set()
    for slot in normal:
        if (slot.weeks is not None or slot.irregular) and (slot.day, slot.start, slot.end) in weekly:
            continue  # subsumed by the weekly opening
        if slot.start is None and slot.day in timed_days and slot.weeks is None and not slot.irregular:
            continue  # a bare weekday mention next to a timed opening on that day adds nothing
        kept.add(slot)
    return tuple(sorted(kept, key=lambda s: (s.day, s.start if s.start is not None else -1,
                                             s.end if s.end is not None else -1, sorted(s.weeks or []), s.irregular)))
