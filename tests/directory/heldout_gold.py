"""Independent gold and constraint checker for the held-out TRACE query file.

Deliberately does not import engine.directory: it reads the raw directory JSON fields itself with
its own (simple, conservative) city/ZIP/hours/eligibility rules, so the held-out scores are not
computed by the code under test. A check that cannot decide returns None ("unverifiable").

    python -m tests.directory.heldout_gold --fill   # recompute "gold" in heldout_queries.json
    python -m tests.directory.heldout_gold --fill --round 2   # same for heldout_queries_2.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import html
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
QUERIES = HERE / "heldout_queries.json"
QUERIES_2 = HERE / "heldout_queries_2.json"  # second round: Silicon Valley ("sv") and DC ("dc")

DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_DAY_RE = (
    r"(mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday|s)?|thu(?:r(?:s(?:day)?)?)?|"
    r"fri(?:day)?|sat(?:urday)?|sun(?:day)?)s?\b"
)
_RANGE_RE = re.compile(_DAY_RE + r"\s*(?:-|–|through|thru|to)\s*" + _DAY_RE, re.I)
_ONE_DAY_RE = re.compile(r"\b" + _DAY_RE, re.I)
_TIME = r"(\d{1,2})(?::(\d{2}))?(?::\d{2})?\s*([ap])?\.?\s*m?\.?"
_SPAN_RE = re.compile(r"\b" + _TIME + r"\s*(?:-|–|to|until|\s)\s*" + _TIME, re.I)
_ORDINAL_RE = re.compile(
    r"\b(1st|2nd|3rd|4th|5th|first|second|third|fourth|fifth|last|twice|2x|one|every other|"
    r"biweekly|monthly)\b",
    re.I,
)
_ORD_NUM = {"1st": 1, "first": 1, "2nd": 2, "second": 2, "3rd": 3, "third": 3, "4th": 4,
            "fourth": 4, "5th": 5, "fifth": 5}


def _day_index(token: str) -> int:
    return DAYS.index(next(d for d in DAYS if d.startswith(token.lower()[:3])))


@dataclass(frozen=True)
class Record:
    index: int
    name: str
    address: str
    city: str | None
    county: str
    zip: str | None
    hours: str
    text: str  # name + address + hours + notes, for eligibility checks
    tags: frozenset[str]
    state: str | None = None


def load(directory: str) -> list[Record]:
    """Read the raw directory file for 'kansas', 'ny', 'sv' or 'dc' into plain records."""
    root = _data_root()
    if directory in {"sv", "dc"}:
        return _load_haarrrvest(root, directory)
    if directory == "kansas":
        main = json.loads((root / "kansas" / "pantry_data.json").read_text())
        side = json.loads((root / "kansas" / "KS_Food_pantry_with_tags_flat_latlon.json").read_text())
        out = []
        for i, (r, s) in enumerate(zip(main, side, strict=True)):
            addr = r["address"] or ""
            zips = re.findall(r"\b(6[67]\d{3})\b", addr)
            notes = s.get("other_info") or ""
            tags = set(r.get("tags") or []) | set(s.get("requirement_tags") or [])
            out.append(Record(i, r["pantry_name"], addr, None,
                              r["county"].replace(", Kansas", ""), zips[-1] if zips else None,
                              r["raw_hours"] or "", " | ".join([r["pantry_name"], addr,
                                                               r["raw_hours"] or "", notes]),
                              frozenset(tags)))
        return out
    raw = json.loads((root / "haarrrvest" / "the_food_pantries_org_raw.json").read_text())
    out = []
    for i, r in enumerate(raw):
        name = html.unescape(r["Name"])
        hours = (r["Hours_of_Operation"] or "").replace("\\n", "\n")
        notes = html.unescape(r["More_Information"] or "")
        out.append(Record(i, name, r["Address"] or "", (r["City"] or "").strip(),
                          " / ".join(c + " County" for c in r["Counties"]), (r["Zip"] or "")[:5],
                          hours, " | ".join([name, r["Address"] or "", hours, notes]),
                          frozenset()))
    return out


_HAARRRVEST = {"sv": "second_harvest_of_silicon_valley_ca_raw.json",
               "dc": "capital_area_food_bank_dc_raw.json"}


def _load_haarrrvest(root: Path, directory: str) -> list[Record]:
    """Silicon Valley / Capital Area rows share one raw shape (name, city, county, services...)."""
    raw = json.loads((root / "haarrrvest" / _HAARRRVEST[directory]).read_text())
    out = []
    for i, r in enumerate(raw):
        services = [str(s) for s in r.get("services") or []]
        tags: set[str] = set()
        if any(s.lower() == "no documents required" for s in services):
            tags.add("no_id_required")
        if re.fullmatch(r"TEFAP (Available|Only)", r.get("tefap") or ""):
            tags.add("tefap_site")
        county = (r.get("county") or "").strip()
        # SV: 'Santa Clara' -> 'Santa Clara County'; DC: 'MD Prince George's County' -> "Prince George's County".
        county = county + " County" if directory == "sv" else re.sub(r"^(MD|VA|DC)\s+", "", county)
        city = re.sub(r",?\s+(DC|D\.C\.)$", "", (r.get("city") or "").strip(), flags=re.I)
        text = " | ".join([r["name"], r.get("address") or "", r.get("hours") or "",
                           r.get("notes") or "", ", ".join(services)])
        out.append(Record(i, r["name"], r.get("address") or "", city, county,
                          (r.get("zip") or "")[:5] or None, r.get("hours") or "", text,
                          frozenset(tags), (r.get("state") or "").strip().upper() or None))
    return out


def _data_root() -> Path:
    for cand in (Path("/work/shared/data/directories"),
                 HERE.parents[2] / "shared" / "data" / "directories"):
        if cand.is_dir():
            return cand
    raise FileNotFoundError("shared directories not found")


# --- location -----------------------------------------------------------------------------

def in_city(rec: Record, city: str) -> bool:
    if rec.city is not None:
        return rec.city.lower() == city.lower()
    pat = r"\b" + re.escape(city) + r"\b[,.]?\s*(ks\b|kansas\b|\d{5})"
    return re.search(pat, rec.address, re.I) is not None


def in_county(rec: Record, county: str) -> bool:
    names = [c.strip().lower() for c in rec.county.split("/")]
    return county.lower() in names


# --- hours ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class DaySlot:
    day: int
    ordinals: frozenset[str]  # empty = every week
    spans: tuple[tuple[float, float], ...]  # empty = time unknown


def _hour(h: str, m: str | None, ap: str | None, other_ap: str | None) -> float:
    v = int(h) % 12 if (ap or other_ap) else int(h)
    ampm = (ap or other_ap or "").lower()
    if ampm == "p" or (not ampm and 1 <= v <= 6):
        v += 12
    return v + (int(m) / 60 if m else 0)


def _spans(text: str) -> list[tuple[float, float]]:
    out = []
    for m in _SPAN_RE.finditer(text):
        h1, m1, a1, h2, m2, a2 = m.groups()
        if not (a1 or a2 or m1 or m2):
            continue
        if int(h1) > 24 or int(h2) > 24:
            continue
        end = _hour(h2, m2, a2, None if a2 else a1)
        start = _hour(h1, m1, a1, None if a1 else (a2 if int(h1) <= int(h2) else None))
        if a2 and a2.lower() == "p" and not a1 and start + 12 <= end:
            start += 12
        if end <= start:
            if end + 12 > start and end < 12:
                end += 12
            else:
                continue
        out.append((start, end))
    return out


def parse_hours(text: str) -> list[DaySlot]:
    """Day slots: each day group takes the ordinal words just before it and the time spans after it."""
    marks: list[tuple[int, int, list[int]]] = []
    taken: list[tuple[int, int]] = []
    for m in _RANGE_RE.finditer(text):
        a, b = _day_index(m.group(1)), _day_index(m.group(2))
        days = [(a + k) % 7 for k in range(((b - a) % 7) + 1)]
        marks.append((m.start(), m.end(), days))
        taken.append((m.start(), m.end()))
    for m in _ONE_DAY_RE.finditer(text):
        if any(s <= m.start() < e for s, e in taken):
            continue
        tok = m.group(1).lower()
        if tok in {"sun", "sat", "wed", "mon"} and text[m.start():m.end() + 1][-1:].isalpha():
            continue
        marks.append((m.start(), m.end(), [_day_index(tok)]))
    marks.sort()
    slots: list[DaySlot] = []
    prev_end = 0
    for k, (start, end, days) in enumerate(marks):
        nxt = marks[k + 1][0] if k + 1 < len(marks) else len(text)
        before = text[prev_end:start]
        ords = frozenset(o.lower() for o in _ORDINAL_RE.findall(before))
        between = text[end:nxt]
        spans = tuple(_spans(between))
        slots.append(DaySlot(-1, ords, spans) if False else DaySlot(0, ords, spans))
        slots[-1] = DaySlot(days[0], ords, spans)
        for extra in days[1:]:
            slots.append(DaySlot(extra, ords, spans))
        prev_end = end
    # A group like "Mon, Wed, Fri 11-1": days without spans borrow the next day's spans.
    fixed: list[DaySlot] = []
    for i, s in enumerate(slots):
        spans = s.spans
        j = i
        while not spans and j + 1 < len(slots):
            j += 1
            spans = slots[j].spans
            if slots[j].ordinals != s.ordinals:
                spans = ()
                break
        fixed.append(DaySlot(s.day, s.ordinals, spans))
    return fixed


def open_on_weekday(rec: Record, day: int) -> bool:
    if re.search(r"24/7|7 days a week|every day|daily", rec.hours, re.I):
        return True
    return any(s.day == day for s in parse_hours(rec.hours))


def open_on_date(rec: Record, date: dt.date) -> bool | None:
    """True/False when decidable from the ordinal words, None when the pattern is ambiguous."""
    slots = [s for s in parse_hours(rec.hours) if s.day == date.weekday()]
    if not slots:
        return False
    nth = (date.day - 1) // 7 + 1
    last = (date + dt.timedelta(days=7)).month != date.month
    verdicts: list[bool | None] = []
    for s in slots:
        if not s.ordinals:
            verdicts.append(True)
            continue
        nums = {_ORD_NUM[o] for o in s.ordinals if o in _ORD_NUM}
        if s.ordinals - set(_ORD_NUM) - {"last"}:
            verdicts.append(None)
        elif nth in nums or ("last" in s.ordinals and last):
            verdicts.append(True)
        else:
            verdicts.append(False)
    if True in verdicts:
        return True
    return None if None in verdicts else False


def time_ok(rec: Record, day: int, after: float | None, before: float | None) -> bool | None:
    """Open on that weekday in a span ending after `after` / starting before `before`."""
    if re.search(r"24/7|24 hours", rec.hours, re.I):
        return True
    slots = [s for s in parse_hours(rec.hours) if s.day == day]
    if not slots:
        return False
    unknown = False
    for s in slots:
        if not s.spans:
            unknown = True
        for a, b in s.spans:
            if (after is None or b > after) and (before is None or a < before):
                return True
    return None if unknown else False


def time_any_day(rec: Record, after: float | None, before: float | None) -> bool | None:
    results = [time_ok(rec, d, after, before) for d in range(7)]
    if True in results:
        return True
    return None if None in results else False


# --- eligibility -------------------------------------------------------------------------------

ELIGIBILITY = {
    "student": r"student|universit|(community|technical|state) college",
    "senior": r"senior|elderly|\b(55|60|62)\s*(\+|and (older|over)|or older|years)",
    "no_id": r"no (photo )?id\b|id (is )?not (required|needed)|without (an )?id|no identification",
    "tefap": r"tefap",
    "appointment": r"appointment|\bappt",
    "no_proof_address": r"no proof|proof of (address|residency) (is )?not",
}
TAGS = {"student": {"student_only"}, "no_id": {"no_id_required"}, "tefap": {"tefap_site"}}


def has(rec: Record, need: str) -> bool:
    if rec.tags & TAGS.get(need, set()):
        return True
    if need == "no_id" and "id_required" in rec.tags:
        return False
    text = rec.text
    if need == "student":
        text = re.sub(r"college (crest|hill)", "", text, flags=re.I)
    return re.search(ELIGIBILITY[need], text, re.I) is not None


# --- one query ------------------------------------------------------------------------------

def _zip_miles(a: str | None, b: str) -> float:
    """Great-circle miles between two ZIP centroids of the packaged offline zipcodes data (inf if unknown)."""
    import math

    import zipcodes

    if not a or not b:
        return math.inf
    ra, rb = zipcodes.matching(a), zipcodes.matching(b)
    if not ra or not rb:
        return math.inf
    la1, lo1, la2, lo2 = map(math.radians, (float(ra[0]["lat"]), float(ra[0]["long"]),
                                            float(rb[0]["lat"]), float(rb[0]["long"])))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return 3958.8 * 2 * math.asin(math.sqrt(h))


def satisfies(rec: Record, c: dict[str, Any], ref: dt.date) -> bool | None:
    """Does the record satisfy the query's structural constraints? None = cannot decide."""
    verdicts: list[bool | None] = []
    if "city" in c:
        verdicts.append(in_city(rec, c["city"]))
    if "county" in c:
        verdicts.append(in_county(rec, c["county"]))
    if "zip" in c:
        verdicts.append(rec.zip == c["zip"])
    if "near_zip" in c:  # 'near 66604' ranks by distance: any record whose ZIP centroid is within near_miles
        verdicts.append(_zip_miles(rec.zip, c["near_zip"]) <= c["near_miles"])
    if "state" in c:
        verdicts.append(rec.state == c["state"])
    if "quadrant" in c:  # DC street quadrant written at the end of the address ('... St NW')
        verdicts.append(re.search(r"\b" + c["quadrant"] + r"\b", rec.address) is not None)
    if "name_like" in c:
        verdicts.append(rec.index in c["name_like"])
    for need in c.get("needs", []):
        verdicts.append(has(rec, need))
    if "weekday" in c:
        days = [DAYS.index(d) for d in c["weekday"]]
        if "after" in c or "before" in c:
            ts = [time_ok(rec, d, c.get("after"), c.get("before")) for d in days]
            verdicts.append(True if True in ts else (None if None in ts else False))
        else:
            verdicts.append(any(open_on_weekday(rec, d) for d in days))
    if "dates" in c:
        ds = [dt.date.fromisoformat(x) for x in c["dates"]]
        vs = [open_on_date(rec, d) for d in ds]
        v: bool | None = True if True in vs else (None if None in vs else False)
        if v is not False and ("after" in c or "before" in c):
            ts = [time_ok(rec, d.weekday(), c.get("after"), c.get("before")) for d in ds
                  if open_on_date(rec, d) is not False]
            t = True if True in ts else (None if None in ts else False)
            v = t if v is True else (None if t is not False else False)
        verdicts.append(v)
    elif "weekday" not in c and ("after" in c or "before" in c):
        verdicts.append(time_any_day(rec, c.get("after"), c.get("before")))
    if False in verdicts:
        return False
    return None if None in verdicts else True


def gold(records: list[Record], c: dict[str, Any], ref: dt.date) -> list[int] | None:
    """Indexes satisfying the constraints, or None when any candidate is undecidable."""
    out = []
    for r in records:
        v = satisfies(r, c, ref)
        if v is None:
            return None
        if v:
            out.append(r.index)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fill", action="store_true")
    ap.add_argument("--round", type=int, choices=(1, 2), default=1)
    args = ap.parse_args()
    path = QUERIES if args.round == 1 else QUERIES_2
    data = json.loads(path.read_text())
    ref = dt.date.fromisoformat(data["reference_date"])
    recs = {d: load(d) for d in data["directories"]}
    for q in data["queries"]:
        if q["expect"] == "clarify":
            q["gold"] = []
            continue
        g = gold(recs[q["directory"]], q["constraints"], ref)
        if q["expect"] == "no_match" and g:
            print("WARN no_match query has gold", q["id"], g[:5])
        if q["expect"] == "results" and g == []:
            print("WARN results query has empty gold", q["id"])
        q["gold"] = g
        print(q["id"], q["text"], "->", "null" if g is None else len(g))
    if args.fill:
        path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
