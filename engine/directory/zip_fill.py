"""Place fields a directory leaves empty or garbled, filled from the packaged ZIP gazetteer (offline).

Scraped directories often carry no county field, a city with address debris ('45 Citronelle', '. Mobile',
'NE Fort Walton Beach') or no city at all, and some ZIPs that are street numbers. A record keeps what it states
when that is a real town of its state; otherwise:

* city: the directory's city with leading debris (numbers, punctuation, compass words, or any words when the whole
  is no town of the state: 'Breunig Avenue Trenton') removed when the rest is a town of the record's state; else a
  town name of the record's valid ZIP (its main name or an alternate one, e.g. 'Prichard' for 36610) written at the
  end of the street address; else the valid ZIP's main town; else (no ZIP stated) the town of the ZIP centroid
  nearest to the record's own coordinates;
* county: the valid ZIP's county; else the county of the ZIP centroid nearest to the record's own coordinates;
* state: the valid ZIP's state. Separately (``move_to_address_state``) a street address naming another state with a
  ZIP of it ('Morrisville, PA 19067') moves the record there (state, county) over the directory's fields.

A ZIP is valid for a record when the gazetteer knows it and it lies in the record's stated state (if any). The
``filled`` map says which fields were derived, so an answer can quote the ZIP a county was read from.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace

import numpy as np

from engine.directory.geo import UsPlaces, ZipRow
from engine.directory.models import Record
from engine.directory.normalize import key_tokens, place_key

_COMPASS = frozenset({"n", "s", "e", "w", "ne", "nw", "se", "sw", "north", "south", "east", "west", "unit", "trail"})


def _debris(city: str) -> bool:
    """A digit, a leading mark or a leading compass word: scraped address debris, not a spelling."""
    words = key_tokens(city)
    return (any(ch.isdigit() for ch in city) or not city[:1].isalpha() or "\u200b" in city
            or (len(words) > 1 and words[0] in _COMPASS))


def _valid_zip(us: UsPlaces, record: Record) -> ZipRow | None:
    row = us.zips.get(record.zip or "")
    if row is None or (record.state and row.state != record.state):
        return None
    return row


def _town_of(us: UsPlaces, text: str | None, state: str | None) -> str | None:
    """The longest tail of ``text`` (debris dropped from the front) that is a town of ``state``."""
    words = key_tokens(text or "")
    for start in range(len(words)):
        head = words[start]
        tail = words[start:]
        if start and not (any(ch.isdigit() for ch in words[start - 1]) or words[start - 1] in _COMPASS):
            break
        if state and (tail, state) in us.towns and not any(ch.isdigit() for ch in head):
            return " ".join(w.capitalize() for w in tail)
    return None


def _address_state_row(us: UsPlaces, record: Record) -> ZipRow | None:
    row = us.zips.get(record.zip or "")
    if row is None or not record.state or row.state == record.state or not record.address:
        return None
    return row if re.search(rf"\b{row.state}\b[\s,.]*{row.zip}\b", record.address) else None


def _town_tail(us: UsPlaces, text: str, state: str, street_words: frozenset[str]) -> str | None:
    """The longest strict tail of ``text`` that is a town of ``state``, when the whole is none and what comes before
    it ends in a street word ('Breunig Avenue | Trenton'; never 'East | Palo Alto')."""
    words = key_tokens(text)
    for start in range(1, len(words)):
        if words[start - 1] in street_words and (words[start:], state) in us.towns:
            return " ".join(w.capitalize() for w in words[start:])
    return None


def _address_town(row: ZipRow, address: str | None) -> str | None:
    words = key_tokens(address or "")
    for name in (row.city, *row.alternates):
        key = key_tokens(name)
        if key and len(words) > len(key) and words[-len(key):] == key:
            return " ".join(w.capitalize() for w in key)
    return None


class _Nearest:
    """ZIP centroids of some states, for the county of a record that has coordinates but no valid ZIP."""

    def __init__(self, us: UsPlaces, states: set[str]) -> None:
        self.rows = [z for z in us.zips.values() if z.state in states and z.standard and z.county]
        self.lat = np.radians(np.array([z.point[0] for z in self.rows], dtype=np.float64))
        self.lon = np.radians(np.array([z.point[1] for z in self.rows], dtype=np.float64))

    def row(self, point: tuple[float, float]) -> ZipRow | None:
        if not self.rows:
            return None
        lat, lon = math.radians(point[0]), math.radians(point[1])
        d = (self.lat - lat) ** 2 + ((self.lon - lon) * math.cos(lat)) ** 2
        return self.rows[int(np.argmin(d))]


def fill_places(records: list[Record], us: UsPlaces, street_words: frozenset[str] = frozenset()) -> list[Record]:
    states = {r.state for r in records if r.state} or {z.state for r in records if (z := us.zips.get(r.zip or ""))}
    nearest: _Nearest | None = None
    out = []
    for record in records:
        row = _valid_zip(us, record)
        state = record.state or (row.state if row else None)
        city = record.city
        # a town its ZIP names otherwise ('North Plainfield' for 07060) is kept whole: no debris, no street in front
        zip_name = row is not None and bool(city) and key_tokens(city or "") in {key_tokens(n) for n in row.alternates}
        if city and _debris(city) and (key_tokens(city), state or "") not in us.towns and not zip_name:
            city = _town_of(us, city, state) or (None if row is not None else city)
        elif city and state and (key_tokens(city), state) not in us.towns and not zip_name:
            city = _town_tail(us, city, state, street_words) or city  # the street ran into the town
        if not city and row is not None:
            city = _address_town(row, record.address) or " ".join(w.capitalize() for w in key_tokens(row.city))
        # coordinates only (no ZIP stated at all): the town they lie in; a garbled ZIP makes its geocode suspect
        if not city and not record.zip and record.point is not None:
            nearest = nearest or _Nearest(us, states)
            near = nearest.row(record.point)
            # a stated county the point is not in: a failed geocode's default point, not the town
            agrees = near is not None and (not record.county_keys or place_key(
                near.county.removesuffix(" County").removesuffix(" Parish")) in record.county_keys)
            city = " ".join(w.capitalize() for w in key_tokens(near.city)) if near is not None and agrees else None
        counties, county_keys = record.counties, record.county_keys
        if not county_keys:
            source = row
            if source is None and record.point is not None:
                nearest = nearest or _Nearest(us, states)
                source = nearest.row(record.point)
                state = state or (source.state if source else None)
            if source is not None and source.county:
                name = source.county.removesuffix(" County").removesuffix(" Parish")
                counties, county_keys = (f"{name} County",), (place_key(name),)
        if (city, counties, state) != (record.city, record.counties, record.state):
            record = replace(record, city=city, city_key=place_key(city) if city else None, counties=counties,
                             county_keys=county_keys, state=state,
                             county_from_zip=record.county_from_zip or counties != record.counties)
        out.append(record)
    return out


def move_to_address_state(records: list[Record], us: UsPlaces) -> list[Record]:
    """A street address naming another state with a ZIP of it ('Morrisville, PA 19067' in a record whose fields say
    Mercer, NJ as every record of its directory does): the address is the record's own place (state, county)."""
    out = []
    for record in records:
        row = _address_state_row(us, record)
        if row is not None and row.county:
            name = row.county.removesuffix(" County").removesuffix(" Parish")
            record = replace(record, state=row.state, counties=(f"{name} County",), county_keys=(place_key(name),),
                             county_from_zip=True)
        out.append(record)
    return out


def add_zip_towns(records: list[Record], us: UsPlaces) -> list[Record]:
    """The town a record lies in by its valid ZIP, beside what its city field states (``Record.zip_towns``).

    Scraped city fields often name a neighbourhood ('Back Central', 'Journal Square', 'The Acre'); the ZIP source
    says which town that is: the ZIP's main town, taken only when no ZIP of the state names the stated city at all
    (a village or town that shares its neighbour's ZIP, 'Menands' in an Albany ZIP, 'Potomac' in a Rockville one,
    stays itself; a postal town inside a larger city, Roxbury in Boston, is rule data, ``regional_names``)."""
    states = {r.state for r in records if r.state}
    named: set[tuple[tuple[str, ...], str]] = set()  # every name a ZIP of the states gives (main or alternate)
    for each in us.zips.values():
        if each.state in states:
            named.update((key_tokens(name), each.state) for name in (each.city, *each.alternates))
    out = []
    for record in records:
        row = _valid_zip(us, record)
        stated = key_tokens(record.city or "")
        main = key_tokens(row.city) if row is not None else ()
        # the ZIP's main town spelled short ('Tyngsboro' for a stated 'Tyngsborough') is the same town
        spelt = bool(stated) and main != stated and " ".join(stated).startswith(" ".join(main))
        if row is None or not main or main == stated or (stated and (stated, row.state) in named and not spelt):
            out.append(record)
            continue
        out.append(replace(record, zip_towns=((" ".join(main), " ".join(w.capitalize() for w in main)),)))
    return out
