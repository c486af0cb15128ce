"""Independent gold reader for the HAARRRvest region sets (benchmarks/trace_sets/regions/<region>/records.json).

Like ``gold.py`` it never imports engine.directory. Town = the raw city with scraping debris removed ("45 Citronelle",
". Mobile", "NE Fort Walton Beach"), else the town written at the end of the street address, else the town of a
valid ZIP of the record's state; county = the county of that valid ZIP, else of the ZIP centroid nearest to the
record's own coordinates (every record here has them). Hours: the hours field (HTML opening-hours tables reduced to
"Day time" rows, "Closed" rows dropped) plus the notes/description text, read by ``gold.slots``.

The second batch (benchmarks/trace_sets/regions2, README there) is read by the same rules after ``_flat`` has put
each record's fields where the first batch has them: Southern Colorado's nested address/location and its
regular_schedule list (rendered "Tuesday 11 a.m. - 1 p.m."), Mercer's one-string address (town and ZIP at its end),
North Carolina's letter day codes ("M - F", "Tu & Th", "Sa") spelled out. Only for these regions, a record with no
town and no valid ZIP takes the town of the ZIP centroid nearest to its coordinates.
"""

from __future__ import annotations

import html
import json
import math
import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

import zipcodes

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import gold  # noqa: E402

STATES = {"gulf_coast": ("AL", "FL", "MS"), "western_mass": ("MA",), "nw_ohio": ("OH",),
          "nw_nc": ("NC",), "southern_co": ("CO",), "mercer_nj": ("NJ", "PA"),
          "western_wa": ("WA",), "sf_marin": ("CA",), "hawaii_island": ("HI",)}
SECOND = ("nw_nc", "southern_co", "mercer_nj")  # benchmarks/trace_sets/regions2
THIRD = ("western_wa", "sf_marin", "hawaii_island")  # benchmarks/trace_sets/regions3
_SF_DAY = re.compile(r"Distribution Day:\s*(\w+)")
# SF-Marin notes: the distribution and enrollment times repeat or sit beside the hours; only the rest is notes
_SF_TIMES = re.compile(r"(?:Distribution Day|Distribution Time|Enrollment Time):[^|]*\|?\s*")
_NC_DAY = {"M": "Monday", "T": "Tuesday", "Tu": "Tuesday", "W": "Wednesday", "Th": "Thursday", "F": "Friday",
           "Sa": "Saturday", "Su": "Sunday"}
_NC_CODE = re.compile(r"(?<![A-Za-z])(Su|Sa|Th|Tu|M|T|W|F)\.?(?![A-Za-z])")
_TAIL_ZIP = re.compile(r"\b(\d{5})(?:-\d{4})?\s*$")
_CODE = r"(?:TR|Tu|Th|Sa|Su|M|T|W|F)"
_CODE_LIST = re.compile(rf"(?<![A-Za-z.]){_CODE}(?:\s*[,/]\s*{_CODE})+(?![A-Za-z.])")  # Mercer: 'M, W, F', 'T/W/TR'
# '10:30-1 pm', '9:30-12pm', '11-2pm': the start is a morning time when reading it as pm would put it after the end
_PM_SPAN = re.compile(r"\b(\d{1,2})(:\d{2})?(\s*[-–]\s*)(\d{1,2})((?::\d{2})?\s*p\.?m)", re.I)


def _am_start(m: re.Match[str]) -> str:
    start, end = int(m.group(1)) % 12 + 12, int(m.group(4)) % 12 + 12 if int(m.group(4)) != 12 else 12
    am = "am" if start > end else ""
    return f"{m.group(1)}{m.group(2) or ''}{am}{m.group(3)}{m.group(4)}{m.group(5)}"


def _mercer_text(text: str) -> str:
    text = _CODE_LIST.sub(lambda m: ", ".join(_NC_DAY.get(c, "Thursday") for c in re.findall(_CODE, m.group(0))), text)
    return _PM_SPAN.sub(_am_start, text)
_DEBRIS = re.compile(r"^(?:[#.\d\s]+[A-Z]?\s+|\.\s*|(?:N|S|E|W|NE|NW|SE|SW)\.?\s+|unit \d+\s+|trail\s+)+", re.I)
_ROW = re.compile(r"<tr><td>(\w+)</td><td>(.*?)</td></tr>", re.S)
_EXCEPT = re.compile(r"\(?\bexcept (?:on )?(?:the )?\d(?:st|nd|rd|th) \w+(?: of the month)?\)?", re.I)
NOT_FOOD = re.compile(r"^(?:job|health resource|financial|home resource)|career|workforce", re.I)


def _zip_row(z: str | None, states: tuple[str, ...]) -> dict[str, str] | None:
    if not z or not re.fullmatch(r"\d{5}", z[:5]):
        return None
    hits = [h for h in zipcodes.matching(z[:5]) if h["state"] in states]
    return hits[0] if hits else None


@lru_cache(maxsize=8)
def _zip_table(states: tuple[str, ...]) -> list[tuple[float, float, str, str]]:
    return [(float(z["lat"]), float(z["long"]), z["county"], z["city"]) for s in states
            for z in zipcodes.filter_by(state=s) if z["zip_code_type"] == "STANDARD"]


def _nearest(lat: float, lon: float, states: tuple[str, ...]) -> tuple[str, str]:
    best = min(_zip_table(states), key=lambda t: (t[0] - lat) ** 2 + ((t[1] - lon) * math.cos(math.radians(lat))) ** 2)
    return best[2], best[3]


def _town_names(states: tuple[str, ...]) -> set[str]:
    rows = [z for s in states for z in zipcodes.filter_by(state=s)]
    return {c.lower() for z in rows for c in [z["city"], *(z.get("acceptable_cities") or [])]}


def clean_town(raw: str | None, address: str | None, states: tuple[str, ...]) -> str | None:
    towns = _town_names(states)
    city = _DEBRIS.sub("", (raw or "").replace("\u200b", "")).strip(" .,")
    city = re.sub(r"^(?:north|south|east|west)\s+(?=\w)", lambda m: m.group(0) if
                  _DEBRIS.sub("", (raw or "")).strip(" .,").lower() in towns else "", city, flags=re.I)
    city = re.sub(r"\bMt\.?\s", "Mount ", city)
    if city.lower() in towns:
        return city.title()
    for n in (3, 2, 1):  # town written at the end of the street address
        tail = " ".join((address or "").split()[-n:])
        if tail.lower() in towns and n <= len((address or "").split()) - 1:
            return tail.title()
    return None


def _hours_text(raw: str | None) -> str:
    text = raw or ""
    if "<table" in text:
        rows = [(d, re.sub(r"<[^>]+>", " ", t)) for d, t in _ROW.findall(text)]
        text = "; ".join(f"{d} {t.strip()}" for d, t in rows if not re.search(r"closed", t, re.I))
    return html.unescape(re.sub(r"<[^>]+>", " ", text)).strip()


def _flat(region: str, r: dict[str, Any]) -> dict[str, Any]:
    """A second-batch record with its fields under the first batch's keys (name, address, city, zip, latitude,
    longitude, hours, description, services)."""
    if region == "nw_nc":
        hours = re.sub(r"\bAppt\b\.?", "Appointment", r.get("hours") or "")  # '(Appt. Only)'
        return {**r, "hours": _NC_CODE.sub(lambda m: _NC_DAY[m.group(1)], hours)}
    if region == "southern_co":
        a, loc = r.get("address") or {}, r.get("location") or {}
        rows = [f"{s['weekday']} {s['opens_at']} - {s['closes_at']}" for s in r.get("regular_schedule") or []]
        return {"name": r["name"], "address": a.get("address_1"), "city": a.get("city"), "zip": a.get("postal_code"),
                "latitude": loc.get("latitude"), "longitude": loc.get("longitude"), "hours": "; ".join(rows),
                "description": " | ".join(x for x in (r.get("description"), r.get("alternate_name")) if x)}
    if region == "western_wa":  # no hours, no notes; the ZIP only at the end of full_address ('..., WA, 98122')
        z = _TAIL_ZIP.search(str(r.get("full_address") or ""))
        return {**r, "zip": z.group(1) if z else None, "hours": "", "description": ""}
    if region == "sf_marin":  # hours '8:30 am - 10:30 am' carry no day: the day is 'Distribution Day: Saturday'
        notes = str(r.get("notes") or "")
        day = _SF_DAY.search(notes)
        rest = _SF_TIMES.sub("", notes).strip(" |")
        if r.get("enrollment_required"):
            rest = (rest + " | Enrollment required").strip(" |")
        return {**r, "hours": f"{day.group(1) if day else ''} {r.get('hours') or ''}".strip(), "notes": "",
                "description": rest}
    if region == "hawaii_island":  # every hours text starts with a stray 'Monday:' (the scraped table's label)
        hours = " ".join(re.sub(r"^\s*Monday:\s*", "", str(r.get("hours") or "")).split())
        return {**r, "hours": hours, "description": ""}
    if region == "mercer_nj":  # '29 E. Paul Avenue Trenton, NJ 08638': town before the comma, ZIP at the end
        full = " ".join(str(r.get("address") or "").split())
        z = _TAIL_ZIP.search(full)
        return {**r, "address": full.rsplit(",", 1)[0], "city": None, "zip": z.group(1) if z else None,
                "hours": "", "description": _mercer_text(str(r.get("description") or ""))}
    return r


def _folder(region: str) -> Path:
    if region in THIRD:
        return HERE.parent / "regions3" / region
    return HERE.parent / "regions2" / region if region in SECOND else HERE / region


@lru_cache(maxsize=8)
def load(region: str) -> tuple[gold.Rec, ...]:
    states = STATES[region]
    records = json.loads((_folder(region) / "records.json").read_text(encoding="utf-8"))
    out = []
    for i, raw in enumerate(records):
        r = _flat(region, raw) if region in SECOND + THIRD else raw
        row = _zip_row(str(r.get("zip") or ""), states)
        town = clean_town(r.get("city"), r.get("address"), states)
        if town is None and row is not None:
            town = row["city"].title()
        lat, lon = r.get("latitude"), r.get("longitude")
        if town is None and region in SECOND + THIRD and lat is not None and lon is not None:
            town = _nearest(float(lat), float(lon), states)[1].title()
        if row is not None:
            county = row["county"]
        elif lat is not None and lon is not None:
            county = _nearest(float(lat), float(lon), states)[0]
        else:
            county = ""
        hours = _hours_text(r.get("hours"))
        notes = html.unescape(" | ".join(str(r.get(k) or "") for k in ("notes", "description")))
        notes = _EXCEPT.sub("", notes)  # gold fix after the first run: 'Wednesdays (except 5th Wednesday ...)'
        hours = _EXCEPT.sub("", hours)
        services = "; ".join(r.get("services") or [])
        out.append(gold.Rec(i, html.unescape(r["name"]), town, (county.replace(" County", ""),),
                            (row["zip_code"] if row else None), float(lat) if lat is not None else None,
                            float(lon) if lon is not None else None, hours,
                            " | ".join([hours, notes, services]), frozenset()))
    return tuple(out)


def raw_state(region: str, index: int) -> str:
    rec = load(region)[index]
    row = _zip_row(rec.zip, STATES[region])
    if row is not None:
        return row["state"]
    return STATES[region][0] if len(STATES[region]) == 1 else ""


# ------------------------------------------------------------------ facts beyond gold.needs
_APPT = re.compile(r"appointment|call to (?:register|schedule)|must call|register", re.I)
_NO_APPT = re.compile(r"no appointment|walk[- ]?ins? (?:are )?welcome|first come,? first serve|"
                      r"no eligibility requirements", re.I)


def fact(rec: gold.Rec, what: str) -> bool:
    text = rec.name + " | " + rec.text
    if what == "appointment":  # an appointment / registration is required (not merely possible)
        if re.search(r"also available by appointment|as well as by appointment|appointments? available|"
                     r"and by appointment|or by appointment|by appointment (?:on|from)|outside (?:of )?(?:these|the)",
                     text, re.I) and not re.search(r"by appointment only|appointment only|make an appointment|"
                                                   r"must (?:call|make)|call to (?:register|schedule)|requires "
                                                   r"registration|registration is required", text, re.I):
            return False
        text = re.sub(r"registered students?", "students", text, flags=re.I)  # enrolment, not a booking
        return bool(_APPT.search(text)) and not _NO_APPT.search(text)
    if what == "walk_in":
        return bool(_NO_APPT.search(text))
    if what == "children":  # an organisation called "Family & Children's Service" is not a programme for kids
        text = re.sub(r"famil(?:y|ies) (?:&|and) children.s services?", "", text, flags=re.I)
        return bool(re.search(r"children|kids?\b|18 and younger|under 18|youth", text, re.I))
    if what == "veteran":
        return bool(re.search(r"veteran|\bvets?\b", text, re.I))
    if what == "mobile":
        return bool(re.search(r"mobile (?:food bank|pantry|market)", text, re.I))
    if what == "delivery":
        return bool(re.search(r"deliver", text, re.I))
    if what == "residency_only":  # served only residents of named places / ZIPs
        return bool(re.search(r"residents? (?:of|in)|serves? (?:only )?(?:residents|\d{5})|only serv|serving only|"
                              r"serving (?:neighbors|clients) (?:in|for)|serve only|for eligible residents|"
                              r"residents only", text, re.I))
    if what == "county_residents":  # second batch: served only to the residents of a county
        return bool(re.search(r"residents? of [\w ]{0,20}county|(?:to|for) [\w ]{0,20}county residents|"
                              r"county residents? only", text, re.I))
    if what == "voucher":  # second batch: a referral voucher is required
        return bool(re.search(r"voucher", text, re.I))
    if what == "kids":  # second batch: children, also as school pupils ('students in the Princeton Public Schools')
        return fact(rec, "children") or bool(re.search(r"students? (?:in|of|at) (?:the )?[\w ]{0,30}schools?\b|"
                                                        r"school[- ]?(?:age|children)", text, re.I))
    if what == "meal_site":  # second batch: a place serving meals, named by the meal ('Dinner served Wed.')
        return fact(rec, "soup_kitchen") or gold.needs(rec, "meals") or bool(re.search(
            r"\b(?:dinner|lunch|breakfast|supper)\b|sit[- ]down meals?|distributing meals", text, re.I))
    if what == "meal_program":  # third batch: a meal programme or soup kitchen (Food Lifeline's 'Meal Programs')
        return fact(rec, "soup_kitchen") or bool(re.search(r"meal programs?", text, re.I))
    if what == "enrollment":  # third batch: SF-Marin's enrollment_required flag, written into the notes by _flat
        return bool(re.search(r"enrollment required", text, re.I))
    if what == "soup_kitchen":
        return bool(re.search(r"soup kitchen|meal ?site|hot meal|mealsite", text, re.I))
    return gold.needs(rec, what)


def is_food(rec: gold.Rec) -> bool | None:
    """False for job/health/money/home resources; None (undecidable) for shelters; else gold.is_food."""
    if NOT_FOOD.search(rec.name) or NOT_FOOD.search(rec.text[:200]):
        return False
    if re.search(r"\bshelter\b", rec.text, re.I) and not re.search(r"food|pantry|meal|kitchen", rec.text, re.I):
        return None
    return gold.is_food(rec)
