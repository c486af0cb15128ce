"""Constraint types and their exact, record-level semantics (the single definition of 'satisfies').

Structural constraints: places (city / county / ZIP / state), opening hours (recurring weekdays or specific
dates, with time conditions) and pantry names. Semantic constraints: concept ids from the semantic vocabulary,
satisfied only by quotable evidence the record carries. Places of the same kind are alternatives ('Wichita or
Derby'); different kinds must all hold. A place the directory does not know can never be satisfied.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from engine.directory.models import SERVED_ZIP, Evidence, Record, Slot
from engine.directory.normalize import key_tokens

PLACE_KINDS = ("city", "county", "zip", "state", "quadrant")


@dataclass(frozen=True)
class PlaceConstraint:
    kind: str  # one of PLACE_KINDS
    key: str  # city/county key, ZIP, or state code
    label: str  # display form, from the directory


@dataclass(frozen=True)
class TimeCondition:
    """``after``/``before``/``at``/``until`` a minute of the day, or ``window`` [start, end) overlap."""

    relation: str
    start: int
    end: int | None = None
    label: str = ""


@dataclass(frozen=True)
class HoursConstraint:
    days: frozenset[int] = frozenset()  # recurring weekdays, any of them ("on Saturdays")
    dates: tuple[date, ...] = ()  # specific dates, any of them ("tomorrow")
    conditions: tuple[TimeCondition, ...] = ()  # all must hold within one opening
    closed_days: frozenset[int] = frozenset()  # weekdays it must not open on ("not on Tuesday"), when the rule says


@dataclass(frozen=True)
class NameConstraint:
    key: tuple[str, ...]  # name tokens that must appear contiguously in the record's name
    label: str


@dataclass(frozen=True)
class Proximity:
    """Rank by distance from ``point`` (a ZIP centroid or a town's point); ``radius`` miles caps it when given."""

    point: tuple[float, float]
    label: str
    radius: float | None = None


@dataclass(frozen=True)
class AmbiguousPlace:
    said: str
    candidates: tuple[str, ...]  # display labels, for "Did you mean A or B?"


@dataclass(frozen=True)
class Constraints:
    places: tuple[PlaceConstraint, ...] = ()
    hours: HoursConstraint | None = None
    concepts: tuple[str, ...] = ()
    names: tuple[NameConstraint, ...] = ()
    unknown_places: tuple[str, ...] = ()
    proximity: Proximity | None = None
    ambiguous: tuple[AmbiguousPlace, ...] = ()
    service: str | None = None  # a non-food service asked for ('hygiene'); None = food services only
    excluded: tuple[str, ...] = ()  # concepts a record must not evidence ('not a soup kitchen', 'no appointment')
    excluded_names: tuple[NameConstraint, ...] = ()  # names a record must not bear ('not the Salvation Army')
    served_zip: str | None = None  # the visitor lives in this ZIP: the record must say it serves it
    preferred: tuple[str, ...] = ()  # counterparts whose evidence ranks a record first ('walk-ins welcome')
    places_any: bool = False  # places of different kinds listed as alternatives ('<area>, <town> or <area>')

    @property
    def has_location(self) -> bool:
        return bool(self.places or self.unknown_places or self.proximity or self.served_zip)

    @property
    def has_structural(self) -> bool:
        return bool(self.places or self.unknown_places or self.hours or self.names or self.proximity
                    or self.served_zip)


@dataclass
class Verdict:
    ok: bool
    failed: list[str] = field(default_factory=list)
    evidence: list[tuple[str, Evidence]] = field(default_factory=list)  # (constraint label, quote)


# ----------------------------------------------------------------------------- hours
def condition_holds(slot: Slot, cond: TimeCondition) -> bool:
    """Exact reading of a time condition on one opening; unknown times never hold."""
    if slot.start is None:
        return False
    if cond.relation == "window":
        end = cond.end if cond.end is not None else cond.start
        if slot.end is None:
            return cond.start <= slot.start < end
        return slot.start < end and slot.end > cond.start
    if cond.relation == "after":
        return slot.end > cond.start if slot.end is not None else slot.start >= cond.start
    if cond.relation == "before":
        return slot.start < cond.start
    if cond.relation == "at":
        return slot.start <= cond.start < slot.end if slot.end is not None else slot.start == cond.start
    if cond.relation == "until":
        return slot.end is not None and slot.start < cond.start <= slot.end
    return False


def slot_matches(slot: Slot, hours: HoursConstraint, seasonal: bool) -> bool:
    on_day = not hours.days and not hours.dates
    if slot.day in hours.days:
        on_day = True
    if not on_day and not seasonal:
        on_day = any(slot.opens_on_date(d) for d in hours.dates)
    return on_day and all(condition_holds(slot, c) for c in hours.conditions)


def matching_slots(record: Record, hours: HoursConstraint) -> tuple[Slot, ...]:
    """The record's openings that satisfy ``hours``; none when it opens on a day the visitor excluded."""
    if hours.closed_days and any(s.day in hours.closed_days for s in record.schedule.slots):
        return ()
    return tuple(s for s in record.schedule.slots if slot_matches(s, hours, record.schedule.seasonal))


# ----------------------------------------------------------------------------- places & names
def place_holds(record: Record, place: PlaceConstraint) -> bool:
    if place.kind == "city":
        return record.city_key == place.key or any(key == place.key for key, _ in record.zip_towns)
    if place.kind == "county":
        return place.key in record.county_keys
    if place.kind == "zip":
        return record.zip == place.key
    if place.kind == "state":
        return record.state == place.key
    if place.kind == "quadrant":
        return record.quadrant == place.key
    return False


def places_hold(record: Record, places: tuple[PlaceConstraint, ...], any_kind: bool = False) -> bool:
    """Same-kind places are alternatives, kinds intersect; with ``any_kind`` every place is an alternative."""
    if any_kind:
        return any(place_holds(record, p) for p in places)
    for kind in PLACE_KINDS:
        group = [p for p in places if p.kind == kind]
        if group and not any(place_holds(record, p) for p in group):
            return False
    return True


def contains_run(tokens: tuple[str, ...], key: tuple[str, ...]) -> bool:
    """``key`` as consecutive tokens; an 'and' the key lacks is skipped ('Loaves & Fishes' asked as written:
    the query drops the ampersand that a name's key spells 'and')."""
    if "and" in tokens and "and" not in key:
        tokens = tuple(t for t in tokens if t != "and")
    if not key or len(key) > len(tokens):
        return False
    return any(tokens[i:i + len(key)] == key for i in range(len(tokens) - len(key) + 1))


def name_holds(record: Record, name: NameConstraint) -> bool:
    return contains_run(key_tokens(record.name), name.key)


def _place_quote(record: Record, place: PlaceConstraint) -> Evidence | None:
    field_name = {"city": "city", "county": "county", "zip": "zip", "state": "state", "quadrant": "address"}[place.kind]
    quotes = record.raw.get(field_name) or ()
    if place.kind == "city" and record.city_key != place.key and record.raw.get("zip"):
        return record.raw["zip"][0]  # the town was read from this ZIP, not from the city field
    if place.kind == "county":
        for quote in quotes:
            if place.key and place.key.split()[0] in " ".join(key_tokens(quote.quote)):
                return quote
        if not quotes and record.raw.get("zip"):  # no county field: the county was read from this ZIP
            return record.raw["zip"][0]
    if quotes:
        return quotes[0]
    address = record.raw.get("address")
    return address[0] if address else None


def check(record: Record, constraints: Constraints, *, places: bool = True, hours: bool = True,
          names: bool = True, concepts: bool = True) -> Verdict:
    """Does ``record`` satisfy every selected constraint? Collects the quotes that show it."""
    verdict = Verdict(ok=True)
    if constraints.unknown_places and places:
        verdict.ok = False
        verdict.failed.extend(f"place:{p}" for p in constraints.unknown_places)
    if places and constraints.places:
        if places_hold(record, constraints.places, constraints.places_any):
            for place in constraints.places:
                quote = _place_quote(record, place) if place_holds(record, place) else None
                if quote is not None:
                    verdict.evidence.append((f"{place.kind}:{place.label}", quote))
        else:
            verdict.ok = False
            verdict.failed.append("place")
    if names and constraints.names:
        if any(name_holds(record, n) for n in constraints.names):
            name_quote = record.raw.get("name")
            if name_quote:
                verdict.evidence.append(("name", name_quote[0]))
        else:
            verdict.ok = False
            verdict.failed.append("name")
    if names and constraints.excluded_names:
        if any(name_holds(record, n) for n in constraints.excluded_names):
            verdict.ok = False
            verdict.failed.append("not:name")
        elif record.raw.get("name"):
            verdict.evidence.append(("not:name", record.raw["name"][0]))
    if places and constraints.served_zip is not None:
        served = record.attributes.get(SERVED_ZIP + constraints.served_zip)
        if served:
            verdict.evidence.append((f"served_zip:{constraints.served_zip}", served[0]))
        else:
            verdict.ok = False
            verdict.failed.append("served_zip")
    if hours and constraints.hours is not None:
        matched = matching_slots(record, constraints.hours)
        if matched:
            from_note = dict(record.slot_quotes)
            hours_quote = (next((from_note[s] for s in matched if s in from_note), None) if
                           all(s in from_note for s in matched) else None)
            hours_quote = hours_quote or record.hours_evidence or next(iter(record.raw.get("hours") or ()), None)
            if hours_quote is not None:
                verdict.evidence.append(("hours", hours_quote))
        else:
            verdict.ok = False
            verdict.failed.append("hours")
    if concepts:
        _check_excluded(record, constraints, verdict)
        _check_service(record, constraints, verdict)
        for concept in constraints.concepts:
            found = record.attributes.get(concept)
            if found:
                verdict.evidence.append((f"concept:{concept}", found[0]))
            else:
                verdict.ok = False
                verdict.failed.append(f"concept:{concept}")
    return verdict


def _check_excluded(record: Record, constraints: Constraints, verdict: Verdict) -> None:
    """A negated concept fails on the record's own evidence for it. Otherwise the citation is the counterpart's
    quote when the record states one ('walk-ins welcome'), else the text that was read and states neither."""
    for concept in constraints.excluded:
        found = record.attributes.get(concept)
        if found:
            verdict.ok = False
            verdict.failed.append(f"not:{concept}")
            continue
        quote = next((record.attributes[p][0] for p in constraints.preferred if record.attributes.get(p)), None)
        quote = quote or record.hours_evidence or next(iter(record.passages), None)
        if quote is not None:
            verdict.evidence.append((f"not:{concept}", quote))


def _check_service(record: Record, constraints: Constraints, verdict: Verdict) -> None:
    """A requested service type needs quotable evidence; otherwise (food) a hygiene- or clothing-only service fails,
    unless the record was asked for by name."""
    if constraints.service is not None:
        found = record.attributes.get(f"service:{constraints.service}")
        if found:
            verdict.evidence.append((f"service:{constraints.service}", found[0]))
        else:
            verdict.ok = False
            verdict.failed.append(f"service:{constraints.service}")
    elif record.non_food and not constraints.names:
        verdict.ok = False
        verdict.failed.append("service:food")
