"""Read temporal expressions in one sentence of folded text: find atoms with the compiled language patterns,
group the atoms that belong to one expression, and turn each group into grammar values (spec/adr/0003 §3)
resolved against a local reference date.

Atoms are small typed pieces ("next Tuesday", "5pm", "por la tarde", "between", "and"); a group is a run of
atoms separated only by glue words ("on", "the", "de") and commas. Resolution rules (which Tuesday, which
year, a bare "at 5") take their numbers from rules/temporal/common.json.
"""

from __future__ import annotations

import bisect
import calendar
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from engine.kernel.validators.temporal import WEEKDAYS
from llm_adapters.offline.temporal_rules import LanguageGrammar, TemporalGrammar, key

_DIGIT_ONLY = ("iso_date", "numeric_date", "num")
_DAY_KINDS = frozenset({"date", "weekday", "dom", "relative_day"})
_AUXILIARY = ("day2", "not_date_after")  # sub-patterns, never matched on their own
# Pattern order breaks ties between equally long matches: more specific first.
_ORDER = ("month_part", "end_of", "date_dm", "date_md", "iso_date", "numeric_date", "relative_day_part", "quarter",
          "holiday", "upcoming", "within", "asap", "period", "season", "year", "day_set_single", "day_set_recurring",
          "clock_word", "clock", "weekday", "weekday_plural", "relative_day", "part_plural", "part", "day_lead",
          "ordinal", "month", "range_lead", "range_connector", "pair_connector", "list_connector",
          "alternative_connector", "before", "after", "recurring", "date_this_month", "hour_word", "num")
_MARKERS = {"range_lead", "range_connector", "pair_connector", "list_connector", "alternative_connector", "before",
            "after", "recurring"}
_CONNECTORS = {"range_connector", "pair_connector", "list_connector", "alternative_connector"}
_WORD = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True)
class Atom:
    start: int
    end: int
    kind: str
    lang: str
    data: dict[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Reading:
    """One temporal expression: folded span, grammar values (preferred first), and whether it is weak (a
    lone month name, a one-word part of day: counted only as the answer to the question just asked)."""

    start: int
    end: int
    values: tuple[str, ...]
    language: str
    weak: bool = False
    core: int = -1  # where the expression proper starts, after 'before', 'every', 'between' (-1: at start)
    role: str | None = None  # 'start' after a lone 'from', 'end' after a lone 'until': one end of a range


# --- calendar helpers -------------------------------------------------------------------------------------


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def _next_day_of_month(today: date, day: int) -> date | None:
    year, month = today.year, today.month
    for _ in range(13):
        found = _safe_date(year, month, day)
        if found is not None and found >= today:
            return found
        month, year = (1, year + 1) if month == 12 else (month + 1, year)
    return None


def _next_weekday_of_month(today: date, day: int, weekday: str) -> date | None:
    """'le lundi 3', 'el sábado 5': no month is written, so the day is the next one of that number that falls on
    that weekday (within a year); when none does, the next day of that number, and the weekday check flags it."""
    year, month = today.year, today.month
    for _ in range(13):
        found = _safe_date(year, month, day)
        if found is not None and found >= today and WEEKDAYS[found.weekday()] == weekday:
            return found
        month, year = (1, year + 1) if month == 12 else (month + 1, year)
    return _next_day_of_month(today, day)


def _next_month_day(today: date, month: int, day: int, year: int | None) -> date | None:
    if year is not None:
        return _safe_date(year, month, day)
    found = _safe_date(today.year, month, day)
    if found is not None and found >= today:
        return found
    return _safe_date(today.year + 1, month, day)


def _month_year(today: date, month: int, year: int | None) -> int:
    if year is not None:
        return year
    return today.year if month >= today.month else today.year + 1


def _weekday(today: date, day: str, mod: str | None) -> date:
    index = WEEKDAYS.index(day)
    ahead = (index - today.weekday()) % 7
    if mod != "this" and ahead == 0:
        ahead = 7  # a bare or 'next' weekday is never today
    return today + timedelta(days=ahead)


def _quarter(today: date, offset: int) -> tuple[date, date]:
    index = (today.month - 1) // 3 + offset
    year = today.year + index // 4
    first_month = (index % 4) * 3 + 1
    return date(year, first_month, 1), _month_end(year, first_month + 2)


def _period(today: date, unit: str, mod: str | None) -> tuple[date, date]:
    nxt = mod == "next"
    if unit == "week":
        monday = today - timedelta(days=today.weekday())
        if nxt:
            return monday + timedelta(days=7), monday + timedelta(days=13)
        return today, monday + timedelta(days=6)
    if unit == "weekend":
        saturday = today + timedelta(days=(5 - today.weekday()) % 7)
        if today.weekday() == 6:
            saturday = today if not nxt else today + timedelta(days=6)
        start = today if today.weekday() == 6 and not nxt else saturday
        return start, saturday + timedelta(days=1) if start == saturday else start
    if unit == "month":
        if nxt:
            year, month = (today.year + 1, 1) if today.month == 12 else (today.year, today.month + 1)
            return date(year, month, 1), _month_end(year, month)
        return today, _month_end(today.year, today.month)
    if unit == "quarter":
        start, end = _quarter(today, 1 if nxt else 0)
        return (start, end) if nxt else (today, end)
    if nxt:  # year
        return date(today.year + 1, 1, 1), date(today.year + 1, 12, 31)
    return today, date(today.year, 12, 31)


def _season(today: date, bounds: tuple[str, str], nxt: bool) -> tuple[date, date]:
    (sm, sd), (em, ed) = (tuple(int(x) for x in b.split("-")) for b in bounds)
    for year in (today.year - 1, today.year, today.year + 1):
        start = date(year, sm, sd)
        end = date(year + (1 if (em, ed) < (sm, sd) else 0), em, ed)
        if end < today:
            continue
        if start <= today and nxt:
            continue
        return max(start, today), end
    start = date(today.year + 1, sm, sd)  # pragma: no cover - the loop always finds one
    return start, date(start.year + (1 if (em, ed) < (sm, sd) else 0), em, ed)


def _iso(day: date) -> str:
    return day.isoformat()


def _span_value(start: date, end: date) -> str:
    return _iso(start) if start == end else f"{_iso(start)}/{_iso(end)}"


# --- atoms ------------------------------------------------------------------------------------------------


class _Reader:
    def __init__(self, grammar: TemporalGrammar, languages: Sequence[str], today: date, region: str | None) -> None:
        self.grammar = grammar
        self.settings = grammar.settings
        self.langs = [grammar.languages[lang] for lang in languages if lang in grammar.languages]
        self.today = today
        self.order = self.langs[0].order_for(region) if self.langs else "dmy"
        self._glue = [re.compile(rf"(?:[\s,]+|(?<![\w]){g.lex['glue'].regex}(?![\w]))*", re.IGNORECASE)
                      for g in self.langs if g.lex["glue"].regex]

    # Atom builders return None when the match is not temporal after all (Feb 30, 'at 5 bedrooms').

    def atoms(self, text: str, offset: int) -> list[Atom]:
        found: list[tuple[int, int, int, Atom]] = []
        for rank_lang, lang in enumerate(self.langs):
            if lang.prefilter.search(text) is None:
                continue
            for rank, name in enumerate(_ORDER):  # pattern order breaks ties
                if name in _DIGIT_ONLY and rank_lang > 0:
                    continue
                for match in lang.patterns[name].finditer(text):
                    if match.end() == match.start():
                        continue
                    atom = self._atom(name, match, lang, text, offset)
                    if atom is not None:
                        found.append((atom.start, -(atom.end - atom.start), rank_lang * 100 + rank, atom))
        taken: list[Atom] = []
        # Occupied spans never overlap, so sorted starts with their ends answer "overlaps?" by bisection:
        # linear-logarithmic in the number of atoms ("1 1 1 ..." has thousands).
        starts: list[int] = []
        ends: list[int] = []
        for start, neg_len, _, atom in sorted(found, key=lambda t: (t[1], t[0], t[2])):  # longest, then leftmost
            end = start - neg_len
            i = bisect.bisect_right(starts, start)
            if (i > 0 and ends[i - 1] > start) or (i < len(starts) and starts[i] < end):
                continue
            starts.insert(i, start)
            ends.insert(i, end)
            taken.append(atom)
        return sorted(taken, key=lambda a: a.start)

    def _follows_ok(self, text: str, end: int, lang: LanguageGrammar) -> bool:
        """What follows a bare number read as a time or a day: nothing, punctuation or a known temporal word."""
        word = _WORD.match(text[end:].lstrip())
        return word is None or word.group(0) in lang.known_words

    def _atom(self, name: str, m: re.Match[str], lang: LanguageGrammar, text: str, offset: int) -> Atom | None:
        g = m.groupdict()
        start, end = m.start() + offset, m.end() + offset
        today = self.today
        lex = lang.lex

        def atom(kind: str, **data: Any) -> Atom:
            return Atom(start, end, kind, lang.language, data)

        def day_of(group: str, word_group: str) -> int | None:
            if g.get(group):
                return int(g[group])
            if g.get(word_group):
                value = lex["ordinals"].value(g[word_group])
                return int(value) if value else None
            return None

        if name in ("date_dm", "date_md"):
            day = day_of("day", "dayword")
            month = lex["months"].value(g["month"] or "")
            if day is None or month is None:
                return None
            if name == "date_md" and lang.patterns["time_lead_inside"].search(
                    text, m.start("month") + len(g["month"]), m.start("day") if g.get("day") else m.end()):
                return None  # 'mayo a las 12' is May and a time, not 12 May
            if name == "date_md" and lang.patterns["range_connector"].search(
                    text, m.start("month") + len(g["month"]), m.start("day") if g.get("day") else m.end()):
                return None  # 'du 2 juillet au 5 juillet': 'juillet au 5' ends one date and opens the next
            year = int(g["year"]) if g.get("year") else None
            found = _next_month_day(today, int(month), day, year)
            return atom("date", date=found, explicit_year=year is not None) if found else None
        if name == "month":
            month = lex["months"].value(g["month"] or "")
            if month is None:
                return None
            year = int(g["year"]) if g.get("year") else None
            return atom("month", month=int(month), year=_month_year(today, int(month), year), lead=bool(g.get("lead")))
        if name == "quarter":
            quarter = lex["quarters"].value(g["q"] or "")
            if quarter is None:
                return None
            first_month = (int(quarter) - 1) * 3 + 1
            year = int(g["year"]) if g.get("year") else today.year
            if not g.get("year") and _month_end(year, first_month + 2) < today:
                year += 1
            first, last = max(today, date(year, first_month, 1)), _month_end(year, first_month + 2)
            if last < first:
                return None
            return atom("frame", value=f"period:{_iso(first)}/{_iso(last)}", start=first, end=last)
        if name == "holiday":
            holiday = lex["holidays"].value(g["hol"] or "")
            if holiday is None:
                return None
            found = _next_month_day(today, int(holiday[:2]), int(holiday[3:]), None)
            return atom("date", date=found) if found else None
        if name == "iso_date":
            found = _safe_date(int(g["y"]), int(g["a"]), int(g["b"]))
            return atom("date", date=found, explicit_year=True) if found else None
        if name == "numeric_date":
            if g["s"] != "/" and not g.get("y"):
                return None  # '3.5' and '3-5' are numbers and ranges, not dates
            a, b = int(g["a"]), int(g["b"])
            day_n, month_n = (b, a) if self.order == "mdy" else (a, b)
            if not 1 <= month_n <= 12:
                return None
            year_n = int(g["y"]) + (2000 if len(g["y"]) == 2 else 0) if g.get("y") else None
            found = _next_month_day(today, month_n, day_n, year_n)
            return atom("date", date=found, explicit_year=year_n is not None) if found else None
        if name in ("ordinal", "day_lead"):
            day = day_of("day", "dayword")
            if day is None or lang.patterns["not_date_after"].match(text, m.end()):
                return None  # 'the 3rd floor', 'the 2nd time'
            if g.get("dayword") and not self._follows_ok(text, m.end(), lang):
                return None  # 'first' is a date only where nothing but temporal words follow
            if g.get("dayword") and not g.get("lead") and not lang.patterns["glue_before"].search(text, 0, m.start()):
                return None  # 'see the place first?': a spelled ordinal is a day only after a glue word ('the')
            return atom("dom", day=day, weak=bool(g.get("dayword")) and not g.get("lead"))
        if name == "date_this_month":
            day = day_of("day", "dayword")
            if day is None:
                return None
            first, _ = _period(today, "month", "next" if g.get("next") else "this")
            found = _safe_date(first.year, first.month, day)
            return atom("date", date=found) if found else None
        if name == "hour_word":
            hour_value = lex["hours"].value(g["hw"] or "")
            return atom("num", n=int(hour_value), word=True) if hour_value else None
        if name == "weekday":
            weekday = lex["weekdays"].value(g["wd"] or "")
            if weekday is None:
                return None
            mod = "next" if g.get("next") or g.get("after") else ("this" if g.get("this") else None)
            return atom("weekday", day=weekday, mod=mod, plural=False)
        if name == "weekday_plural":
            weekday = lex["weekdays_plural"].value(g["wd"] or "")
            return atom("weekday", day=weekday, mod=None, plural=True) if weekday else None
        if name == "day_set_single":
            days = lang.single_days.get(key(_strip_mod(m.group(0), g)))
            if not days:
                return None
            mod = "next" if g.get("next") or g.get("after") else "this"
            first, last = _period(today, "weekend", mod) if set(days) == {"sat", "sun"} else (
                _weekday(today, days[0], mod), _weekday(today, days[-1], mod))
            return atom("range", start=first, end=last)
        if name == "day_set_recurring":
            days = lang.recurring_days.get(key(m.group(0)))
            return atom("weekday_set", days=days) if days else None
        if name == "relative_day":
            offset_days = lex["relative_days"].value(g["rel"] or "")
            if offset_days is None:
                return None
            return atom("date", date=today + timedelta(days=int(offset_days)), relative=True,
                        today=int(offset_days) == 0)  # a lone 'today' is chat more often than an answer
        if name == "relative_day_part":
            pair = lang.day_parts.get(key(m.group(0)))
            if pair is None:
                return None
            return atom("date", date=today + timedelta(days=pair[0]), part=pair[1], relative=True)
        if name in ("part", "part_plural"):
            part = lex["parts_of_day" if name == "part" else "parts_of_day_plural"].value(g["part"] or "")
            if part is None:
                return None
            one_word = name == "part" and not re.search(r"\s", m.group(0))
            return atom("part", part=part, plural=name == "part_plural", weak=one_word)
        if name == "clock":
            return self._clock(g, m, lang, text, atom)
        if name == "clock_word":
            value = lex["clock_words"].value(g["cw"] or "")
            if value is None:
                return None
            hour, minute = (int(x) for x in value.split(":"))
            return atom("clock", h=hour, m=minute, explicit=True, raw=hour)
        if name == "asap":
            return atom("frame", value="asap")
        if name in ("within", "upcoming"):
            unit_text = g.get("unit") or g.get("unit2") or ""
            unit = lex["duration_units"].value(unit_text)
            written = g.get("count") or g.get("count2")
            count = self._count(written, lang) if written else (
                self._upcoming_count(unit_text, lang) if name == "upcoming" else None)
            if unit is None or count is None or count <= 0:
                return None
            point = None  # 'in 3 days', 'two weeks from now': also that day, for a date objective
            if unit in ("D", "W") and (g.get("count2") or key(g.get("wl") or "") in lex["point_leads"].values):
                point = today + timedelta(days=count * (7 if unit == "W" else 1))
            return atom("frame", value=f"within:P{count}{unit}", point=point)
        if name == "period":
            unit = lex["period_units"].value(g.get("pu") or g.get("pu2") or "")
            if unit is None:
                return None
            mod = "next" if g.get("next") or g.get("after") else "this"
            first, last = _period(today, unit, mod)
            if unit == "weekend":
                return atom("range", start=first, end=last)
            return atom("frame", value=f"period:{_iso(first)}/{_iso(last)}", start=first, end=last, unit=unit)
        if name == "season":
            season = lex["seasons"].value(g["season"] or "")
            bounds = self.settings.seasons.get(season or "")
            if bounds is None:
                return None
            if g.get("year"):
                first, last = _season(date(int(g["year"]), 1, 1), bounds, False)
                if first.year != int(g["year"]) or last < today:
                    return None
                first = max(first, today)
            else:
                first, last = _season(today, bounds, bool(g.get("next") or g.get("after")))
            # A bare season ('more in summer') is vague: only an answer to the question just asked, unless
            # 'next' / 'this' / a year pins it (spec/adr/0008).
            vague = not (g.get("next") or g.get("this") or g.get("after") or g.get("year"))
            return atom("frame", value=f"period:{_iso(first)}/{_iso(last)}", start=first, end=last, weak=vague)
        if name == "month_part":
            part = lex["month_parts"].value(g["mp"] or "")
            month = lex["months"].value(g["month"] or "")
            span = self.settings.month_parts.get(part or "")
            if month is None or span is None:
                return None
            year = _month_year(today, int(month), int(g["year"]) if g.get("year") else None)
            last_day = _month_end(year, int(month)).day
            first = date(year, int(month), min(span[0], last_day))
            last = date(year, int(month), min(span[1], last_day))
            return atom("range", start=first, end=last)
        if name == "end_of":
            unit = lex["period_units"].value(g["pu"] or "")
            if unit is None:
                return None
            _, last = _period(today, unit, "next" if g.get("next") else "this")
            return atom("frame", value=f"before:{_iso(last)}", start=last, end=last)
        if name == "year":
            year = int(g["year"])
            if not today.year <= year <= today.year + 10:
                return None
            first = max(today, date(year, 1, 1))
            return atom("frame", value=f"period:{_iso(first)}/{year}-12-31", start=first, end=date(year, 12, 31))
        if name == "num":
            return atom("num", n=int(g["n"]))
        if name in _MARKERS:
            return atom(name)
        return None

    def _upcoming_count(self, unit_text: str, lang: LanguageGrammar) -> int:
        """'in the next month' is one month, 'in the coming weeks' a few: a unit written in its first (singular)
        form counts one."""
        unit = lang.lex["duration_units"].value(unit_text)
        singular = lang.unit_singular.get(unit or "")
        if singular and singular != lang.unit_plural.get(unit or "") and key(unit_text) == singular:
            return 1
        return self.settings.default_upcoming_count

    def _count(self, text: str | None, lang: LanguageGrammar) -> int | None:
        if not text:
            return None
        if text.isdigit():
            return int(text)
        counted = lang.lex["counts"].value(text)
        if counted is not None:
            return int(counted)
        return _text_number(text, lang.language)

    def _clock(self, g: dict[str, Any], m: re.Match[str], lang: LanguageGrammar, text: str,
               atom: Callable[..., Atom]) -> Atom | None:
        lex = lang.lex
        raw = g["h"]
        if raw.isdigit():
            hour = int(raw)
        else:
            value = lex["hours"].value(raw)
            if value is None:
                return None
            hour = int(value)
        written = hour
        minute = int(g.get("m") or g.get("md") or g.get("m2") or 0)
        markers = [g.get(k) for k in ("m", "suf", "mer", "pre", "post")]
        if g.get("md") and not (g.get("lead") or g.get("mer") or g.get("suf")):
            return None  # '3.50' is a number unless written after 'at' or before 'pm'
        if not any(markers) and (not g.get("lead") or not self._follows_ok(text, m.end(), lang)):
            return None  # a bare number needs 'at' and nothing after it but temporal words
        if not raw.isdigit() and not (g.get("lead") or g.get("pre") or g.get("post") or g.get("suf")
                                      or g.get("mer")):
            return None
        for group, table in (("pre", "minutes_before_hour"), ("post", "minutes_after_hour")):
            if g.get(group):
                delta = int(lex[table].value(g[group]) or 0)
                if delta < 0:
                    hour, minute = hour - 1, 60 + delta
                else:
                    minute = delta
        if hour < 0:
            hour += 12
        if hour > 24 or (hour == 24 and minute):
            return None
        hour %= 24
        explicit = written >= 13 or written == 0 or (raw.startswith("0") and len(raw) == 2)
        mer = lex["meridiem"].value(g["mer"]) if g.get("mer") else None
        if mer == "pm" and hour < 12:
            hour, explicit = hour + 12, True
        elif mer == "am":
            hour, explicit = (0 if hour == 12 else hour), True
        elif mer == "pm":
            explicit = True
        return atom("clock", h=hour, m=minute, explicit=explicit, raw=hour, lead=key(g.get("lead") or ""))

    # --- groups -----------------------------------------------------------------------------------------

    def _glued(self, text: str, a: Atom, b: Atom, offset: int) -> bool:
        gap = text[a.end - offset:b.start - offset]
        if len(gap) > self.settings.max_gap:
            return False
        if not gap.strip(" ,"):
            return True
        return any(p.fullmatch(gap) for p in self._glue)

    @staticmethod
    def _count_before_day(a: Atom, b: Atom) -> bool:
        """'dinner for 12 on 17 April', 'pour 4 le dimanche', 'on sera deux, vers 10h': a bare number opening a
        group right before a day, or before a clock time with its own lead, with no connector between them, counts
        something else; it is no part of the expression ('from 2 to 4', '5 in the afternoon', 'el sábado 13 a las
        9' keep theirs)."""
        return a.kind == "num" and (b.kind in _DAY_KINDS or b.kind == "recurring"
                                    or (b.kind == "clock" and bool(b.data.get("lead"))))

    @staticmethod
    def _count_after_part(text: str, a: Atom, b: Atom, offset: int) -> bool:
        """'finde x la mañana, 1 a la semana': a bare number after a part of day and a comma starts another
        clause (a count); an hour after a part of day has its own lead ('el sábado por la mañana, a las 10')."""
        return a.kind == "part" and b.kind == "num" and "," in text[a.end - offset:b.start - offset]

    def groups(self, atoms: list[Atom], text: str, offset: int) -> Iterator[list[Atom]]:
        current: list[Atom] = []
        for atom in atoms:
            if current and (not self._glued(text, current[-1], atom, offset)
                            or (len(current) == 1 and self._count_before_day(current[-1], atom))
                            or self._count_after_part(text, current[-1], atom, offset)):
                yield current
                current = []
            current.append(atom)
        if current:
            yield current

    def read(self, text: str, offset: int) -> list[Reading]:
        atoms = self.atoms(text, offset)
        readings: list[Reading] = []
        for group in self.groups(atoms, text, offset):
            for part in _split(self._ranges(self._compose(group, text, offset))):
                reading = self._interpret(part)
                if reading is not None:
                    readings.append(reading)
        return readings

    def _compose(self, group: list[Atom], text: str, offset: int) -> list[Atom]:
        """Atoms that name one day together before ranges are read: 'Monday next week'."""
        out: list[Atom] = []
        for index, atom in enumerate(group):
            following = group[index + 1] if index + 1 < len(group) else None
            if atom.kind == "recurring" and (following is None
                                             or following.kind not in ("weekday", "weekday_set", "part")):
                continue  # 'entre le 3 et le 5 juin': an article, not 'every'
            prev = out[-1] if out else None
            if (prev is not None and prev.kind == "weekday" and not prev.data["plural"] and not prev.data["mod"]
                    and (atom.kind == "date" or (atom.kind == "dom" and not atom.data["weak"])
                         or self._day_number_after_weekday(atom, group[index + 1:], text, offset))):
                # 'Saturday the 9th', 'Sunday, March 10th': one day, so a range reads both ends whole ('from
                # Saturday the 9th until Sunday the 10th'); a weekday that contradicts the day is flagged later
                # (weekday_check), never resolved here.
                day = (atom.data["date"] if atom.kind == "date"
                       else _next_weekday_of_month(self.today, int(atom.data["n" if atom.kind == "num" else "day"]),
                                                   prev.data["day"]))
                if day is not None:
                    # a day number without its month ('to Saturday 30th') takes its month from the range's start
                    only = None if atom.kind == "date" else int(atom.data["n" if atom.kind == "num" else "day"])
                    out[-1] = Atom(prev.start, atom.end, "date", prev.lang, {**atom.data, "date": day,
                                                                              "day_only": only})
                    continue
            if (prev is not None and prev.kind == "weekday" and not prev.data["plural"] and atom.kind == "frame"
                    and atom.data.get("unit") == "week"):
                inside = self._weekday_in(prev.data["day"], atom)
                if inside is not None:
                    out[-1] = Atom(prev.start, atom.end, "date", prev.lang, {"date": inside})
                    continue
            out.append(atom)
        return out

    def _day_number_after_weekday(self, atom: Atom, rest: list[Atom], text: str, offset: int) -> bool:
        """'el sábado 9', 'le samedi 9': a digit day number right after a weekday, unless hours follow ('Saturday
        9 to 11', '9 de la mañana') or a word that is not temporal ('Saturday 4 people')."""
        if atom.kind != "num" or atom.data.get("word") or not 1 <= int(atom.data["n"]) <= 31:
            return False
        following = rest[0] if rest else None
        connectors = {key(w) for w in self._connector_words(following.lang)} if following is not None else set()
        between = text[atom.end - offset:(following.start if following else len(text) + offset) - offset]
        if re.search(r"[^\W\d_]", between):
            return False  # 'sábado 4 personas': a count, not the 4th
        if following is None:
            return True
        if following.kind == "clock" and following.data.get("lead") and (
                following.data["lead"] not in connectors):
            return True  # 'el sábado 13 a las 9': the hour has its own lead, so the number is the day
        if following.kind in ("part", "clock", "clock_range"):
            return False
        if following.kind in ("range_connector", "pair_connector") and len(rest) > 1:
            return rest[1].kind not in ("num", "clock")
        return True

    # --- ranges -----------------------------------------------------------------------------------------

    def _ranges(self, group: list[Atom]) -> list[Atom]:
        out: list[Atom] = []
        i = 0
        while i < len(group):
            atom = group[i]
            if atom.kind in ("range_connector", "pair_connector") and out and i + 1 < len(group):
                lead = len(out) >= 2 and out[-2].kind == "range_lead"
                if atom.kind == "range_connector" or lead:
                    merged = self._range(out[-1], group[i + 1], group[i + 2] if i + 2 < len(group) else None)
                    if merged is not None:
                        start = out[-2].start if lead else out[-1].start
                        del out[-2 if lead else -1:]
                        out.append(Atom(start, merged.end, merged.kind, merged.lang, merged.data))
                        i += 2
                        continue
            if (atom.kind == "clock" and atom.data.get("lead") in self._connector_words(atom.lang) and len(out) >= 2
                    and out[-2].kind == "range_lead" and out[-1].kind in ("clock", "num")):
                merged = self._range(out[-1], atom)
                if merged is not None:
                    start = out[-2].start
                    del out[-2:]
                    out.append(Atom(start, merged.end, merged.kind, merged.lang, merged.data))
                    i += 1
                    continue
            out.append(atom)
            i += 1
        return out

    def _connector_words(self, language: str) -> set[str]:
        lang = self.grammar.languages.get(language)
        if lang is None:
            return set()
        return set(lang.lex["pair_connectors"].values) | set(lang.lex["range_connectors"].values)

    def _range(self, x: Atom, y: Atom, after: Atom | None = None) -> Atom | None:
        clockish = {"clock", "num"}
        if x.kind == "num" and y.kind == "num" and after is not None and after.kind == "part":
            part = after.data["part"]  # 'de 5 a 7 de la tarde', 'from 2 to 4 in the afternoon'
            low, high = self._with_part(x.data["n"], part), self._with_part(y.data["n"], part)
            if low >= high or high > 23:
                return None
            return Atom(x.start, y.end, "clock_range", x.lang, {"from": (low, 0), "to": (high, 0)})
        if x.kind in clockish and y.kind in clockish and "clock" in (x.kind, y.kind):
            first, second = self._clock_pair(x, y)
            if first is None or second is None or second <= first:
                return None
            return Atom(x.start, y.end, "clock_range", x.lang, {"from": first, "to": second})
        if x.kind == "num" and y.kind == "num":
            return None
        first_day = self._day_of(x, None, y)
        if first_day is None:
            return None
        second_day = self._day_of(y, first_day, None)
        if second_day is None or second_day < first_day:
            return None
        return Atom(x.start, y.end, "range", x.lang, {"start": first_day, "end": second_day})

    def _clock_pair(self, x: Atom, y: Atom) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
        def raw(atom: Atom) -> tuple[int, int, bool]:
            if atom.kind == "num":
                return atom.data["n"], 0, False
            return atom.data["h"], atom.data["m"], atom.data["explicit"]

        xh, xm, xe = raw(x)
        yh, ym, ye = raw(y)
        if not ye:
            yh = self._bare(yh)
        if not xe and yh >= 12 and xh + 12 <= yh and xh < 12:
            xh += 12
        elif not xe:
            xh = self._bare(xh) if self._bare(xh) <= yh else xh
        if xh > 23 or yh > 23:
            return None, None
        return (xh, xm), (yh, ym)

    def _bare(self, hour: int) -> int:
        return hour + 12 if 1 <= hour < self.settings.bare_hour_pm_below else hour

    def _day_of(self, atom: Atom, after: date | None, partner: Atom | None) -> date | None:
        """The date an atom names inside a date range; a bare day number takes its partner's month."""
        today = self.today
        if atom.kind == "date":
            day: date = atom.data["date"]
            only = atom.data.get("day_only")
            if only is None or after is None:
                return day
            atom = Atom(atom.start, atom.end, "num", atom.lang, {"n": only})
        if atom.kind in ("num", "dom"):
            number = int(atom.data["n"] if atom.kind == "num" else atom.data["day"])
            if partner is not None and partner.kind == "date":
                ref: date = partner.data["date"]
                found = _safe_date(ref.year, ref.month, int(number))
                return found
            if after is not None:
                found = _safe_date(after.year, after.month, int(number))
                if found is not None and found >= after:
                    return found
                return _next_day_of_month(after, int(number))
            return _next_day_of_month(today, int(number))
        if atom.kind == "weekday" and not atom.data["plural"]:
            base = after or today  # 'from the 1st till next Friday': 'next' counts from the range's first day too
            return _weekday(base, atom.data["day"], "this" if after and not atom.data["mod"] else atom.data["mod"])
        return None

    # --- interpretation ---------------------------------------------------------------------------------

    def _interpret(self, atoms: list[Atom]) -> Reading | None:
        content = [a for a in atoms if a.kind not in _MARKERS]
        if not content:
            return None
        shaping = [a for a in atoms if a.kind not in _CONNECTORS]  # 'every', 'before', 'between' belong to it
        start, end = shaping[0].start, content[-1].end
        reading = self._reading(atoms, content, start, end)
        if reading is None:
            return None
        leading = {a.kind for a in atoms[:atoms.index(content[0])]}
        role = "end" if "range_connector" in leading else ("start" if "range_lead" in leading else None)
        return Reading(reading.start, reading.end, reading.values, reading.language, reading.weak, content[0].start,
                       role)

    def _reading(self, atoms: list[Atom], content: list[Atom], start: int, end: int) -> Reading | None:
        lang = content[0].lang
        leading = atoms[:atoms.index(content[0])]  # 'before summer'; not '... the 9th, before going home'
        before = any(a.kind == "before" for a in leading)
        after = any(a.kind == "after" for a in leading)
        recurring_days: list[str] = []
        marked_days: list[Atom] = []  # 'le mardi', 'los martes': every week, unless a calendar date is given
        single_days: list[Atom] = []
        dates: list[Atom] = []
        ranges: list[Atom] = []
        frames: list[Atom] = []
        months: list[Atom] = []
        clocks: list[Atom] = []
        parts: list[Atom] = []
        recurring_part = False
        pending = False
        for atom in atoms:
            kind = atom.kind
            if kind == "recurring":
                pending = True
                continue
            if kind == "weekday":
                if atom.data["plural"]:
                    recurring_days.append(atom.data["day"])
                elif pending:
                    marked_days.append(atom)
                else:
                    single_days.append(atom)
            elif kind == "weekday_set":
                recurring_days.extend(atom.data["days"])
            elif kind == "part":
                parts.append(atom)
                recurring_part = recurring_part or atom.data["plural"] or pending
            elif kind in ("date", "dom"):
                dates.append(atom)
            elif kind == "range":
                ranges.append(atom)
            elif kind == "frame":
                frames.append(atom)
            elif kind == "month":
                months.append(atom)
            elif kind in ("clock", "clock_range"):
                clocks.append(atom)
            pending = False
        if not clocks and parts:
            clocks.extend(self._hours_by_parts(atoms))
        if single_days and frames and frames[0].data.get("unit") in ("week", "weekend"):
            inside = self._weekday_in(single_days[0].data["day"], frames[0])  # 'Monday next week'
            if inside is not None:
                dates.append(Atom(single_days[0].start, frames[0].end, "date", lang, {"date": inside}))
                single_days, frames = [], []
        if months and frames and frames[0].data.get("unit") in ("month", "year"):
            frame = frames.pop(0)  # 'el próximo mes de junio', 'en junio del año que viene'
            if frame.data["unit"] == "year":
                year = frame.data["end"].year
                months = [Atom(m.start, m.end, m.kind, m.lang, dict(m.data, year=year, lead=True)) for m in months]
        doms = [a for a in dates if a.kind == "dom"]
        if months and doms and not any(a.kind == "date" for a in dates):  # 'June 2027, the 4th'
            month = months.pop(0)
            found = _safe_date(month.data["year"], month.data["month"], int(doms[0].data["day"]))
            if found is not None:
                dates = [Atom(doms[0].start, doms[0].end, "date", doms[0].lang, {"date": found})]
        if months and not dates and not ranges:
            single_days, marked_days = [], []  # 'a Friday in May' names the month, not a day
        if dates or ranges or frames:
            single_days.extend(marked_days)
        else:
            recurring_days.extend(a.data["day"] for a in marked_days)
        time_value = self._time(clocks, parts, dates)
        weak_time = not clocks and all(p.data.get("weak") for p in parts)
        calendar_given = bool(dates or ranges or frames or months)
        # weekly schedules: 'Tuesdays and Thursdays after work', 'martes y jueves por la tarde', 'weekday evenings'
        mods = any(a.data.get("mod") for a in single_days)
        if recurring_part and single_days and not calendar_given and not mods:
            recurring_days.extend(a.data["day"] for a in single_days)  # 'Saturday mornings'
            single_days = []
        if recurring_days or (len(single_days) >= 2 and not calendar_given and not mods):
            days = recurring_days + [a.data["day"] for a in single_days]
            ordered = ",".join(d for d in WEEKDAYS if d in days)
            values = [f"weekly:{ordered}" + (f"@{time_value}" if time_value else "")]
            if time_value:
                values.append(time_value)
            return Reading(start, end, tuple(values), lang)
        # time frames: 'within three months', 'before summer', 'by the end of the year', 'in June'
        target = self._target(dates, ranges, frames, months, single_days)
        if (before or after) and target is not None:
            first, last = target
            if before and first == last:  # 'I need the car by next Monday': the day itself for a date objective
                return Reading(start, end, (f"before:{_iso(first)}", *_on_day(first, time_value)), lang)
            return Reading(start, end, (f"before:{_iso(first)}" if before else f"after:{_iso(last)}",), lang)
        day = self._day(dates, single_days)
        if frames:
            values = [frames[0].data["value"]]
            if day is None and frames[0].data.get("point") is not None:
                day = frames[0].data["point"]
            if day is not None:  # 'cuanto antes, mañana': asap, or the day itself for a date objective
                values.extend(_on_day(day, time_value))
            vague = day is None and len(frames) == 1 and bool(frames[0].data.get("weak"))
            return Reading(start, end, tuple(values), lang, weak=vague)
        if ranges and day is None:
            span = _span_value(ranges[0].data["start"], ranges[0].data["end"])
            values = [span] + ([time_value] if time_value else [])
            return Reading(start, end, tuple(values), lang)
        if day is not None:
            date_atom_part = next((a.data["part"] for a in dates if a.data.get("part")), None)
            time_value = time_value or date_atom_part
            weak = all(a.data.get("weak") for a in dates) if dates and not single_days else False
            weak = weak or (len(dates) == 1 and not single_days and dates[0].data.get("today", False))
            if time_value:
                return Reading(start, end, _on_day(day, time_value), lang)
            return Reading(start, end, (_iso(day),), lang, weak=weak)
        if months:
            month = months[0]
            first = date(month.data["year"], month.data["month"], 1)
            first = max(first, self.today)
            last = _month_end(month.data["year"], month.data["month"])
            if last < first:
                return None  # a month already over ('febrero 2027' in March 2027): history
            weak = not month.data["lead"]  # 'in June' is a time frame; a lone 'may' is probably a verb
            return Reading(start, end, (f"period:{_iso(first)}/{_iso(last)}",), lang, weak=weak)
        if time_value:
            return Reading(start, end, (time_value,), lang, weak=weak_time)
        return None

    def _hours_by_parts(self, atoms: list[Atom]) -> list[Atom]:
        """'7 in the evening', 'one in the afternoon', 'evening 6': a bare hour right beside a part of day."""
        for i, atom in enumerate(atoms):
            if atom.kind != "num" or not 1 <= atom.data["n"] <= 12:
                continue
            beside = [atoms[j] for j in (i - 1, i + 1) if 0 <= j < len(atoms)]
            if any(b.kind == "part" and not b.data["plural"] for b in beside):
                hour = atom.data["n"]
                return [Atom(atom.start, atom.end, "clock", atom.lang, {"h": hour, "m": 0, "explicit": False})]
        return []

    def _weekday_in(self, day: str, frame: Atom) -> date | None:
        start, end = frame.data.get("start"), frame.data.get("end")
        if start is None or end is None:
            return None
        monday = start - timedelta(days=start.weekday())
        found = monday + timedelta(days=WEEKDAYS.index(day))
        return found if found >= self.today else None

    def _target(self, dates: list[Atom], ranges: list[Atom], frames: list[Atom], months: list[Atom],
                single_days: list[Atom]) -> tuple[date, date] | None:
        day = self._day(dates, single_days)
        if day is not None:
            return day, day
        if ranges:
            return ranges[0].data["start"], ranges[0].data["end"]
        for frame in frames:
            if frame.data.get("start") is not None:
                return frame.data["start"], frame.data["end"]
        if months:
            month = months[0]
            return date(month.data["year"], month.data["month"], 1), _month_end(month.data["year"],
                                                                                month.data["month"])
        return None

    def _day(self, dates: list[Atom], single_days: list[Atom]) -> date | None:
        explicit = [a for a in dates if a.kind == "date"]
        if explicit:
            found: date = explicit[0].data["date"]
            return found
        doms = [a for a in dates if a.kind == "dom"]
        if doms:
            return _next_day_of_month(self.today, int(doms[0].data["day"]))
        if single_days:
            first = single_days[0]
            return _weekday(self.today, first.data["day"], first.data["mod"])
        return None

    def _time(self, clocks: list[Atom], parts: list[Atom], dates: list[Atom]) -> str | None:
        part = parts[0].data["part"] if parts else None
        if clocks:
            clock = clocks[0]
            if clock.kind == "clock_range":
                (h1, m1), (h2, m2) = clock.data["from"], clock.data["to"]
                return f"{h1:02d}:{m1:02d}-{h2:02d}:{m2:02d}"
            hour, minute = clock.data["h"], clock.data["m"]
            if not clock.data["explicit"]:
                part = part or next((a.data["part"] for a in dates if a.data.get("part")), None)
                hour = self._with_part(hour, part) if part else self._bare(hour)
            return f"{hour:02d}:{minute:02d}"
        return part

    def _with_part(self, hour: int, part: str) -> int:
        """'5 in the afternoon' is 17:00, '4:15 in the evening' 16:15, '2 at night' 02:00: a 12-hour clock moves to
        the afternoon when the part of day lies there and the moved hour is near enough to it."""
        window = self.settings.part_hours.get(part)
        if window is None or hour >= 12:
            return hour
        low = window[0]
        if low >= 12 and hour + 12 >= low - self.settings.part_hour_slack:
            return hour + 12
        return hour


def _on_day(day: date, time_value: str | None) -> tuple[str, ...]:
    """A day with a time: a datetime; with a time window ('Friday from 2 to 4pm'), the datetime of its start and
    the window itself (a datetime value carries one time)."""
    if not time_value:
        return (_iso(day),)
    if "-" in time_value:
        return f"{_iso(day)}T{time_value.split('-')[0]}", time_value
    return (f"{_iso(day)}T{time_value}",)


def _strip_mod(text: str, g: dict[str, Any]) -> str:
    for name in ("next", "this"):
        if g.get(name):
            text = text.replace(g[name], "", 1)
    if g.get("after"):
        text = text[: text.rfind(g["after"])]
    return text.strip()


def _split(atoms: list[Atom]) -> Iterator[list[Atom]]:
    """Cut a group at 'and'/'or' unless both sides are weekdays of one schedule ('Tuesdays and Thursdays')."""
    dayish = {"weekday", "weekday_set"}
    current: list[Atom] = []
    for i, atom in enumerate(atoms):
        if atom.kind == "alternative_connector":  # 'Tuesday or Wednesday': two candidates, not a schedule
            if current:
                yield current
            current = []
            continue
        if atom.kind == "range_connector" and current and any(a.kind not in _MARKERS for a in current):
            yield current  # an unread range: '... from Thursday 1:30 | until March 13th'
            current = [atom]
            continue
        if atom.kind in ("list_connector", "pair_connector"):
            before = current[-1] if current else None
            following = atoms[i + 1] if i + 1 < len(atoms) else None
            if before is not None and following is not None and before.kind in dayish and following.kind in dayish:
                continue
            if current:
                yield current
            current = []
            continue
        current.append(atom)
    if current:
        yield current


def _text_number(text: str, language: str) -> int | None:
    try:
        from text_to_num import text2num

        value = text2num(text, language)
    except (ValueError, KeyError, ImportError, NotImplementedError):
        return None
    return int(value) if isinstance(value, int) else None


def read_sentence(grammar: TemporalGrammar, languages: Sequence[str], today: date, region: str | None,
                  text: str, offset: int) -> list[Reading]:
    """Temporal readings of one sentence (``text`` starts at folded ``offset``)."""
    return _Reader(grammar, languages, today, region).read(text, offset)
