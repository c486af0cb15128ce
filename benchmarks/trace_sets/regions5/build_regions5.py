"""Extract and write the blind TRACE query sets of the fifth HAARRRvest batch (benchmarks/trace_sets/regions5).

    .venv/bin/python benchmarks/trace_sets/regions5/build_regions5.py extract <HAARRRvest git dir>   # records
    .venv/bin/python benchmarks/trace_sets/regions5/build_regions5.py                               # query sets

Written blind on 2026-12-07 by helper hb9 (README.md here), before any run and without reading the TRACE code. The
extraction and the gold rules follow ../regions4/build_regions4.py (same scrape, same record shape); the regions, the
wordings and the constraints are new.

Records: the raw scraped records of the ``food_helpline_org`` scraper of github.com/For-The-Greater-Good/HAARRRvest
(CC0 1.0), scrape date 2025-08-04, read at commit ffc449dc4 (the last commit holding those job files). Each job's
prompt ends with ``Input Data:`` and the scraped record as JSON; only that record is kept. A region is the records
whose state and whose ZIP's county (the ``zipcodes`` package's table) fall in the region's counties, in job-file
order, so indices are stable for the gold.

Query sets: every wording and its constraints are written by hand below. The gold lists are computed by
``evaluate`` in this file from the raw records, by rules this author wrote after reading the records (not taken from
the engine): the place is the ZIP's town or county (``zipcodes``), or a ZIP list for a neighbourhood; a weekday or
time window is read from ``regular_schedule`` (opens_at/closes_at, 24-hour); the kind of site and eligibility are
read from ``name``, ``description`` and ``service_attributes``. A record without a schedule is acceptable, never
gold, for an hours query.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))  # the project root, when run as a script

from benchmarks.trace_sets import haarrrvest_extract as hx  # noqa: E402
from benchmarks.trace_sets.haarrrvest_extract import (  # noqa: E402, F401  # re-exported for other batches' scripts
    COMMIT,
    DAY,
    DAYS,
    MARK,
    SCRAPER,
    _git,
    _hours,
    _slots,
    _text,
    _towns,
    zip_info,
)

# region -> (state, counties as the zipcodes package names them)
REGIONS = {
    "metro_detroit": ("MI", ("Wayne County", "Oakland County", "Macomb County")),
    "metro_atlanta": ("GA", ("Fulton County", "DeKalb County")),
    "baltimore_md": ("MD", ("Baltimore city", "Baltimore County")),
}


def extract(repo: str, regions: hx.Regions = REGIONS) -> dict[str, list[dict[str, Any]]]:
    return hx.extract(repo, regions)


def main_extract(repo: str, regions: hx.Regions = REGIONS, here: Path = HERE) -> int:
    return hx.main_extract(repo, regions, here)


# ------------------------------------------------------------------------------------------------ gold, from the data
REFERENCE = "2025-07-16T10:00"  # a Wednesday in the summer the records were scraped (as in ../regions4)
TODAY = "2025-07-16"
# A record saying it is closed or not distributing is never gold, only acceptable (a reader may still show it)
CLOSED = re.compile(r"temporarily closed|no food distribution - marked unavailable", re.I)
# A record saying it is open around the clock (the community fridges) is open on every day and at every hour
ALWAYS = re.compile(r"open 24/7", re.I)
# kind of site or requirement -> how this author reads it from the record (attributes, name, description)
NEEDS: dict[str, re.Pattern[str]] = {
    "kids_meal": re.compile(r"summer meal|all children under 18|SUN Meals", re.I),
    "senior": re.compile(r"\bseniors? ", re.I),
    "id_required": re.compile(r"\bID required|bring ID\b|photo ID is required|picture ID is required", re.I),
    "proof": re.compile(r"proof of (?:residence|address|household income)", re.I),
    "appointment": re.compile(r"appointments? required|to get appointment|sign-up for an appointment|"
                              r"make an appointment|by appointment", re.I),
    "registration": re.compile(r"registration required|pre-register|must register|needs to fill out a form|"
                               r"complete the application", re.I),
    "mobile": re.compile(r"mobile (?:pantry|market|foodbank)", re.I),
    "fridge": re.compile(r"community fridge|open 24/7", re.I),
    "no_requirements": re.compile(r"no requirements|open to all", re.I),
    "bring_bags": re.compile(r"bring own bags", re.I),
    "first_come": re.compile(r"first come, first serve", re.I),
    "drive_thru": re.compile(r"drive-thru|drive-up", re.I),
    "home_delivery": re.compile(r"home delivery|holiday delivery", re.I),
    "curbside": re.compile(r"curbside", re.I),
    "aps": re.compile(r"APS famil|APS student", re.I),
}


def _hours_verdict(r: dict[str, Any], c: dict[str, Any]) -> bool | None:
    """True/False when the schedule decides the day/time constraints, None when it cannot (no schedule, no end)."""
    if not any(k in c for k in ("day", "before", "after", "not_day")):
        return True
    if ALWAYS.search(_text(r)):
        return "not_day" not in c
    slots = _slots(r)
    if not slots:
        return None
    if "not_day" in c and any(d == c["not_day"] for d, _, _ in slots):
        return False
    if not any(k in c for k in ("day", "before", "after")):
        return True
    unknown = False
    for day, start, end in slots:
        if "day" in c and day != c["day"]:
            continue
        if "before" in c and (start is None or start >= c["before"]):
            unknown = unknown or start is None
            continue
        if "after" in c and (end is None or end <= c["after"]):
            unknown = unknown or end is None
            continue
        return True
    return None if unknown else False


def evaluate(region: str, c: dict[str, Any]) -> tuple[list[int], list[int]]:
    """(gold, acceptable) record indices for one query's constraints, read from the raw records."""
    records = json.loads((HERE / region / "records.json").read_text(encoding="utf-8"))
    gold, ok = [], []
    for i, r in enumerate(records):
        text = _text(r)
        info = zip_info(r)
        code = str((r.get("address") or {}).get("postal_code") or "")[:5]
        in_zips_also = code in c.get("zips_also", ())  # a place named by towns and by ZIPs (either will do)
        if "city" in c and not in_zips_also and not _towns(r) & {t.lower() for t in c["city"]}:
            continue
        if "zips" in c and code not in c["zips"]:
            continue
        if "zip" in c and code != c["zip"]:
            continue
        if "county" in c and not (info and info["county"] == c["county"]):  # the full name: "Baltimore city"
            continue
        if "name_re" in c and not re.search(c["name_re"], r.get("name", ""), re.I):
            continue
        if "not_name_re" in c and re.search(c["not_name_re"], r.get("name", ""), re.I):
            continue
        if any(not NEEDS[n].search(text) for n in c.get("needs", [])):
            continue
        if any(NEEDS[n].search(text) for n in c.get("not_needs", [])):
            continue
        verdict = _hours_verdict(r, c)
        if verdict is False:
            continue
        ok.append(i)
        if verdict and not CLOSED.search(text):
            gold.append(i)
    return gold, (ok if gold else [])


Q = tuple[Any, ...]
DOWNRIVER = ["Wyandotte", "Lincoln Park", "Ecorse", "Allen Park", "Taylor", "Rockwood", "Southgate", "Trenton",
             "Riverview", "River Rouge", "Melvindale", "Gibraltar", "Grosse Ile", "Flat Rock", "Woodhaven",
             "Brownstown", "Romulus"]
DET: list[Q] = [
    ("place", "food pantry in Detroit", {"city": ["Detroit"]}),
    ("place", "food in Dearborn", {"city": ["Dearborn"]}),
    ("place", "Westland food pantry", {"city": ["Westland"]}),
    ("place", "free food Lincoln Park MI", {"city": ["Lincoln Park"]}),
    ("place", "Wyandotte food pantry", {"city": ["Wyandotte"]}),
    ("place", "food help in Belleville", {"city": ["Belleville"]}),
    ("place", "food in Brightmoor", {"city": ["Brightmoor"]}),
    ("place", "food pantry Highland Park", {"city": ["Highland Park"]}),
    ("place", "Southfield food pantry", {"city": ["Southfield"]}),
    ("alias", "food in the D", {"city": ["Detroit"]}),
    ("alias", "free food in the Motor City", {"city": ["Detroit"]}),
    ("alias", "food in the Pointes", {"city": ["Grosse Pointe", "Grosse Pointe Park", "Grosse Pointe Farms",
                                               "Grosse Pointe Woods", "Grosse Pointe Shores"]}),
    ("alias", "food pantry in Dearborn Hts", {"city": ["Dearborn Heights"]}),
    ("alias", "Canton Twp food", {"city": ["Canton"]}),
    ("region", "food pantries Downriver", {"city": DOWNRIVER}),
    ("region", "food in southwest Detroit", {"zips": ["48209", "48210", "48216", "48217"]}),
    ("region", "food near Mexicantown", {"zips": ["48209"]}),
    ("region", "food in Dearborn or Dearborn Heights", {"city": ["Dearborn", "Dearborn Heights"]}),
    ("region", "Westland, Inkster or Taylor food pantry", {"city": ["Westland", "Inkster", "Taylor"]}),
    ("region", "food in Grosse Pointe or Harper Woods", {"city": ["Grosse Pointe", "Harper Woods"]}),
    ("county", "Macomb County food pantry", {"county": "Macomb County"}),
    ("county", "Oakland County food", {"county": "Oakland County"}),
    ("county", "Wayne County food open Saturday", {"county": "Wayne County", "day": 5}),
    ("hours", "Detroit food pantry open Saturday", {"city": ["Detroit"], "day": 5}),
    ("hours", "food in Dearborn on Thursday", {"city": ["Dearborn"], "day": 3}),
    ("hours", "Lincoln Park food Wednesday", {"city": ["Lincoln Park"], "day": 2}),
    ("hours", "Westland pantry Monday", {"city": ["Westland"], "day": 0}),
    ("hours", "Belleville food on a Tuesday", {"city": ["Belleville"], "day": 1}),
    ("hours", "Detroit food open Thursday evening", {"city": ["Detroit"], "day": 3, "after": 17.0}),
    ("hours", "Wyandotte food on Saturday", {"city": ["Wyandotte"], "day": 5}),
    ("hours", "food open today in Detroit", {"city": ["Detroit"], "day": 2, "date": TODAY}),
    ("hours", "Sunday food in Detroit", {"city": ["Detroit"], "day": 6}),
    ("hours", "Oak Park food Friday after 5", {"city": ["Oak Park"], "day": 4, "after": 17.0}),
    ("negation", "Detroit food, not a mobile pantry", {"city": ["Detroit"], "not_needs": ["mobile"]}),
    ("negation", "Dearborn food pantry without registration", {"city": ["Dearborn"], "not_needs": ["registration"]}),
    ("negation", "Detroit food pantry that isn't Forgotten Harvest", {"city": ["Detroit"],
                                                                      "not_name_re": r"forgotten harvest"}),
    ("negation", "Detroit food not on Saturday", {"city": ["Detroit"], "not_day": 5}),
    ("negation", "Dearborn Heights food that isn't just for seniors", {"city": ["Dearborn Heights"],
                                                                        "not_needs": ["senior"]}),
    ("negation", "Highland Park food, no appointment needed", {"city": ["Highland Park"],
                                                               "not_needs": ["appointment"]}),
    ("eligibility", "mobile pantry in Detroit", {"city": ["Detroit"], "needs": ["mobile"]}),
    ("eligibility", "kids summer meals in Detroit", {"city": ["Detroit"], "needs": ["kids_meal"]}),
    ("eligibility", "senior food in Ecorse", {"city": ["Ecorse"], "needs": ["senior"]}),
    ("eligibility", "drive-thru food pantry Detroit", {"city": ["Detroit"], "needs": ["drive_thru"]}),
    ("eligibility", "Wayne County pantry that delivers to your home", {"county": "Wayne County",
                                                                       "needs": ["home_delivery"]}),
    ("eligibility", "pantry in Oakland County by appointment", {"county": "Oakland County",
                                                                "needs": ["appointment"]}),
    ("eligibility", "Belleville food pantry that asks for proof of income", {"city": ["Belleville"],
                                                                             "needs": ["proof"]}),
    ("name", "Cass Community Social Services", {"name_re": r"cass community"}),
    ("name", "Forgotten Harvest Community Choice Market", {"name_re": r"community choice market"}),
    ("name", "Focus Hope senior delivery", {"name_re": r"focus hope"}),
    ("name", "American Indian Family Services", {"name_re": r"american indian family"}),
    ("name", "Forgotten Harvest mobile pantry", {"name_re": r"forgotten harvest.*mobile|mobile.*forgotten harvest"},
     "clarify"),
    ("name", "the Gleaners pantry in Wyandotte", {"name_re": r"gleaners", "city": ["Wyandotte"]}),
    ("name", "Bridging The Gaps food pantry", {"name_re": r"bridging the gaps"}, "clarify"),
    ("name", "Bridging the Gaps in Inkster", {"name_re": r"bridging the gaps", "city": ["Inkster"]}),
    ("name", "Alternatives for Girls pantry", {"name_re": r"alternatives for girls"}),
    ("name", "My Brother's Keeper Detroit", {"name_re": r"my brother.s keeper"}),
    ("name", "the pantry at Western International High School", {"name_re": r"western international"}),
    ("name", "Crossroads of Michigan", {"name_re": r"crossroads of michigan"}),
    ("zip", "food near 48235", {"zip": "48235"}),
    ("zip", "48146 food pantry", {"zip": "48146"}),
    ("zip", "food in 48208", {"zip": "48208"}),
    ("clarify", "I need groceries", {}, "clarify"),
    ("clarify", "mobile pantry on Thursday", {}, "clarify"),
    ("no_match", "food pantry in Ann Arbor", {"outside": "Ann Arbor"}, "no_match"),
    ("no_match", "Flint food bank", {"outside": "Flint"}, "no_match"),
    ("no_match", "food in Hamtramck", {"city": ["Hamtramck"]}),
    ("no_match", "kids meals in Dearborn", {"city": ["Dearborn"], "needs": ["kids_meal"]}),
    ("followup", ["food in Wyandotte", "any on Wednesday?"], {"city": ["Wyandotte"], "day": 2}),
    ("followup", ["food pantry in Westland", "what about Canton?"], {"city": ["Canton"]}),
]

SOUTH_FULTON = ["South Fulton", "City of South Fulton", "College Park", "East Point", "Hapeville", "Fairburn",
                "Union City", "Palmetto", "Chattahoochee Hills"]
ATL: list[Q] = [
    ("place", "food pantry in Atlanta", {"city": ["Atlanta"]}),
    ("place", "food in Decatur", {"city": ["Decatur"]}),
    ("place", "Stone Mountain food pantry", {"city": ["Stone Mountain"]}),
    ("place", "free food in Lithonia", {"city": ["Lithonia"]}),
    ("place", "Fairburn food pantry", {"city": ["Fairburn"]}),
    ("place", "food in College Park GA", {"city": ["College Park"]}),
    ("place", "Hapeville food", {"city": ["Hapeville"]}),
    ("place", "food in West End", {"city": ["West End"]}),
    ("place", "Grant Park food pantry", {"city": ["Grant Park"]}),
    ("alias", "food in the ATL", {"city": ["Atlanta"]}),
    ("alias", "free food in the A", {"city": ["Atlanta"]}),
    ("alias", "food in O4W", {"city": ["Old Fourth Ward"]}),
    ("alias", "food near the AUC", {"city": ["Atlanta University Center"]}),
    ("alias", "Midtown ATL food pantry", {"city": ["Midtown Atlanta", "Midtown"]}),
    ("region", "food in South Fulton", {"city": SOUTH_FULTON, "zips_also": ["30349"]}),
    ("region", "Westside Atlanta food", {"zips": ["30314", "30318"]}),
    ("region", "Tri-Cities food pantry", {"city": ["East Point", "College Park", "Hapeville"],
                                           "zips_also": ["30344", "30337"]}),
    ("region", "food in Pittsburgh or Capitol View, Atlanta", {"city": ["Pittsburgh", "Capitol View"]}),
    ("region", "food in Decatur or Stone Mountain", {"city": ["Decatur", "Stone Mountain"]}),
    ("region", "food in Oakhurst, Decatur", {"city": ["Oakhurst"]}),
    ("county", "DeKalb County food pantry", {"county": "DeKalb County"}),
    ("county", "Fulton County food open Saturday", {"county": "Fulton County", "day": 5}),
    ("county", "food in Fulton County on Tuesday", {"county": "Fulton County", "day": 1}),
    ("hours", "Atlanta food pantry open Thursday", {"city": ["Atlanta"], "day": 3}),
    ("hours", "Atlanta food on Sunday", {"city": ["Atlanta"], "day": 6}),
    ("hours", "Decatur food on Saturday", {"city": ["Decatur"], "day": 5}),
    ("hours", "Atlanta pantry open Monday after 6pm", {"city": ["Atlanta"], "day": 0, "after": 18.0}),
    ("hours", "Pittsburgh Atlanta food Thursday", {"city": ["Pittsburgh"], "day": 3}),
    ("hours", "food open today in Atlanta", {"city": ["Atlanta"], "day": 2, "date": TODAY}),
    ("hours", "Fairburn pantry Tuesday evening", {"city": ["Fairburn"], "day": 1, "after": 17.0}),
    ("hours", "Atlanta food Saturday before noon", {"city": ["Atlanta"], "day": 5, "before": 12.0}),
    ("hours", "Lithonia pantry Wednesday", {"city": ["Lithonia"], "day": 2}),
    ("negation", "Atlanta food pantry, no ID needed", {"city": ["Atlanta"], "not_needs": ["id_required"]}),
    ("negation", "Atlanta food that's not a mobile market", {"city": ["Atlanta"], "not_needs": ["mobile"]}),
    ("negation", "Atlanta pantry without an appointment", {"city": ["Atlanta"], "not_needs": ["appointment"]}),
    ("negation", "Atlanta food not on Tuesday", {"city": ["Atlanta"], "not_day": 1}),
    ("negation", "food in Decatur that isn't at a school", {"city": ["Decatur"], "not_name_re": r"school"}),
    ("negation", "Atlanta food without registering", {"city": ["Atlanta"], "not_needs": ["registration"]}),
    ("eligibility", "Atlanta pantry that needs ID", {"city": ["Atlanta"], "needs": ["id_required"]}),
    ("eligibility", "mobile market in Fairburn", {"city": ["Fairburn"], "needs": ["mobile"]}),
    ("eligibility", "Atlanta pantry with no requirements", {"city": ["Atlanta"], "needs": ["no_requirements"]}),
    ("eligibility", "Atlanta pantry where you bring your own bags", {"city": ["Atlanta"], "needs": ["bring_bags"]}),
    ("eligibility", "senior center food in Fulton County", {"county": "Fulton County", "needs": ["senior"]}),
    ("eligibility", "Atlanta pantry by appointment", {"city": ["Atlanta"], "needs": ["appointment"]}),
    ("eligibility", "curbside food pickup Atlanta", {"city": ["Atlanta"], "needs": ["curbside"]}),
    ("eligibility", "food pantry for APS families in Atlanta", {"city": ["Atlanta"], "needs": ["aps"]}),
    ("name", "Urban Recipe food co-op", {"name_re": r"urban recipe"}),
    ("name", "Operation Defrost", {"name_re": r"d\.e\.f\.r\.o\.s\.t"}),
    ("name", "Georgia Harm Reduction pantry", {"name_re": r"georgia harm reduction"}),
    ("name", "Atlanta Inner-City Ministry", {"name_re": r"inner- ?city ministry"}),
    ("name", "the Venable Food Market at First Presbyterian", {"name_re": r"first presbyterian church of atlanta"}),
    ("name", "City Bridges pantry in Fairburn", {"name_re": r"city bridges"}),
    ("name", "MUST Ministries pantry", {"name_re": r"must ministries"}),
    ("name", "the SAFE Center at Tri-Cities High", {"name_re": r"tri-cities hs"}),
    ("name", "AME church food pantry", {"name_re": r"\bAME\b"}, "clarify"),
    ("name", "Hapeville Senior Center", {"name_re": r"hapeville senior"}),
    ("name", "Summerhill pantry", {"name_re": r"summerhill"}),
    ("name", "POWER Atlanta pantry", {"name_re": r"p\.o\.w\.e\.r"}),
    ("name", "Pittsburgh Kingdom Doors Baptist", {"name_re": r"kingdom doors"}),
    ("zip", "food near 30310", {"zip": "30310"}),
    ("zip", "30314 food pantry", {"zip": "30314"}),
    ("zip", "food in 30032", {"zip": "30032"}),
    ("clarify", "where can I get free food", {}, "clarify"),
    ("clarify", "food pantry open Saturday", {}, "clarify"),
    ("no_match", "food pantry in Marietta", {"outside": "Marietta"}, "no_match"),
    ("no_match", "food in Savannah", {"outside": "Savannah"}, "no_match"),
    ("no_match", "food in Sandy Springs", {"city": ["Sandy Springs"]}),
    ("no_match", "Decatur kids summer meals", {"city": ["Decatur"], "needs": ["kids_meal"]}),
    ("followup", ["food in Decatur", "any open on Sunday?"], {"city": ["Decatur"], "day": 6}),
    ("followup", ["pantries in Stone Mountain", "and Lithonia?"], {"city": ["Lithonia"]}),
]

CITY = "Baltimore city"  # the independent city, a county of its own in the ZIP table
BROOKLYN = ["Brooklyn", "Brooklyn Homes", "Brooklyn Park"]
BAL: list[Q] = [
    ("place", "food in Baltimore", {"county": CITY}),
    ("place", "food pantry in Essex MD", {"city": ["Essex"]}),
    ("place", "food in Canton", {"city": ["Canton"]}),
    ("place", "Brooklyn Baltimore food", {"city": BROOKLYN}),
    ("place", "food in Windsor Mill", {"city": ["Windsor Mill"]}),
    ("place", "Halethorpe food pantry", {"city": ["Halethorpe"]}),
    ("place", "food in Upton", {"city": ["Upton"]}),
    ("place", "Nottingham MD pantry", {"city": ["Nottingham"]}),
    ("alias", "food in Bmore", {"county": CITY}),
    ("alias", "free food in Charm City", {"county": CITY}),
    ("alias", "food in Sandtown", {"city": ["Sandtown-Winchester"]}),
    ("alias", "food in Fells Point", {"city": ["Upper Fells Point", "Fells Point"]}),
    ("alias", "food in Lansdowne", {"city": ["Lansdowne - Baltimore Highlands", "Lansdowne"]}),
    ("alias", "food near Park Heights", {"zips": ["21215"]}),
    ("region", "food in southeast Baltimore", {"zips": ["21224", "21231"]}),
    ("region", "food in West Baltimore", {"city": ["Upton", "Sandtown-Winchester", "Harlem Park", "Penn North"],
                                          "zips_also": ["21216", "21223", "21229"]}),
    ("region", "food in Essex or Dundalk", {"city": ["Essex", "Dundalk"]}),
    ("region", "food in South Baltimore, Brooklyn or Curtis Bay", {"zips": ["21225", "21226", "21230"]}),
    ("region", "food in Lauraville or Hamilton", {"city": ["Lauraville", "Hamilton"]}),
    ("region", "food near Arbutus", {"zips": ["21227"]}),
    ("county", "Baltimore County food pantry", {"county": "Baltimore County"}),
    ("county", "Baltimore City food open Saturday", {"county": CITY, "day": 5}),
    ("county", "summer meals in Baltimore County", {"county": "Baltimore County", "needs": ["kids_meal"]}),
    ("hours", "Brooklyn food Friday", {"city": BROOKLYN, "day": 4}),
    ("hours", "food in Baltimore on Wednesday", {"county": CITY, "day": 2}),
    ("hours", "Essex food Thursday", {"city": ["Essex"], "day": 3}),
    ("hours", "Baltimore food on Sunday", {"county": CITY, "day": 6}),
    ("hours", "Baltimore food Tuesday evening", {"county": CITY, "day": 1, "after": 17.0}),
    ("hours", "food open today in Baltimore", {"county": CITY, "day": 2, "date": TODAY}),
    ("hours", "Halethorpe food Wednesday", {"city": ["Halethorpe"], "day": 2}),
    ("hours", "Sandtown food on Monday", {"city": ["Sandtown-Winchester"], "day": 0}),
    ("hours", "Windsor Mill food on Tuesday", {"city": ["Windsor Mill"], "day": 1}),
    ("negation", "Baltimore food that isn't a community fridge", {"county": CITY, "not_needs": ["fridge"]}),
    ("negation", "Essex food with no ID needed", {"city": ["Essex"], "not_needs": ["id_required"]}),
    ("negation", "Baltimore pantry that doesn't need ID", {"county": CITY, "not_needs": ["id_required"]}),
    ("negation", "Brooklyn food pantry, not at a school", {"city": BROOKLYN, "not_name_re": r"elementary|school"}),
    ("negation", "Baltimore pantry where I don't have to bring bags", {"county": CITY, "not_needs": ["bring_bags"]}),
    ("negation", "Baltimore County food, not the Community Assistance Network",
     {"county": "Baltimore County", "not_name_re": r"community assistance network"}),
    ("eligibility", "community fridge in Baltimore", {"county": CITY, "needs": ["fridge"]}),
    ("eligibility", "kids summer meals Windsor Mill", {"city": ["Windsor Mill"], "needs": ["kids_meal"]}),
    ("eligibility", "Essex pantry that needs proof of address", {"city": ["Essex"], "needs": ["proof"]}),
    ("eligibility", "senior food in Sandtown", {"city": ["Sandtown-Winchester"], "needs": ["senior"]}),
    ("eligibility", "Baltimore County pantry by appointment", {"county": "Baltimore County",
                                                               "needs": ["appointment"]}),
    ("eligibility", "24 hour free food in Canton", {"city": ["Canton"], "needs": ["fridge"]}),
    ("eligibility", "Baltimore food pantry open to all", {"county": CITY, "needs": ["no_requirements"]}),
    ("eligibility", "first come first served pantry in Brooklyn", {"city": BROOKLYN, "needs": ["first_come"]}),
    ("name", "Pratt Free Market", {"name_re": r"pratt free market"}),
    ("name", "the free pantry behind the Canton library", {"name_re": r"canton free little pantry"}),
    ("name", "So What Else giveaway", {"name_re": r"so what else"}, "clarify"),
    ("name", "So What Else at Lakeview Towers", {"name_re": r"so what else @ lakeview"}),
    ("name", "Bmore Community Fridge", {"name_re": r"bmore community fridge"}, "clarify"),
    ("name", "Plantation Park Heights fridge", {"name_re": r"plantation park heights"}),
    ("name", "Sandtown Winchester Senior Center", {"name_re": r"sandtown winchester senior"}),
    ("name", "Community Assistance Network pantry in Essex", {"name_re": r"community assistance network"},
     "clarify"),
    ("name", "Lansdowne High School pantry", {"name_re": r"lansdowne high"}),
    ("name", "The Pantry at Community Christian Church", {"name_re": r"community christian church"}),
    ("name", "Barbie Mansion fridge", {"name_re": r"barbie mansion"}),
    ("name", "AfriThrive", {"name_re": r"afrithrive"}),
    ("zip", "food near 21225", {"zip": "21225"}),
    ("zip", "21217 food", {"zip": "21217"}),
    ("zip", "food in 21221", {"zip": "21221"}),
    ("clarify", "I need food tonight", {}, "clarify"),
    ("clarify", "where's the nearest community fridge", {}, "clarify"),
    ("no_match", "food pantry in Annapolis", {"outside": "Annapolis"}, "no_match"),
    ("no_match", "food in Ocean City MD", {"outside": "Ocean City"}, "no_match"),
    ("no_match", "Towson food pantry", {"city": ["Towson"]}),
    ("no_match", "community fridge in Essex", {"city": ["Essex"], "needs": ["fridge"]}),
    ("followup", ["food in Essex", "which are open Friday?"], {"city": ["Essex"], "day": 4}),
    ("followup", ["community fridges in Baltimore", "any in Fells Point?"],
     {"city": ["Upper Fells Point", "Fells Point"], "needs": ["fridge"]}),
]

SETS = {"metro_detroit": DET, "metro_atlanta": ATL, "baltimore_md": BAL}


def build_queries(region: str, entries: list[Q]) -> list[dict[str, Any]]:
    """This batch's query items (haarrrvest_extract.build_queries with this batch's evaluate)."""
    return hx.build_queries(region, entries, evaluate)


def build(region: str) -> dict[str, Any]:
    return {"version": "1.0.0",
            "description": f"Blind natural-language TRACE queries for the {region} HAARRRvest directory "
                           "(benchmarks/trace_sets/regions5/README.md): written by hand on 2026-12-07 by helper hb9 "
                           "before any run and without reading the TRACE code; gold computed by build_regions5.py's "
                           "evaluate from the raw records. Not to be tuned on.",
            "directory": f"benchmarks/trace_sets/regions5/{region}/records.json",
            "mapping": f"benchmarks/trace_sets/regions5/{region}/mapping.json", "state": None,
            "reference": REFERENCE, "queries": build_queries(region, SETS[region])}


def main() -> int:
    return hx.main(SETS, build, HERE)


if __name__ == "__main__":
    raise SystemExit(main_extract(sys.argv[2]) if sys.argv[1:2] == ["extract"] else main())
