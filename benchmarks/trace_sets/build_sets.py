"""Write the natural-language TRACE query sets (benchmarks/trace_sets/<directory>.json) with gold from raw fields.

    .venv/bin/python benchmarks/trace_sets/build_sets.py

The wordings below were written by hand (per directory: the places, the local names, the misspellings, the
phrasings); only the gold record lists are computed, by ``gold.py`` from the raw directory fields. Rerunning
rewrites the same files (deterministic).
"""

from __future__ import annotations

import datetime as dt
import json
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gold  # noqa: E402

REFERENCE = "2026-03-04T10:00"  # a Wednesday morning, directory local time
REF = dt.datetime.fromisoformat(REFERENCE)
FILES = {
    "kansas": ("kansas/pantry_data.json", "demos/directories/mappings/kansas.json", "KS"),
    "sv": ("haarrrvest/second_harvest_of_silicon_valley_ca_raw.json",
           "demos/directories/mappings/second_harvest_silicon_valley.json", "CA"),
    "ny": ("haarrrvest/the_food_pantries_org_raw.json", "demos/directories/mappings/the_food_pantries_org_ny.json",
           "NY"),
    "dc": ("haarrrvest/capital_area_food_bank_dc_raw.json",
           "demos/directories/mappings/capital_area_food_bank_dc.json", None),
}

CITY_PHRASES = [
    "food pantry in {p}", "where can I get free groceries in {p}?", "i need food in {p}",
    "any food banks around {p}", "{p} food pantries", "looking for a pantry in {p} please",
    "who gives out food in {p}", "need help with groceries, I live in {p}",
]
DAY_NAMES = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

# Per directory: hand-written places, local names and misspellings (typed -> what the person means).
SPEC: dict[str, dict[str, Any]] = {
    "kansas": {
        "cities": ["Topeka", "Wichita", "Lawrence", "Manhattan", "Kansas City", "Emporia", "Hays", "Salina",
                   "Pittsburg", "Great Bend", "Garden City", "Olathe", "Leavenworth", "Iola", "Ottawa", "Oberlin"],
        "typos": [("Wichta", "Wichita"), ("Lawrance", "Lawrence"), ("Topekah", "Topeka"), ("Manhatten", "Manhattan"),
                  ("Emporai", "Emporia"), ("Levenworth", "Leavenworth"), ("Pittsberg", "Pittsburg"),
                  ("Hutchenson", "Hutchinson"), ("Salinna", "Salina"), ("Olath", "Olathe")],
        "aliases": [("KCK", "Kansas City"), ("Hutch", "Hutchinson"), ("Ark City", "Arkansas City"),
                    ("Dodge", "Dodge City"), ("Kansas City, Kansas", "Kansas City"), ("Ft. Scott", "Fort Scott"),
                    ("Liberal KS", "Liberal"), ("Manhattan, KS", "Manhattan")],
        "landmarks": [("where can a student at the University of Kansas get food?", "Lawrence"),
                      ("food pantry near Wichita State University", "Wichita")],
        "counties": ["Sedgwick County", "Shawnee County", "Douglas County", "Riley County", "Johnson County",
                     "Lyon County", "Ellis County", "Crawford County"],
        "zips": ["66044", "66502", "67601", "66605", "66102"],
        "near_zips": ["66044", "67202", "66502", "67401", "66801"],
        "radius": [("Topeka", 10), ("Lawrence", 15), ("Wichita", 5), ("Salina", 25), ("Garden City", 30)],
        "hour_cities": ["Topeka", "Wichita", "Lawrence", "Manhattan", "Kansas City", "Hays", "Emporia", "Olathe"],
        "needs": [("no_id", "Lawrence", "food pantry in {p} where I don't need an ID"),
                  ("no_id", "Hays", "no ID needed, {p}"),
                  ("no_id", "Wichita", "pantries in {p} that don't ask for identification"),
                  ("id_required", "Topeka", "which {p} pantries require a photo ID?"),
                  ("residency", "Lawrence", "{p} pantries that ask for proof of residency"),
                  ("student", "Pittsburg", "food pantry for college students in {p}"),
                  ("student", "Manhattan", "student food pantry {p}"),
                  ("senior", "Emporia", "food for seniors in {p}"),
                  ("senior", "Topeka", "senior citizen food boxes {p}"),
                  ("drive_thru", "Topeka", "drive thru food pickup in {p}")],
        "service": [("hygiene", "Wichita", "where can I get hygiene items in {p}?"),
                    ("meals", "Wichita", "hot meals in {p}")],
        "nomatch_towns": ["Denver", "Kansas City, Missouri", "Tulsa"],
        "unknown_words": ["Zorblax", "Quenmoorville"],
        "state_name": "Kansas",
    },
    "sv": {
        "cities": ["San Jose", "Redwood City", "San Mateo", "South San Francisco", "Half Moon Bay", "Sunnyvale",
                   "Gilroy", "East Palo Alto", "Santa Clara", "Palo Alto", "Daly City", "Milpitas", "Cupertino",
                   "Morgan Hill", "Campbell", "Menlo Park", "Mountain View", "San Bruno", "Pacifica", "Burlingame"],
        "typos": [("San Hose", "San Jose"), ("Sunyvale", "Sunnyvale"), ("Milpitis", "Milpitas"),
                  ("Cupertion", "Cupertino"), ("Gilory", "Gilroy"), ("Redwod City", "Redwood City"),
                  ("Mountian View", "Mountain View"), ("Campbel", "Campbell"), ("Pacifca", "Pacifica"),
                  ("Menlo Prk", "Menlo Park")],
        "aliases": [("South SF", "South San Francisco"), ("Mtn View", "Mountain View"), ("San Jose, CA", "San Jose"),
                    ("Mt. View", "Mountain View"), ("So. San Francisco", "South San Francisco"),
                    ("E. Palo Alto", "East Palo Alto"), ("Daly City CA", "Daly City"),
                    ("Los Gatos, California", "Los Gatos")],
        "landmarks": [("food pantry near San Jose State University", "San Jose")],
        "counties": ["Santa Clara County", "San Mateo County"],
        "zips": ["95112", "94063", "94080", "94019", "95116"],
        "near_zips": ["95112", "94063", "94040", "95020", "94303"],
        "radius": [("Palo Alto", 5), ("Gilroy", 10), ("San Mateo", 4), ("Sunnyvale", 3), ("Half Moon Bay", 8)],
        "hour_cities": [],
        "needs": [("no_id", "San Jose", "food in {p} with no documents required"),
                  ("no_id", "Redwood City", "{p} pantry, I don't have papers"),
                  ("student", "San Jose", "food pantry for students in {p}"),
                  ("senior", "San Jose", "groceries for seniors in {p}"),
                  ("residency", "San Jose", "{p} pantries only for residents"),
                  ("drive_thru", "San Jose", "drive thru food distribution in {p}"),
                  ("drive_thru", "Gilroy", "drive-through groceries {p}"),
                  ("meals", "San Jose", "ready to eat meals in {p}"),
                  ("meals", "Sunnyvale", "hot meal in {p}"),
                  ("residency", "Sunnyvale", "do I have to live in {p} to use the pantries there?"),
                  ("senior", "Mountain View", "food for older adults in {p}")],
        "service": [],
        "nomatch_towns": ["Oakland", "Fresno", "Berkeley"],
        "unknown_words": ["Zorblax", "Quenmoorville"],
        "state_name": "California",
    },
    "ny": {
        "cities": ["Albany", "Binghamton", "Troy", "Schenectady", "Rochester", "Buffalo", "Syracuse", "Brooklyn",
                   "Saratoga Springs", "Johnson City", "Cohoes", "Ballston Spa", "Endicott", "Cortland",
                   "Watervliet", "Clifton Park"],
        "typos": [("Schenectaday", "Schenectady"), ("Albeny", "Albany"), ("Binghampton", "Binghamton"),
                  ("Rochster", "Rochester"), ("Syracues", "Syracuse"), ("Bufalo", "Buffalo"), ("Brooklin", "Brooklyn"),
                  ("Watervleit", "Watervliet"), ("Endicot", "Endicott"), ("Cortlund", "Cortland")],
        "aliases": [("Saratoga Spgs", "Saratoga Springs"), ("Albany NY", "Albany"), ("Troy, New York", "Troy"),
                    ("Mt. Vernon", "Mount Vernon"), ("the Bronx", "Bronx"), ("Staten Is.", "Staten Island"),
                    ("Binghamton, NY", "Binghamton"), ("Glens Falls NY", "Glens Falls")],
        "landmarks": [],
        "counties": ["Albany County", "Broome County", "Rensselaer County", "Schenectady County", "Monroe County",
                     "Erie County", "Onondaga County", "Suffolk County"],
        "zips": ["12180", "13901", "13905", "12206", "12866"],
        "near_zips": ["12180", "13901", "12206", "12305", "14607"],
        "radius": [("Albany", 5), ("Binghamton", 10), ("Troy", 8), ("Schenectady", 6), ("Syracuse", 15)],
        "hour_cities": ["Albany", "Binghamton", "Troy", "Schenectady", "Rochester", "Brooklyn", "Bronx", "Buffalo"],
        "needs": [("residency", "Albany", "{p} pantries that need proof of address"),
                  ("senior", "Albany", "food for seniors in {p}"),
                  ("student", "Albany", "college students food pantry {p}"),
                  ("senior", "Bronx", "pantry for seniors in the {p}"),
                  ("meals", "Albany", "hot meals in {p}")],
        "service": [],
        "nomatch_towns": ["Boston", "Newark, New Jersey", "Philadelphia"],
        "unknown_words": ["Zorblax", "Quenmoorville"],
        "state_name": "New York",
    },
    "dc": {
        "cities": ["Silver Spring", "Alexandria", "Capitol Heights", "Falls Church", "Hyattsville", "Arlington",
                   "Lanham", "Woodbridge", "Rockville", "Upper Marlboro", "Beltsville", "Landover", "Manassas",
                   "Laurel", "Gaithersburg", "Annandale"],
        "typos": [("Hyattsvile", "Hyattsville"), ("Gaithersberg", "Gaithersburg"), ("Alexandira", "Alexandria"),
                  ("Rockvile", "Rockville"), ("Beltsvile", "Beltsville"), ("Woodbrige", "Woodbridge"),
                  ("Annandle", "Annandale"), ("Upper Marlborough", "Upper Marlboro"), ("Landovr", "Landover"),
                  ("Manasas", "Manassas")],
        "aliases": [("Ft. Washington", "Fort Washington"), ("Mt. Rainier", "Mount Rainier"),
                    ("Alexandria, VA", "Alexandria"), ("Silver Spring MD", "Silver Spring"),
                    ("Washington, DC", "Washington"), ("D.C.", "Washington"),
                    ("Falls Church, Virginia", "Falls Church"),
                    ("Laurel, Maryland", "Laurel")],
        "landmarks": [],
        "counties": ["Montgomery County", "Fairfax County", "Prince William County", "Arlington County",
                     "Ward 8", "Ward 7", "Ward 5", "Prince George's County"],
        "zips": ["20020", "20743", "20706", "20910", "22041"],
        "near_zips": ["20020", "20910", "22041", "20743", "20110"],
        "radius": [("Rockville", 5), ("Alexandria", 3), ("Laurel", 6), ("Manassas", 8), ("Bowie", 5)],
        "radius_states": {"Rockville": "MD", "Alexandria": "VA", "Laurel": "MD", "Manassas": "VA", "Bowie": "MD"},
        "hour_cities": ["Washington", "Silver Spring", "Alexandria", "Capitol Heights", "Hyattsville", "Rockville",
                        "Falls Church", "Laurel"],
        "needs": [("tefap", "Washington", "TEFAP distribution in {p}"),
                  ("tefap", "Silver Spring", "where can I get TEFAP food in {p}")],
        "service": [],
        "nomatch_towns": ["Baltimore", "Richmond, Virginia", "Philadelphia"],
        "unknown_words": ["Zorblax", "Quenmoorville"],
        "state_name": None,
    },
}


# ------------------------------------------------------------------ gold
def _city_key(city: str | None) -> str:
    key = (city or "").lower().strip()
    key = re.sub(r"[\s,]+(dc|d\.c\.)$", "", key)
    key = re.sub(r"\b(st|ft|mt)\.?\s", lambda m: {"st": "saint ", "ft": "fort ", "mt": "mount "}[m.group(1)], key)
    return {"silver springs": "silver spring"}.get(key, key)


def _state_of(directory: str, rec: gold.Rec) -> str:
    if directory != "dc":
        return FILES[directory][2] or ""
    return {"2": "DC"}.get((rec.zip or "0")[:1], "MD" if (rec.zip or "")[:2] == "20" and not
                           (rec.zip or "").startswith("200") else "VA")


def evaluate(directory: str, c: dict[str, Any]) -> tuple[list[int], list[int]]:
    """(gold, acceptable): gold = records certainly satisfying every constraint; acceptable adds records
    that cannot be decided from the raw text (times unknown) or sit within 1.5 miles of a radius boundary."""
    recs = gold.load(directory)
    state = FILES[directory][2] or "DC"
    certain: list[int] = []
    maybe: list[int] = []
    center = None
    if "near" in c:
        center = gold.place_point(c["near"], c.get("state") or state)
    for r in recs:
        verdict: bool | None = True
        if "name" in c:
            verdict = r.index == c["name"]
        if c.get("service", "food") == "food" and not gold.is_food(r):
            verdict = False
        if c.get("service") == "hygiene" and not gold.needs(r, "hygiene"):
            verdict = False
        if "city" in c and _city_key(r.city) not in {x.lower() for x in c["city"]}:
            verdict = False
        if "county" in c and c["county"].lower() not in {x.lower() for x in r.counties} and \
                re.sub(r" county$", "", c["county"].lower()) not in {x.lower() for x in r.counties}:
            verdict = False
        if "zip" in c and (r.zip or "")[:5] != c["zip"]:
            verdict = False
        for need in c.get("needs", []):
            if not gold.needs(r, need):
                verdict = False
        if verdict is not False and center is not None:
            p = gold.point(r)
            if p is None:
                verdict = False
            else:
                d = gold.miles(center, p)
                radius = c.get("miles")
                if radius is None:
                    verdict = None if d <= c["nearest_ok"] else False
                    if d <= c.get("nearest_gold", -1):
                        verdict = True
                elif d > radius + 1.5:
                    verdict = False
                elif d > radius - 1.5:
                    verdict = None
        if verdict is not False and ("day" in c or "after" in c or "before" in c or "at" in c):
            day = c.get("day")
            date = dt.date.fromisoformat(c["date"]) if "date" in c else None
            if "at" in c:
                v = gold.open_between(r, day, c["at"], c["at"] + 0.01, date)
            elif "after" in c or "before" in c:
                v = gold.open_between(r, day, c.get("after"), c.get("before"), date)
            else:
                v = gold.opens_day(r, day, date)
            if v is False:
                verdict = False
            elif v is None:
                verdict = None
        if verdict is True:
            certain.append(r.index)
        elif verdict is None:
            maybe.append(r.index)
    return certain, sorted(certain + maybe)


def nearest_band(directory: str, place: str, state: str | None, c: dict[str, Any]) -> None:
    """"near X" without a radius: gold = the records within 1.25 x the third-nearest distance (+0.5 mi),
    acceptable = within 2 x that distance (+2 mi)."""
    recs = [r for r in gold.load(directory) if gold.is_food(r) and gold.point(r) is not None]
    center = gold.place_point(place, state or FILES[directory][2] or "DC")
    dists = sorted(gold.miles(center, gold.point(r)) for r in recs)  # type: ignore[arg-type]
    third = dists[2]
    c["nearest_gold"] = round(third * 1.25 + 0.5, 2)
    c["nearest_ok"] = round(third * 2 + 2, 2)


# ------------------------------------------------------------------ queries
def build(directory: str) -> list[dict[str, Any]]:
    spec = SPEC[directory]
    recs = gold.load(directory)
    out: list[dict[str, Any]] = []

    def add(family: str, text: str | list[str], c: dict[str, Any], expect: str | None = None, **extra: Any) -> None:
        g, ok = evaluate(directory, c) if expect not in ("clarify",) else ([], [])
        exp = expect or ("results" if g else "no_match")
        if exp == "no_match":
            ok = []
        item: dict[str, Any] = {"id": f"{directory}-{len(out) + 1:03d}", "family": family}
        item["turns" if isinstance(text, list) else "text"] = text
        item.update({"expect": exp, "constraints": c, "gold": g if exp == "results" else [],
                     "acceptable": ok if exp == "results" else []})
        item.update(extra)
        out.append(item)

    for i, city in enumerate(spec["cities"]):
        add("place", CITY_PHRASES[i % len(CITY_PHRASES)].format(p=city if i % 3 else city.lower()),
            {"city": [city]})
    for i, (typed, city) in enumerate(spec["typos"]):
        add("typo", CITY_PHRASES[(i + 3) % len(CITY_PHRASES)].format(p=typed), {"city": [city]})
    for i, (typed, city) in enumerate(spec["aliases"]):
        add("alias", CITY_PHRASES[(i + 5) % len(CITY_PHRASES)].format(p=typed), {"city": [city]})
    for text, city in spec["landmarks"]:
        add("landmark", text, {"city": [city]})
    for i, county in enumerate(spec["counties"]):
        phr = ["pantries in {p}", "food assistance {p}", "i live in {p}, where can i get food",
               "{p} food banks"][i % 4]
        add("county", phr.format(p=county), {"county": county})
    for i, z in enumerate(spec["zips"]):
        phr = ["food pantry in zip code {p}", "pantries in {p}", "I'm in the {p} zip, any food help there?"][i % 3]
        add("zip", phr.format(p=z), {"zip": z})
    for i, z in enumerate(spec["near_zips"]):
        c: dict[str, Any] = {"near": z}
        nearest_band(directory, z, None, c)
        phr = ["food pantry near {p}", "closest pantry to {p}", "near me, I'm at {p}", "what's close to zip {p}",
               "nearest food bank to {p}"][i % 5]
        add("near", phr.format(p=z), c)
    for i, (place, radius) in enumerate(spec["radius"]):
        phr = ["food pantries within {r} miles of {p}", "anything within {r} mi of {p}?",
               "pantry no more than {r} miles from {p}"][i % 3]
        c = {"near": place, "miles": radius}
        if "radius_states" in spec:
            c["state"] = spec["radius_states"][place]
        add("radius", phr.format(p=place, r=radius), c)
    # hours: plain weekday, evening, morning, relative days, open now
    for i, city in enumerate(spec["hour_cities"]):
        day = [5, 1, 3, 0, 2, 4, 5, 3][i % 8]
        phr = ["{p} food pantry open on {d}s", "is anything open {d} in {p}?", "{d} food pantry {p}",
               "pantry in {p} open {d}"][i % 4]
        add("hours", phr.format(p=city, d=DAY_NAMES[day]), {"city": [city], "day": day})
    for i, city in enumerate(spec["hour_cities"][:4]):
        day = [3, 1, 0, 2][i]
        add("hours", f"{city} pantry open {DAY_NAMES[day]} evening", {"city": [city], "day": day, "after": 17.0})
    for i, city in enumerate(spec["hour_cities"][4:7]):
        day = [5, 2, 4][i]
        add("hours", f"{DAY_NAMES[day].lower()} morning food pantry in {city}",
            {"city": [city], "day": day, "before": 12.0})
    for i, city in enumerate(spec["hour_cities"][:3]):
        if i == 0:
            add("relative", f"what's open tomorrow in {city}?", {"city": [city], "day": 3, "date": "2026-03-05"})
        elif i == 1:
            add("relative", f"food pantry open today in {city}", {"city": [city], "day": 2, "date": "2026-03-04"})
        else:
            add("relative", f"anything open right now in {city}", {"city": [city], "day": 2, "date": "2026-03-04",
                                                                   "at": 10.0})
    for city in spec["hour_cities"][3:5]:
        add("relative", f"is there a pantry open this saturday in {city}",
            {"city": [city], "day": 5, "date": "2026-03-07"})
    for need, city, phr in spec["needs"]:
        add("requirement", phr.format(p=city), {"city": [city], "needs": [need]})
    for need, city, phr in spec["service"]:
        c = {"city": [city], "needs": [need]}
        if need == "hygiene":
            c["service"] = "hygiene"
        add("service", phr.format(p=city), c)
    # name queries: unique names, spread over the file
    names = [r for r in recs if sum(1 for x in recs if x.name.lower() == r.name.lower()) == 1 and gold.is_food(r)]
    count = 8 if spec["hour_cities"] else 12
    step = max(1, len(names) // count)
    for i, r in enumerate(names[::step][:count]):
        phr = ["hours and phone of {n}", "where is {n}?", "tell me about {n}", "{n} address"][i % 4]
        add("name", phr.format(n=r.name), {"name": r.index})
    # combined
    hc = spec["hour_cities"] or spec["cities"]
    combos: list[tuple[str, dict[str, Any]]] = []
    if spec["hour_cities"]:
        combos += [(f"no id needed, {hc[0]}, open on Tuesday", {"city": [hc[0]], "day": 1, "needs": ["no_id"]}),
                   (f"{hc[1]} pantry open thursday after 5pm", {"city": [hc[1]], "day": 3, "after": 17.0}),
                   (f"saturday morning in {hc[2]} for seniors", {"city": [hc[2]], "day": 5, "before": 12.0,
                                                                 "needs": ["senior"]}),
                   (f"pantry near {spec['near_zips'][0]} open on Monday",
                    {"near": spec["near_zips"][0], "miles": 10, "day": 0})]
    else:
        combos += [(f"drive thru with no documents in {hc[0]}", {"city": [hc[0]], "needs": ["drive_thru", "no_id"]}),
                   (f"student pantry in {hc[0]} no papers needed", {"city": [hc[0]], "needs": ["student", "no_id"]}),
                   (f"meals near {spec['near_zips'][0]} within 3 miles",
                    {"near": spec["near_zips"][0], "miles": 3, "needs": ["meals"]})]
    combos.append((f"{spec['counties'][0]} pantry open sunday", {"county": spec["counties"][0], "day": 6}))
    for text, c in combos:
        add("combined", text, c)
    # follow-ups: the last turn is scored, constraints carried from the earlier turns
    a, b = spec["cities"][0], spec["cities"][1]
    add("followup", [f"food pantry in {a}", f"what about {b}?"], {"city": [b]})
    add("followup", [f"pantries in {spec['cities'][2]}", "ok, and in " + spec["cities"][3] + "?"],
        {"city": [spec["cities"][3]]})
    if spec["hour_cities"]:
        h0, h1 = spec["hour_cities"][0], spec["hour_cities"][1]
        add("followup", [f"food pantry in {h1}", "are any of them open Saturday?"], {"city": [h1], "day": 5})
        add("followup", [f"I need food in {h0}", "anything open on tuesday?"], {"city": [h0], "day": 1})
        add("followup", [f"{h0} pantry open thursday", "what about on friday?"], {"city": [h0], "day": 4})
        add("followup", [f"pantries in {spec['hour_cities'][2]} open monday", f"and in {spec['hour_cities'][3]}?"],
            {"city": [spec["hour_cities"][3]], "day": 0})
        add("followup", ["I need food", f"I'm in {h1}"], {"city": [h1]})
        add("followup", [f"food in {h0}", "open wednesday evening?"], {"city": [h0], "day": 2, "after": 17.0})
    else:
        add("followup", ["I need groceries", f"I'm in {a}"], {"city": [a]})
        add("followup", [f"food pantry in {a}", "any of them drive thru?"], {"city": [a], "needs": ["drive_thru"]})
        add("followup", [f"food for students in {a}", f"what about {b}?"], {"city": [b], "needs": ["student"]})
        add("followup", [f"pantry in {spec['cities'][4]}", "and without documents?"],
            {"city": [spec["cities"][4]], "needs": ["no_id"]})
    # no-match: places outside the directory's region, unknown place words, impossible combinations
    for town in spec["nomatch_towns"]:
        add("no_match", f"food pantry in {town}", {"outside": town}, expect="no_match")
    add("no_match", f"pantry open sunday at 11pm in {spec['cities'][-1]}",
        {"city": [spec["cities"][-1]], "day": 6, "after": 23.0})
    # clarification: no place at all, or a place word that is not a known place
    for text in ["I need food", "where is a food pantry open on saturday?", "any pantry that doesn't need ID?",
                 "help, my kids are hungry", "food bank hours"]:
        add("clarify", text, {}, expect="clarify")
    for word in spec["unknown_words"]:
        add("clarify", f"food pantry in {word}", {"unknown_place": word}, expect="clarify_or_no_match")
    return out


def main() -> None:
    root = Path(__file__).resolve().parents[2]
    for directory, (data, mapping, state) in FILES.items():
        queries = build(directory)
        payload = {
            "version": "1.0.0",
            "description": f"Natural-language TRACE queries for {directory}: hand-written wordings, gold computed by "
                           "benchmarks/trace_sets/gold.py from the raw directory fields (see README.md).",
            "directory": data, "mapping": mapping, "state": state, "reference": REFERENCE, "queries": queries,
        }
        path = HERE / f"{directory}.json"
        path.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        fams: dict[str, int] = {}
        for q in queries:
            fams[q["family"]] = fams.get(q["family"], 0) + 1
        empty = [q["id"] for q in queries if q["expect"] == "no_match" and q["family"] not in ("no_match",)]
        print(f"{path.relative_to(root)}: {len(queries)} queries {fams}; gold-empty (no_match): {empty}")


if __name__ == "__main__":
    main()
