"""Write the fresh TRACE query sets for the HAARRRvest regions (benchmarks/trace_sets/regions/<region>.json).

    .venv/bin/python benchmarks/trace_sets/regions/build_regions.py

The wordings and their constraints were written by hand, region by region, before any of these sets was run; only
the gold record lists are computed, by ``gold_regions.py`` from the raw records. Constraint keys: city (towns),
county (+ county_state), counties (a multi-county region; counties_ok = counties a reader may also count in), zips
(a neighbourhood by its ZIP codes), state, day/after/before/date, needs (facts that must hold), not_needs (facts
that must not hold: a record stating them violates the query), name_re (the name asked for), service.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import gold  # noqa: E402
import gold_regions as gr  # noqa: E402

REFERENCE = "2026-03-04T10:00"  # a Wednesday morning (the 1st Wednesday of March), directory local time
TODAY = "2026-03-04"
SAT = "2026-03-07"
MAPPING = "benchmarks/trace_sets/regions/{r}/mapping.json"
Q = tuple[str, Any, dict[str, Any]] | tuple[str, Any, dict[str, Any], str]

GULF: list[Q] = [
    ("place", "food pantry in Pensacola", {"city": ["Pensacola"]}),
    ("place", "where can I get free groceries in mobile", {"city": ["Mobile"]}),
    ("place", "Biloxi food bank", {"city": ["Biloxi"]}),
    ("place", "i need food in Gulfport", {"city": ["Gulfport"]}),
    ("place", "any pantries in Crestview?", {"city": ["Crestview"]}),
    ("place", "food help Fort Walton Beach", {"city": ["Fort Walton Beach"]}),
    ("place", "Panama City food pantry", {"city": ["Panama City"]}),
    ("place", "looking for food in Pascagoula", {"city": ["Pascagoula"]}),
    ("place", "food pantry Daphne AL", {"city": ["Daphne"]}),
    ("place", "Foley food pantries", {"city": ["Foley"]}),
    ("place", "food pantry in Milton, Florida", {"city": ["Milton"]}),
    ("alias", "FWB food pantry", {"city": ["Fort Walton Beach"]}),
    ("alias", "food in Ft Walton", {"city": ["Fort Walton Beach"]}),
    ("alias", "PCB food pantry", {"city": ["Panama City Beach"]}),
    ("alias", "pantry in Bay St. Louis", {"city": ["Bay Saint Louis"]}),
    ("alias", "food pantry in Prichard", {"city": ["Prichard"]}),
    ("region", "food pantries on the Mississippi Gulf Coast", {"counties": ["Hancock", "Harrison", "Jackson"],
                                                              "state": "MS"}),
    ("region", "food banks on the Eastern Shore", {"city": ["Daphne", "Spanish Fort", "Fairhope", "Montrose",
                                                           "Point Clear"]}),
    ("region", "food pantry in the Florida Panhandle", {"state": "FL"}),
    ("region", "pantries on the Emerald Coast", {"counties": ["Okaloosa", "Walton"], "state": "FL",
                                                 "counties_ok": ["Bay", "Santa Rosa", "Escambia"]}),
    ("region", "where is food in Tillmans Corner", {"zips": ["36619"]}),
    ("region", "food pantry in Warrington", {"zips": ["32507"]}),
    ("county", "food in Baldwin County", {"county": "Baldwin", "county_state": "AL"}),
    ("county", "Escambia County Florida food pantry", {"county": "Escambia", "county_state": "FL"}),
    ("county", "pantries in Escambia County, Alabama", {"county": "Escambia", "county_state": "AL"}),
    ("county", "Santa Rosa County food pantries", {"county": "Santa Rosa", "county_state": "FL"}),
    ("county", "okaloosa county food", {"county": "Okaloosa", "county_state": "FL"}),
    ("county", "Harrison County MS food help", {"county": "Harrison", "county_state": "MS"}),
    ("county", "pantries in Jackson County Mississippi", {"county": "Jackson", "county_state": "MS"}),
    ("hours", "Pensacola pantry open on Saturday", {"city": ["Pensacola"], "day": 5}),
    ("hours", "Mobile food pantry open Tuesday", {"city": ["Mobile"], "day": 1}),
    ("hours", "anything open on Sunday in Pensacola?", {"city": ["Pensacola"], "day": 6}),
    ("hours", "Biloxi pantry open Wednesday", {"city": ["Biloxi"], "day": 2}),
    ("hours", "food pantry open after 5pm in Pensacola", {"city": ["Pensacola"], "after": 17.0}),
    ("hours", "Wednesday afternoon food pantry in Mobile", {"city": ["Mobile"], "day": 2, "after": 12.0}),
    ("hours", "food pantry open Monday morning in Mobile", {"city": ["Mobile"], "day": 0, "before": 12.0}),
    ("hours", "is there a pantry open today in Gulfport", {"city": ["Gulfport"], "day": 2, "date": TODAY}),
    ("hours", "Crestview food pantry open Thursday", {"city": ["Crestview"], "day": 3}),
    ("hours", "saturday food distribution in Milton", {"city": ["Milton"], "day": 5}),
    ("negation", "food pantry in Mobile, no appointment needed", {"city": ["Mobile"], "not_needs": ["appointment"]}),
    ("negation", "Pensacola pantries where I don't have to call ahead", {"city": ["Pensacola"],
                                                                        "not_needs": ["appointment"]}),
    ("negation", "Mobile food pantry that isn't only for seniors", {"city": ["Mobile"], "not_needs": ["senior"]}),
    ("negation", "Gulfport food, not a soup kitchen", {"city": ["Gulfport"], "not_needs": ["soup_kitchen"]}),
    ("negation", "food in Ocean Springs without needing ID", {"city": ["Ocean Springs"],
                                                             "not_needs": ["id_required"]}),
    ("negation", "Pensacola pantry open Tuesday, no appointment", {"city": ["Pensacola"], "day": 1,
                                                                  "not_needs": ["appointment"]}),
    ("negation", "food pantry in Pascagoula that doesn't need ID", {"city": ["Pascagoula"],
                                                                   "not_needs": ["id_required"]}),
    ("eligibility", "pantries in Mobile for seniors", {"city": ["Mobile"], "needs": ["senior"]}),
    ("eligibility", "free meals for kids in Pensacola", {"city": ["Pensacola"], "needs": ["children"]}),
    ("eligibility", "Mobile pantry where you need an appointment", {"city": ["Mobile"], "needs": ["appointment"]}),
    ("eligibility", "do I need to bring ID to a pantry in Lucedale", {"city": ["Lucedale"], "needs": ["id_required"]}),
    ("eligibility", "Santa Rosa County pantries only for county residents", {"county": "Santa Rosa",
                                                                            "county_state": "FL",
                                                                            "needs": ["residency_only"]}),
    ("eligibility", "hot meals in Gulfport", {"city": ["Gulfport"], "needs": ["soup_kitchen"]}),
    ("eligibility", "Saraland pantry that serves Saraland residents only", {"city": ["Saraland"],
                                                                           "needs": ["residency_only"]}),
    ("name", "Salvation Army in Fort Walton Beach", {"name_re": r"salvation army", "city": ["Fort Walton Beach"]}),
    ("name", "Salvation Army", {"name_re": r"salvation army"}, "clarify"),
    ("name", "Society of St. Vincent de Paul in Biloxi", {"name_re": r"vincent de paul", "city": ["Biloxi"]}),
    ("name", "Catholic Social Services in Jackson, Alabama", {"name_re": r"catholic social services",
                                                              "city": ["Jackson"]}),
    ("name", "Waterfront Rescue Mission", {"name_re": r"waterfront rescue mission"}, "clarify"),
    ("name", "Back Bay Mission", {"name_re": r"back bay mission"}),
    ("name", "Loaves and Fish in Mobile", {"name_re": r"loaves and fish", "city": ["Mobile"]}),
    ("name", "Prodisee Pantry", {"name_re": r"prodisee"}),
    ("name", "Moffett Manna Moss Point", {"name_re": r"moffett manna", "city": ["Moss Point"]}),
    ("zip", "pantries in 32505", {"zip": "32505"}),
    ("zip", "food bank zip code 36610", {"zip": "36610"}),
    ("zip", "39501 food pantry", {"zip": "39501"}),
    ("clarify", "I need food", {}, "clarify"),
    ("clarify", "food pantry open saturday", {}, "clarify"),
    ("clarify", "pantries with no appointment needed", {}, "clarify"),
    ("clarify", "where can my kids get a free lunch", {}, "clarify"),
    ("clarify", "food bank hours", {}, "clarify"),
    ("no_match", "food pantry in Tallahassee", {"outside": "Tallahassee"}, "no_match"),
    ("no_match", "food pantry in New Orleans", {"outside": "New Orleans"}, "no_match"),
    ("no_match", "Montgomery Alabama food bank", {"outside": "Montgomery"}, "no_match"),
    ("no_match", "pantry open Sunday at 10pm in Mobile", {"city": ["Mobile"], "day": 6, "after": 22.0}),
    ("followup", ["food pantry in Pensacola", "which of those are open on Sunday?"], {"city": ["Pensacola"],
                                                                                      "day": 6}),
    ("followup", ["pantries in Biloxi", "what about Gulfport?"], {"city": ["Gulfport"]}),
]

MASS: list[Q] = [
    ("place", "food pantry in Springfield", {"city": ["Springfield"]}),
    ("place", "holyoke food pantries", {"city": ["Holyoke"]}),
    ("place", "where can I get groceries in Chicopee?", {"city": ["Chicopee"]}),
    ("place", "Pittsfield food bank", {"city": ["Pittsfield"]}),
    ("place", "i need food in greenfield", {"city": ["Greenfield"]}),
    ("place", "food pantry Northampton MA", {"city": ["Northampton"]}),
    ("place", "any food pantries in Amherst?", {"city": ["Amherst"]}),
    ("place", "Westfield food help", {"city": ["Westfield"]}),
    ("place", "food in North Adams", {"city": ["North Adams"]}),
    ("place", "Great Barrington food pantry", {"city": ["Great Barrington"]}),
    ("alias", "food pantry in NoHo", {"city": ["Northampton"]}),
    ("alias", "W. Springfield food pantry", {"city": ["West Springfield"]}),
    ("alias", "Gt Barrington pantry", {"city": ["Great Barrington"]}),
    ("alias", "E. Longmeadow food", {"city": ["East Longmeadow"]}),
    ("alias", "food pantry in Turners", {"city": ["Turners Falls"]}),
    ("region", "food pantries in the Berkshires", {"county": "Berkshire"}),
    ("region", "food banks in the Pioneer Valley", {"counties": ["Hampden", "Hampshire", "Franklin"]}),
    ("region", "pantries in the Hilltowns", {"city": ["Chesterfield", "Goshen", "Huntington", "Chester",
                                                      "Worthington", "Cummington", "Ashfield", "Plainfield",
                                                      "Haydenville", "Williamsburg", "Westhampton", "Middlefield",
                                                      "Russell", "Blandford", "Montgomery", "Granville"]}),
    ("region", "food in the North Quabbin", {"city": ["Athol", "Orange", "Erving", "Wendell", "New Salem",
                                                      "Warwick", "Royalston", "Petersham", "Phillipston"]}),
    ("region", "northern Berkshire food pantry", {"city": ["North Adams", "Adams", "Williamstown", "Clarksburg",
                                                           "Florida", "Savoy", "Cheshire"]}),
    ("region", "food pantry in Springfield's North End", {"zips": ["01107"]}),
    ("region", "food pantries in western Mass", {"state": "MA"}),
    ("county", "Franklin County food pantries", {"county": "Franklin"}),
    ("county", "pantries in Hampshire County", {"county": "Hampshire"}),
    ("county", "hampden county food bank", {"county": "Hampden"}),
    ("hours", "Springfield pantry open Saturday", {"city": ["Springfield"], "day": 5}),
    ("hours", "food pantry open Sunday in Springfield", {"city": ["Springfield"], "day": 6}),
    ("hours", "Holyoke pantry open on Monday", {"city": ["Holyoke"], "day": 0}),
    ("hours", "anything open Thursday evening in Pittsfield", {"city": ["Pittsfield"], "day": 3, "after": 17.0}),
    ("hours", "Greenfield food open after 5pm", {"city": ["Greenfield"], "after": 17.0}),
    ("hours", "Wednesday afternoon pantry in Chicopee", {"city": ["Chicopee"], "day": 2, "after": 12.0}),
    ("hours", "Chicopee pantry open today", {"city": ["Chicopee"], "day": 2, "date": TODAY}),
    ("hours", "Amherst pantry open Friday", {"city": ["Amherst"], "day": 4}),
    ("hours", "food pantry in Northampton on Tuesday", {"city": ["Northampton"], "day": 1}),
    ("hours", "pantry open this Saturday in Westfield", {"city": ["Westfield"], "day": 5, "date": SAT}),
    ("negation", "Springfield food pantry, not a mobile food bank", {"city": ["Springfield"], "not_needs": ["mobile"]}),
    ("negation", "pantry in Holyoke that's not a meal site", {"city": ["Holyoke"], "not_needs": ["soup_kitchen"]}),
    ("negation", "Amherst food without an appointment", {"city": ["Amherst"], "not_needs": ["appointment"]}),
    ("negation", "pantries in Greenfield with no registration", {"city": ["Greenfield"],
                                                                "not_needs": ["appointment"]}),
    ("negation", "Pittsfield pantry that is not just for seniors", {"city": ["Pittsfield"], "not_needs": ["senior"]}),
    ("negation", "Northampton pantry that does not need an appointment", {"city": ["Northampton"],
                                                                         "not_needs": ["appointment"]}),
    ("eligibility", "senior food in Springfield", {"city": ["Springfield"], "needs": ["senior"]}),
    ("eligibility", "food for veterans in Pittsfield", {"city": ["Pittsfield"], "needs": ["veteran"]}),
    ("eligibility", "veterans food pantry in Leeds", {"city": ["Leeds"], "needs": ["veteran"]}),
    ("eligibility", "food for kids in Easthampton", {"city": ["Easthampton"], "needs": ["children"]}),
    ("eligibility", "food pantry with delivery in Northampton", {"city": ["Northampton"], "needs": ["delivery"]}),
    ("eligibility", "meals for homebound seniors in Holyoke", {"city": ["Holyoke"], "needs": ["senior"]}),
    ("eligibility", "drive-thru pantry in Hinsdale", {"city": ["Hinsdale"], "needs": ["drive_thru"]}),
    ("eligibility", "food pantry for UMass Amherst students", {"city": ["Amherst"], "needs": ["student"]}),
    ("name", "Salvation Army in Pittsfield", {"name_re": r"salvation army", "city": ["Pittsfield"]}),
    ("name", "the Salvation Army", {"name_re": r"salvation army"}, "clarify"),
    ("name", "Amherst Survival Center food pantry", {"name_re": r"amherst survival center food pantry"}),
    ("name", "Gray House", {"name_re": r"gray house"}),
    ("name", "Stone Soup Cafe", {"name_re": r"stone soup"}),
    ("name", "Berkshire Dream Center in North Adams", {"name_re": r"berkshire dream center",
                                                       "city": ["North Adams"]}),
    ("name", "Not Bread Alone", {"name_re": r"not bread alone"}),
    ("name", "MANNA Soup Kitchen in Northampton", {"name_re": r"manna", "city": ["Northampton"]}),
    ("name", "survival center", {"name_re": r"survival center"}, "clarify"),
    ("zip", "pantries in 01107", {"zip": "01107"}),
    ("zip", "food near zip code 01301", {"zip": "01301"}),
    ("zip", "01201 food pantry", {"zip": "01201"}),
    ("clarify", "I need food", {}, "clarify"),
    ("clarify", "which pantries are open on Sunday?", {}, "clarify"),
    ("clarify", "food pantry that doesn't need an appointment", {}, "clarify"),
    ("clarify", "brown bag for seniors", {}, "clarify"),
    ("clarify", "mobile food bank schedule", {}, "clarify"),
    ("no_match", "food pantry in Boston", {"outside": "Boston"}, "no_match"),
    ("no_match", "Worcester food pantry", {"outside": "Worcester"}, "no_match"),
    ("no_match", "food bank in Hartford, CT", {"outside": "Hartford"}, "no_match"),
    ("no_match", "pantry open Sunday at 11pm in Springfield", {"city": ["Springfield"], "day": 6, "after": 23.0}),
    ("followup", ["food pantry in Holyoke", "which are open Thursday?"], {"city": ["Holyoke"], "day": 3}),
    ("followup", ["pantries in Pittsfield", "and in North Adams?"], {"city": ["North Adams"]}),
]

OHIO: list[Q] = [
    ("place", "food pantry in Toledo", {"city": ["Toledo"]}),
    ("place", "defiance food pantries", {"city": ["Defiance"]}),
    ("place", "where can I get food in Bowling Green?", {"city": ["Bowling Green"]}),
    ("place", "Perrysburg food bank", {"city": ["Perrysburg"]}),
    ("place", "i need groceries in Fremont", {"city": ["Fremont"]}),
    ("place", "Wauseon food help", {"city": ["Wauseon"]}),
    ("place", "food pantry in Port Clinton", {"city": ["Port Clinton"]}),
    ("place", "any pantries in Sylvania?", {"city": ["Sylvania"]}),
    ("place", "maumee food pantry", {"city": ["Maumee"]}),
    ("place", "food in Bryan, Ohio", {"city": ["Bryan"]}),
    ("place", "Napoleon OH food pantry", {"city": ["Napoleon"]}),
    ("place", "food pantry in Holland, Ohio", {"city": ["Holland"]}),
    ("alias", "food pantry in BG", {"city": ["Bowling Green"]}),
    ("alias", "food pantries in the Glass City", {"city": ["Toledo"]}),
    ("alias", "Toledo, OH food pantry", {"city": ["Toledo"]}),
    ("alias", "food bank in Perrysburg Ohio", {"city": ["Perrysburg"]}),
    ("region", "food pantry in East Toledo", {"zips": ["43605"]}),
    ("region", "pantries in the Old South End", {"zips": ["43609"]}),
    ("region", "food in the Toledo area", {"counties": ["Lucas", "Wood"], "counties_ok": ["Fulton", "Ottawa"]}),
    ("county", "Wood County food pantries", {"county": "Wood"}),
    ("county", "pantries in Lucas County", {"county": "Lucas"}),
    ("county", "fulton county food bank", {"county": "Fulton"}),
    ("county", "Defiance County food help", {"county": "Defiance"}),
    ("county", "food pantries in Williams County", {"county": "Williams"}),
    ("county", "Ottawa County Ohio pantry", {"county": "Ottawa"}),
    ("county", "Henry County food", {"county": "Henry"}),
    ("hours", "Toledo pantry open Tuesday", {"city": ["Toledo"], "day": 1}),
    ("hours", "Archbold pantry open Tuesday evening", {"city": ["Archbold"], "day": 1, "after": 17.0}),
    ("hours", "food pantry open Saturday in Toledo", {"city": ["Toledo"], "day": 5}),
    ("hours", "Defiance pantry open on Monday", {"city": ["Defiance"], "day": 0}),
    ("negation", "Bowling Green food pantry that isn't just for students", {"city": ["Bowling Green"],
                                                                           "not_needs": ["student"]}),
    ("negation", "Toledo food pantry, not a soup kitchen", {"city": ["Toledo"], "not_needs": ["soup_kitchen"]}),
    ("negation", "Defiance pantry that is not a soup kitchen", {"city": ["Defiance"], "not_needs": ["soup_kitchen"]}),
    ("negation", "Toledo pantry not only for university students", {"city": ["Toledo"], "not_needs": ["student"]}),
    ("negation", "Wauseon pantry, no soup kitchen please", {"city": ["Wauseon"], "not_needs": ["soup_kitchen"]}),
    ("eligibility", "BGSU student food pantry", {"city": ["Bowling Green"], "needs": ["student"]}),
    ("eligibility", "University of Toledo student pantry", {"city": ["Toledo"], "needs": ["student"]}),
    ("eligibility", "food pantry for students at UT", {"city": ["Toledo"], "needs": ["student"]}),
    ("eligibility", "soup kitchen in Toledo", {"city": ["Toledo"], "needs": ["soup_kitchen"]}),
    ("eligibility", "hot meal in Port Clinton", {"city": ["Port Clinton"], "needs": ["soup_kitchen"]}),
    ("eligibility", "student food pantry in Bowling Green", {"city": ["Bowling Green"], "needs": ["student"]}),
    ("name", "St. Vincent de Paul in Bowling Green", {"name_re": r"vincent de paul", "city": ["Bowling Green"]}),
    ("name", "St. Vincent De Paul Port Clinton", {"name_re": r"vincent de paul", "city": ["Port Clinton"]}),
    ("name", "St. Vincent de Paul", {"name_re": r"vincent de paul"}, "clarify"),
    ("name", "St. John's Lutheran in Napoleon", {"name_re": r"st\. john's lutheran", "city": ["Napoleon"]}),
    ("name", "St. John's Lutheran", {"name_re": r"st\. john's lutheran"}, "clarify"),
    ("name", "Salvation Army Toledo", {"name_re": r"salvation army", "city": ["Toledo"]}),
    ("name", "Feed Your Neighbor pantry at Epiphany Lutheran", {"name_re": r"epiphany lutheran"}),
    ("name", "Islamic Food Bank", {"name_re": r"islamic food bank"}),
    ("name", "Fish pantry in Wauseon", {"name_re": r"fish", "city": ["Wauseon"]}),
    ("name", "the Fish food pantry", {"name_re": r"\bfish\b"}, "clarify"),
    ("name", "Falcon Food Pantry", {"name_re": r"falcon food pantry"}),
    ("name", "Perrysburg fire department food pantry", {"name_re": r"fire department", "city": ["Perrysburg"]}),
    ("name", "Cindy's Cafe", {"name_re": r"cindy's cafe"}),
    ("zip", "food pantries in 43605", {"zip": "43605"}),
    ("zip", "43402 food pantry", {"zip": "43402"}),
    ("zip", "pantry zip 43512", {"zip": "43512"}),
    ("clarify", "I need food", {}, "clarify"),
    ("clarify", "soup kitchen open today", {}, "clarify"),
    ("clarify", "food pantry for students", {}, "clarify"),
    ("clarify", "food bank near me", {}, "clarify"),
    ("no_match", "food pantry in Cleveland", {"outside": "Cleveland"}, "no_match"),
    ("no_match", "Columbus Ohio food bank", {"outside": "Columbus"}, "no_match"),
    ("no_match", "food pantry in Detroit, Michigan", {"outside": "Detroit"}, "no_match"),
    ("followup", ["food pantry in Defiance", "what about Bryan?"], {"city": ["Bryan"]}),
]

SETS = {"gulf_coast": GULF, "western_mass": MASS, "nw_ohio": OHIO}


def evaluate(region: str, c: dict[str, Any]) -> tuple[list[int], list[int]]:
    """(gold, acceptable) from the raw records; acceptable adds undecidable ones (times unknown, shelters,
    counties a reader may also count in a region)."""
    certain: list[int] = []
    maybe: list[int] = []
    for r in gr.load(region):
        verdict: bool | None = True
        food = gr.is_food(r)
        if food is False:
            verdict = False
        elif food is None:
            verdict = None
        if "name_re" in c and not re.search(c["name_re"], r.name, re.I):
            verdict = False
        if "city" in c and (r.city or "").lower() not in {x.lower() for x in c["city"]}:
            verdict = False
        state = gr.raw_state(region, r.index)
        if "state" in c and state and state != c["state"]:
            verdict = False
        if "county" in c and (r.counties[0].lower() != c["county"].lower() or
                              (c.get("county_state") and state and state != c["county_state"])):
            verdict = False
        if "counties" in c:
            county = r.counties[0]
            if county in c.get("counties_ok", []) and verdict is not False:
                verdict = None
            elif county not in c["counties"]:
                verdict = False
        if "zips" in c and (r.zip or "") not in c["zips"]:
            verdict = False
        if "zip" in c and (r.zip or "") != c["zip"]:
            verdict = False
        for need in c.get("needs", []):
            if not gr.fact(r, need):
                verdict = False
        for need in c.get("not_needs", []):
            if gr.fact(r, need):
                verdict = False
        if verdict is not False and ("day" in c or "after" in c or "before" in c):
            day = c.get("day")
            date = dt.date.fromisoformat(c["date"]) if "date" in c else None
            if "after" in c or "before" in c:
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


Evaluate = Callable[[str, dict[str, Any]], tuple[list[int], list[int]]]


def build_queries(region: str, entries: list[Any], judge: Evaluate) -> list[dict[str, Any]]:
    """Query items from (family, text or turns, constraints[, forced expectation]) entries, gold from ``judge``."""
    out: list[dict[str, Any]] = []
    for entry in entries:
        family, text, c = entry[0], entry[1], entry[2]
        forced = entry[3] if len(entry) > 3 else None
        item: dict[str, Any] = {"id": f"{region}-{len(out) + 1:03d}", "family": family}
        item["turns" if isinstance(text, list) else "text"] = text
        if forced in ("clarify", "no_match") and not c:
            g, ok = [], []
        elif forced == "clarify":  # an ambiguous name: the candidates are stated, nothing recommended
            g, _ = judge(region, c)
            item["candidates"] = g
            g, ok = [], []
        elif "outside" in c:
            g, ok = [], []
        else:
            g, ok = judge(region, c)
        expect = forced or ("results" if g else "no_match")
        if expect != "results":
            g, ok = [], []
        item.update({"expect": expect, "constraints": c, "gold": g, "acceptable": ok})
        out.append(item)
    return out


def build(region: str) -> dict[str, Any]:
    out = build_queries(region, SETS[region], evaluate)
    return {"version": "1.0.0",
            "description": f"Fresh natural-language TRACE queries for the {region} HAARRRvest directory "
                           "(benchmarks/trace_sets/regions/README.md): wordings written by hand before the first "
                           "run, gold computed by regions/gold_regions.py from the raw records.",
            "directory": f"benchmarks/trace_sets/regions/{region}/records.json",
            "mapping": MAPPING.format(r=region), "state": None, "reference": REFERENCE, "queries": out}


def write_sets(folder: Path, regions: Iterable[str], build_set: Callable[[str], dict[str, Any]], *,
               ensure_ascii: bool = True) -> int:
    """Write each region's query set as ``<folder>/<region>.json`` and print its counts (every batch's main)."""
    for region in regions:
        payload = build_set(region)
        (folder / f"{region}.json").write_text(json.dumps(payload, indent=1, ensure_ascii=ensure_ascii) + "\n",
                                               encoding="utf-8")
        qs = payload["queries"]
        print(f"{region}: {len(qs)} queries, expect " +
              ", ".join(f"{k}={sum(q['expect'] == k for q in qs)}" for k in ("results", "no_match", "clarify")))
    return 0


def main() -> int:
    return write_sets(HERE, SETS, build)


if __name__ == "__main__":
    raise SystemExit(main())
