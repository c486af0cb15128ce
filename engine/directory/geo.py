"""US places and ZIP codes with coordinates from the packaged offline ``zipcodes`` source (no network, ever).

Built once per machine and zipcodes version (``engine.directory.geo_cache`` keeps it on disk), loaded once per
process. A place's point is the mean of its ZIP centroids (standard ZIPs when it has any); a
record's point is its ZIP centroid, else its town's point. Distances are great-circle miles.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import zipcodes

from engine.directory.normalize import key_tokens

EARTH_MILES = 3958.8
Point = tuple[float, float]


@dataclass(frozen=True, slots=True)  # 42,789 of them per process
class ZipRow:
    zip: str
    city: str
    state: str
    county: str
    point: Point
    standard: bool
    alternates: tuple[str, ...]
    timezone: str  # acceptable and unacceptable alternate names ('University Of Kansas')


@dataclass
class UsPlaces:
    zips: dict[str, ZipRow] = field(default_factory=dict)
    towns: dict[tuple[tuple[str, ...], str], Point] = field(default_factory=dict)  # (town key, state) -> point
    town_states: dict[tuple[str, ...], set[str]] = field(default_factory=dict)  # town key -> states having it


def build_us_places() -> UsPlaces:
    """The table from the packaged source (1.5-3 s); ``engine.directory.geo_cache.us_places`` keeps it on disk."""
    places = UsPlaces()
    sums: dict[tuple[tuple[str, ...], str], list[tuple[Point, bool]]] = {}
    # filter_by() with no filter: every row, in the same order as list_all(), but as a list this call owns.
    # list_all() keeps its 42,789 dicts in the module for the life of the process (~100 MB per worker)
    # though only the rows below are ever read.
    keys: dict[str, tuple[str, ...]] = {}  # 42,000 ZIPs name about 19,000 towns: each town's key made once
    for row in zipcodes.filter_by():  # type: ignore[no-untyped-call]
        try:
            point = (float(row["lat"]), float(row["long"]))
        except (TypeError, ValueError):
            continue
        z = ZipRow(row["zip_code"], row["city"], row["state"], row.get("county") or "", point,
                   row["zip_code_type"] == "STANDARD",
                   tuple(row.get("acceptable_cities") or []) + tuple(row.get("unacceptable_cities") or []),
                   row.get("timezone") or "")
        places.zips[z.zip] = z
        key = keys.get(z.city)
        if key is None:
            key = keys[z.city] = key_tokens(z.city)
        sums.setdefault((key, z.state), []).append((point, z.standard))
        places.town_states.setdefault(key, set()).add(z.state)
    for town, points in sums.items():
        chosen = [p for p, standard in points if standard] or [p for p, _ in points]
        places.towns[town] = (sum(p[0] for p in chosen) / len(chosen), sum(p[1] for p in chosen) / len(chosen))
    return places


def miles(a: Point, b: Point) -> float:
    la1, lo1, la2, lo2 = map(math.radians, (*a, *b))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return EARTH_MILES * 2 * math.asin(min(1.0, math.sqrt(h)))
