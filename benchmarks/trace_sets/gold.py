"""Independent raw-field reader and gold checker for the natural-language TRACE query sets.

Deliberately does not import engine.directory: it reads the raw directory files itself with its own simple,
conservative rules (city, county, ZIP, coordinates, hours, requirements, service type), so the scores are not
computed by the code under test. Coordinates: the record's own latitude/longitude when it has valid ones, else
the centroid of its ZIP from the offline ``zipcodes`` package.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import zipcodes

DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_DAY = (r"(mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday|s)?|thu(?:r(?:s(?:day)?)?)?|fri(?:day)?|sat(?:urday)?|"
        r"sun(?:day)?)s?\b")
_RANGE = re.compile(r"\b" + _DAY + r"\s*(?:-|–|through|thru|to)\s*" + _DAY, re.I)
_ONE = re.compile(r"\b" + _DAY, re.I)
_T = r"(\d{1,2})(?::(\d{2}))?(?::\d{2})?\s*([ap])?\.?\s*m?\.?"
_SPAN = re.compile(r"(?<![\d/])" + _T + r"\s*(?:-|–|to|until)\s*" + _T, re.I)
# '10:00AM 12:00PM', '10am 12noon': two clock times side by side, the first with am/pm
_SPAN_SPACE = re.compile(r"(?<![\d/:])(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\.?\s+(\d{1,2})(?::(\d{2}))?\s*"
                         r"(?:([ap])\.?m\.?|noon)", re.I)
_ORD = re.compile(r"\b(1st|2nd|3rd|4th|5th|first|second|third|fourth|fifth|last)\b", re.I)
_ORDN = {"1st": 1, "first": 1, "2nd": 2, "second": 2, "3rd": 3, "third": 3, "4th": 4, "fourth": 4,
         "5th": 5, "fifth": 5, "last": -1}
NONFOOD = re.compile(r"hygiene|clothing|closet|diaper", re.I)
FOOD_WORD = re.compile(r"food|pantry|meal|grocer", re.I)


@dataclass(frozen=True)
class Rec:
    index: int
    name: str
    city: str | None
    counties: tuple[str, ...]
    zip: str | None
    lat: float | None
    lon: float | None
    hours: str  # hours field
    text: str  # hours + notes + services (every free-text field except the name)
    tags: frozenset[str]


def data_root() -> Path:
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent.parent / "shared" / "data" / "directories"
        if candidate.is_dir():
            return candidate
    raise SystemExit("shared directories not found (expected ../shared/data/directories)")


def _zip_point(z: str | None) -> tuple[float | None, float | None]:
    if not z:
        return None, None
    hits = zipcodes.matching(z[:5]) if re.fullmatch(r"\d{5}", z[:5]) else []
    if not hits:
        return None, None
    return float(hits[0]["lat"]), float(hits[0]["long"])


def _ks_city(addr: str) -> tuple[str | None, str | None]:
    """City = the last comma-separated piece before 'KS' or the ZIP; ZIP = the last 66xxx/67xxx."""
    zips = list(re.finditer(r"\b(6[67]\d{3})(?:-\d{4})?\b", addr))
    ks = list(re.finditer(r"\b(?:KS|Kansas)\b", addr))
    cut = min([m.start() for m in zips[-1:]] + [m.start() for m in ks[-1:]] or [-1])
    if cut < 0:
        return None, None
    head = addr[:cut].strip(" ,.")
    piece = head.split(",")[-1].strip()
    z = zips[-1].group(1) if zips else None
    if piece and re.search(r"\d", piece) and z:  # no comma before the city: the ZIP's town written at the end
        hit = zipcodes.matching(z)
        town = hit[0]["city"] if hit else ""
        piece = town if town and piece.lower().endswith(town.lower()) else ""
    city = piece.title() if piece and not re.search(r"\d", piece) and len(piece) < 30 else None
    return city, z


def _clean(s: str | None) -> str:
    return html.unescape(s or "").strip()


@lru_cache(maxsize=8)
def load(directory: str) -> tuple[Rec, ...]:
    root = data_root()
    out: list[Rec] = []
    if directory == "kansas":
        main = json.loads((root / "kansas/pantry_data.json").read_text())
        side = json.loads((root / "kansas/KS_Food_pantry_with_tags_flat_latlon.json").read_text())
        for i, (r, s) in enumerate(zip(main, side, strict=True)):
            addr = r["address"] or ""
            city, z = _ks_city(addr)
            lat, lon = s.get("latitude"), s.get("longitude")
            if lat is None or (abs(lat - 38.5) < 1e-6 and abs(lon + 98.0) < 1e-6):
                lat, lon = _zip_point(z)
            hours = "" if r["raw_hours"] == "Not available" else (r["raw_hours"] or "")
            out.append(Rec(i, r["pantry_name"], city, (r["county"].replace(", Kansas", "").strip(),), z, lat, lon,
                           hours, hours + " | " + _clean(s.get("other_info")),
                           frozenset((r.get("tags") or []) + (s.get("requirement_tags") or []))))
    elif directory == "sv":
        sv = json.loads((root / "haarrrvest/second_harvest_of_silicon_valley_ca_raw.json").read_text())
        for i, r in enumerate(sv):
            out.append(Rec(i, r["name"], (r["city"] or "").title() or None, (r["county"],), r["zip"] or None,
                           r["latitude"], r["longitude"], r["hours"] or "",
                           " | ".join([r["hours"] or "", r["notes"] or "", "; ".join(r["services"])]), frozenset()))
    elif directory == "ny":
        for i, r in enumerate(json.loads((root / "haarrrvest/the_food_pantries_org_raw.json").read_text())):
            lat = float(r["Latitude"]) if r.get("Latitude") else None
            lon = float(r["Longitude"]) if r.get("Longitude") else None
            hours = _clean(r["Hours_of_Operation"])
            out.append(Rec(i, _clean(r["Name"]), (r["City"] or "").strip().title() or None,
                           tuple(c.strip() for c in r["Counties"]), (r["Zip"] or "")[:5] or None, lat, lon, hours,
                           hours + " | " + _clean(r["More_Information"]), frozenset()))
    elif directory == "dc":
        for i, r in enumerate(json.loads((root / "haarrrvest/capital_area_food_bank_dc_raw.json").read_text())):
            x, y = r.get("longitude"), r.get("latitude")
            lat = lon = None
            if x is not None and y is not None:  # web-mercator metres
                lon = x / 6378137.0 * 180 / math.pi
                lat = math.degrees(math.atan(math.sinh(y / 6378137.0)))
            county = re.sub(r"^(MD|VA|DC)\s+", "", r["county"] or "")
            out.append(Rec(i, r["name"], (r["city"] or "").strip().title() or None, (county,), r["zip"] or None,
                           lat, lon, r["hours"] or "", (r["hours"] or "") + " | " + (r["notes"] or ""),
                           frozenset({"tefap_site"} if r["tefap"] in ("TEFAP Available", "TEFAP Only") else set())))
    else:
        raise SystemExit(f"unknown directory {directory}")
    return tuple(out)


# ------------------------------------------------------------------ geography
def miles(a: tuple[float, float], b: tuple[float, float]) -> float:
    la1, lo1, la2, lo2 = map(math.radians, (*a, *b))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return 3958.8 * 2 * math.asin(math.sqrt(h))


def place_point(city: str, state: str) -> tuple[float, float]:
    """Mean of the standard ZIP centroids of a town (or the ZIP itself)."""
    if re.fullmatch(r"\d{5}", city):
        lat, lon = _zip_point(city)
        assert lat is not None and lon is not None, city
        return lat, lon
    rows = [z for z in zipcodes.filter_by(city=city, state=state) if z["zip_code_type"] == "STANDARD"]
    rows = rows or zipcodes.filter_by(city=city, state=state)
    assert rows, (city, state)
    return (sum(float(z["lat"]) for z in rows) / len(rows), sum(float(z["long"]) for z in rows) / len(rows))


def point(rec: Rec) -> tuple[float, float] | None:
    return (rec.lat, rec.lon) if rec.lat is not None and rec.lon is not None else None


# ------------------------------------------------------------------ hours
def _hour(h: str, m: str | None, ap: str | None, other: str | None) -> float:
    if int(h) > 12:  # 24-hour clock
        return int(h) + (int(m) if m else 0) / 60
    value = int(h) % 12 + (int(m) if m else 0) / 60
    ap = (ap or other or "").lower()
    if ap == "p" or (not ap and 1 <= int(h) <= 6):
        value += 12
    if int(h) == 12 and ap != "a":
        value = 12 + (int(m) if m else 0) / 60
    return value


def _day_set(segment: str) -> set[int]:
    days: set[int] = set()
    for a, b in ((m.group(1), m.group(2)) for m in _RANGE.finditer(segment)):
        i, j = _idx(a), _idx(b)
        k = i
        while True:
            days.add(k)
            if k == j:
                break
            k = (k + 1) % 7
    for m in _ONE.finditer(segment):
        days.add(_idx(m.group(1)))
    return days


def _idx(token: str) -> int:
    return next(i for i, d in enumerate(DAYS) if d.startswith(token.lower()[:3]))


@dataclass(frozen=True)
class Slot:
    day: int
    start: float | None
    end: float | None
    ordinals: tuple[int, ...]  # () = every week


def slots(text: str) -> list[Slot]:
    """Day/time slots read left to right: time spans bind to the day group written before them; a day or an
    ordinal written after a span starts a new group."""
    if re.search(r"24/7|open 24 hours", text, re.I):
        return [Slot(d, 0.0, 24.0, ()) for d in range(7)]
    text = re.sub(r"\b(?:7 days a week|every day|open daily)\b", "monday-sunday", text, flags=re.I)
    tokens: list[tuple[int, int, str, object]] = []
    taken: list[tuple[int, int]] = []
    for m in _RANGE.finditer(text):
        tokens.append((m.start(), m.end(), "days", _day_set(m.group(0))))
        taken.append((m.start(), m.end()))
    for m in _ONE.finditer(text):
        if not any(a <= m.start() < b for a, b in taken):
            tokens.append((m.start(), m.end(), "days", {_idx(m.group(1))}))
    for m in _SPAN.finditer(text):
        start = _hour(m.group(1), m.group(2), m.group(3), m.group(6))
        end = _hour(m.group(4), m.group(5), m.group(6), None)
        if end < start and not m.group(6):
            end += 12
        if 0 <= start <= 24 and 0 <= end <= 24 and not re.match(r"[-/]?\d", text[m.end():m.end() + 2]):
            tokens.append((m.start(), m.end(), "span", (start, end)))
    for m in _SPAN_SPACE.finditer(text):
        start = _hour(m.group(1), m.group(2), m.group(3), None)
        end = _hour(m.group(4), m.group(5), m.group(6) or "p", None)
        if not any(a <= m.start() < b for a, b, kind, _ in tokens if kind == "span") and start < end:
            tokens.append((m.start(), m.end(), "span", (start, end)))
    for m in _ORD.finditer(text):
        tokens.append((m.start(), m.end(), "ord", _ORDN[m.group(1).lower()]))
    tokens.sort(key=lambda t: t[0])
    out: list[Slot] = []
    days: set[int] = set()
    ords: set[int] = set()
    used = False
    closed = re.compile(r"closed\s*(?:on\s*)?$", re.I)
    for start_pos, _end, kind, value in tokens:
        if kind in ("days", "ord") and used:
            days, ords, used = set(), set(), False
        if kind == "days":
            if closed.search(text[max(0, start_pos - 12):start_pos]):
                continue
            days |= value  # type: ignore[operator]
        elif kind == "ord":
            ords.add(value)  # type: ignore[arg-type]
        elif days:
            a, b = value  # type: ignore[misc]
            out.extend(Slot(d, a, b, tuple(sorted(ords))) for d in sorted(days))
            used = True
    if days and not used:
        out.extend(Slot(d, None, None, tuple(sorted(ords))) for d in sorted(days))
    return out


def opens_day(rec: Rec, day: int, date: dt.date | None = None) -> bool | None:
    """True / False / None (undecidable: only monthly with unknown ordinal)."""
    found = [s for s in slots(rec.text) if s.day == day]
    if not found:
        return False
    if date is None or any(not s.ordinals for s in found):
        return True
    nth = (date.day - 1) // 7 + 1
    last = (date + dt.timedelta(days=7)).month != date.month
    return any(nth in s.ordinals or (-1 in s.ordinals and last) for s in found)


def open_between(rec: Rec, day: int | None, after: float | None, before: float | None,
                 date: dt.date | None = None) -> bool | None:
    """Open some time on that day (any day if None) ending after ``after`` / starting before ``before``.
    None = the day is open but times are unknown."""
    found = [s for s in slots(rec.text) if day is None or s.day == day]
    if date is not None:
        nth = (date.day - 1) // 7 + 1
        found = [s for s in found if not s.ordinals or nth in s.ordinals]
    if not found:
        return False
    timed = [s for s in found if s.start is not None and s.end is not None]
    ok = [s for s in timed if (after is None or s.end > after) and (before is None or s.start < before)]  # type: ignore[operator]
    if ok:
        return True
    return None if len(timed) < len(found) else False


# ------------------------------------------------------------------ requirements / service
NO_ID = re.compile(r"no (?:photo )?id\b|id (?:is )?not (?:required|needed)|without (?:an )?id|no documents required|"
                   r"no documentation|no id or|not required to (?:show|provide)", re.I)
ID_REQ = re.compile(r"(?<!no )(?<!no photo )\b(?:photo )?id (?:is )?required|must (?:provide|bring|show)[^.|]*\bid\b|"
                    r"bring (?:a |your )?(?:photo )?id", re.I)
RESIDENCY = re.compile(r"proof of (?:residency|address)|residents? (?:of|only)|must (?:live|reside)|only residents",
                       re.I)
STUDENT = re.compile(r"student", re.I)
SENIOR = re.compile(r"senior|ages? 6\d\+|60\+|55\+|elderly", re.I)


def needs(rec: Rec, what: str) -> bool:
    text = rec.name + " | " + rec.text
    if what == "no_id":
        return "no_id_required" in rec.tags or bool(NO_ID.search(text))
    if what == "id_required":
        required = "id_required" in rec.tags or "gov_id" in rec.tags or bool(ID_REQ.search(text))
        return required and not needs(rec, "no_id")
    if what == "residency":
        return "residency_proof" in rec.tags or "residency_required" in rec.tags or bool(RESIDENCY.search(text))
    if what == "student":
        return "student_only" in rec.tags or bool(STUDENT.search(text))
    if what == "senior":
        return bool(SENIOR.search(text))
    if what == "tefap":
        return "tefap_site" in rec.tags or "tefap" in text.lower()
    if what == "hygiene":
        return bool(re.search(r"hygiene", text, re.I))
    if what == "meals":
        return bool(re.search(r"ready-to-eat meals|hot (?:lunch|meal)|soup kitchen|meals? served|daily meals|"
                              r"free (?:breakfast|lunch|dinner|meal)|(?:breakfast|lunch|dinner)[^.|]{0,80}served",
                              text, re.I))
    if what == "drive_thru":
        return bool(re.search(r"drive[- ]?(?:thru|through)", text, re.I))
    raise ValueError(what)


def is_food(rec: Rec) -> bool:
    """Food service unless the name says hygiene/diapers, or clothing/closet without food or pantry."""
    if re.search(r"hygiene|diaper", rec.name, re.I):
        return False
    return not (re.search(r"clothing|closet", rec.name, re.I) and not re.search(r"food|pantry", rec.name, re.I))
