"""Normalised directory records and weekly schedules (the facts the knowledge graph is built from)."""

from __future__ import annotations

import calendar
from dataclasses import dataclass, field
from datetime import date

ALL_WEEKS = frozenset({1, 2, 3, 4, 5})


@dataclass(frozen=True, order=True)
class Slot:
    """One weekly opening: ``day`` 0=Monday..6=Sunday; minutes since midnight (None = not stated).

    ``weeks`` None means every week; otherwise the weeks of the month (1..5, -1 = last) it opens.
    ``irregular`` marks openings on that weekday whose weeks are not stated ("twice a month", "one Thursday each
    month"): they count for "open on Thursdays" but never for a specific date (unknown is never guessed).
    """

    day: int
    start: int | None = None
    end: int | None = None
    weeks: frozenset[int] | None = None
    irregular: bool = False

    def opens_on_date(self, when: date) -> bool:
        if self.irregular or when.weekday() != self.day:
            return False
        if self.weeks is None:
            return True
        week = (when.day - 1) // 7 + 1
        last = when.day + 7 > calendar.monthrange(when.year, when.month)[1]
        return week in self.weeks or (-1 in self.weeks and last)


@dataclass(frozen=True)
class Schedule:
    """Weekly opening pattern parsed from free text. No slots = hours unknown."""

    slots: tuple[Slot, ...] = ()
    seasonal: bool = False  # months or date ranges restrict it: dates cannot be decided

    @property
    def known(self) -> bool:
        return bool(self.slots)


@dataclass(frozen=True)
class Evidence:
    """A verbatim quote from the directory: ``source`` file name, ``field`` path in the record."""

    field: str
    quote: str
    source: str


SERVED_ZIP = "served_zip:"  # attribute prefix: a ZIP code the record says it serves ('Zip Codes Served: ...')


@dataclass(frozen=True)
class Record:
    """One directory entry after normalisation. ``source_index`` is its 0-based position in the directory file."""

    source_index: int
    name: str
    address: str | None
    city: str | None
    city_key: str | None
    counties: tuple[str, ...]  # display names ("Sedgwick County", "Ward 8")
    county_keys: tuple[str, ...]
    state: str | None
    zip: str | None
    phone: str | None
    hours_text: str | None
    schedule: Schedule
    link: str | None
    tags: tuple[str, ...]
    passages: tuple[Evidence, ...]  # semantic text split into quotable passages (eligibility, notes, services...)
    raw: dict[str, tuple[Evidence, ...]] = field(default_factory=dict)  # logical field -> verbatim source values
    attributes: dict[str, tuple[Evidence, ...]] = field(default_factory=dict)  # concept id -> evidence
    quadrant: str | None = None  # city quadrant written in the street address ('1990 K St. NW' -> 'NW')
    non_food: bool = False  # only a non-food service (hygiene, clothing...) by its name or an 'only' note
    hours_evidence: Evidence | None = None  # where the schedule was read (hours field, or a note stating hours)
    point: tuple[float, float] | None = None  # latitude/longitude the directory gives (unchecked here)
    slot_quotes: tuple[tuple[Slot, Evidence], ...] = ()  # openings read from a note besides the hours field
    county_from_zip: bool = False  # the directory states no county: it was read from the ZIP gazetteer
    # towns the record also lies in, read from its ZIP (key, label): a city field naming a neighbourhood ('Back
    # Central', ZIP 01852 -> Lowell) or a postal town inside a larger one (Roxbury 02119 -> Boston)
    zip_towns: tuple[tuple[str, str], ...] = ()

    @property
    def town_keys(self) -> tuple[str, ...]:
        """Every town key the record lies in: its stated city first, then the towns of its ZIP."""
        own = (self.city_key,) if self.city_key else ()
        return own + tuple(key for key, _ in self.zip_towns if key != self.city_key)

    @property
    def source_ref(self) -> str:
        return f"#{self.source_index}"

    def document(self) -> str:
        """All text of the record, for the text-only index."""
        parts = [self.name, self.address or "", self.city or "", " ".join(self.counties), self.zip or "",
                 self.hours_text or ""]
        parts.extend(p.quote for p in self.passages)
        return " \n".join(p for p in parts if p)
