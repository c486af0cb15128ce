"""Extract and write the blind TRACE query sets of the fourth HAARRRvest batch (benchmarks/trace_sets/regions4).

    .venv/bin/python benchmarks/trace_sets/regions4/build_regions4.py extract <HAARRRvest git dir>   # records
    .venv/bin/python benchmarks/trace_sets/regions4/build_regions4.py                               # query sets

Written blind on 2026-12-07 by helper hb7 (README.md here), before any run and without reading the TRACE code.

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
    "union_nj": ("NJ", ("Union County",)),
    "hudson_nj": ("NJ", ("Hudson County",)),
    "greater_boston": ("MA", ("Suffolk County", "Middlesex County", "Essex County", "Norfolk County")),
}


def extract(repo: str, regions: hx.Regions = REGIONS) -> dict[str, list[dict[str, Any]]]:
    return hx.extract(repo, regions)


def main_extract(repo: str, regions: hx.Regions = REGIONS, here: Path = HERE) -> int:
    return hx.main_extract(repo, regions, here)


# ------------------------------------------------------------------------------------------------ gold, from the data
REFERENCE = "2025-07-16T10:00"  # a Wednesday inside the summer meal programmes the NJ records describe
TODAY = "2025-07-16"
NOT_FOOD = re.compile(r"\bDTA\b|snap assistance|farmers market", re.I)
# kind of site or requirement -> how this author reads it from the record (attributes, name, description)
NEEDS: dict[str, re.Pattern[str]] = {
    "kids_meal": re.compile(r"summer meal program|all children under 18", re.I),
    "students_only": re.compile(r"students (?:& staff )?only", re.I),
    "senior": re.compile(r"seniors only|age 60\+", re.I),
    "id_required": re.compile(r"\bID required|bring (?:an )?ID\b", re.I),
    "appointment": re.compile(r"appointments? required|appointment only|by appt|call for appointment|"
                              r"pre-registration required|by appointment", re.I),
    "mobile": re.compile(r"mobile (?:pantry|market)", re.I),
    "soup_kitchen": re.compile(r"soup kitchen|hot meals|my brother's table|pine street inn/meals", re.I),
    "fridge": re.compile(r"community fridge|open 24/7", re.I),
    "no_requirements": re.compile(r"no requirements|open to all|walk-ins accepted", re.I),
    "drive_thru": re.compile(r"drive-thru only", re.I),
    "bring_bags": re.compile(r"bring own bags|bring (?:your own reusable |a box or )bag", re.I),
    "snap": re.compile(r"\bDTA\b|snap assistance", re.I),
}


def _hours_verdict(r: dict[str, Any], c: dict[str, Any]) -> bool | None:
    """True/False when the schedule decides the day/time constraints, None when it cannot (no schedule, no end)."""
    if not any(k in c for k in ("day", "before", "after", "not_day")):
        return True
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
        wants_snap = "snap" in c.get("needs", [])
        if NOT_FOOD.search(text) and not wants_snap:
            continue
        if "city" in c and not _towns(r) & {t.lower() for t in c["city"]}:
            continue
        if "zips" in c and code not in c["zips"]:
            continue
        if "zip" in c and code != c["zip"]:
            continue
        if "county" in c and not (info and info["county"] == f"{c['county']} County"):
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
        if verdict:
            gold.append(i)
    return gold, ok


# ------------------------------------------------------------------------------------------------ the queries
Q = tuple[str, Any, dict[str, Any]] | tuple[str, Any, dict[str, Any], str]
ELIZABETH = ["Elizabeth", "Elizabethport"]
PLAINFIELDS = ["Plainfield", "North Plainfield"]
UNION: list[Q] = [
    ("place", "food in Elizabeth NJ", {"city": ELIZABETH}),
    ("place", "free meals for kids in Plainfield", {"city": ["Plainfield"], "needs": ["kids_meal"]}),
    ("place", "food pantry in Linden", {"city": ["Linden"], "not_needs": ["kids_meal"]}),
    ("place", "where can I get food in Rahway?", {"city": ["Rahway"]}),
    ("place", "Roselle food help", {"city": ["Roselle"]}),
    ("place", "Scotch Plains food", {"city": ["Scotch Plains"]}),
    ("place", "summer lunch for my kids in North Plainfield", {"city": ["North Plainfield"], "needs": ["kids_meal"]}),
    ("place", "free food near Elizabeth, New Jersey", {"city": ELIZABETH}),
    ("alias", "food in Eliz NJ", {"city": ELIZABETH}),
    ("alias", "free lunch for kids in E-Port", {"zips": ["07206"], "needs": ["kids_meal"]}),
    ("alias", "food help in the Queen City", {"city": ["Plainfield"]}),
    ("alias", "Elizabethport meals", {"zips": ["07206"]}),
    ("alias", "food in No. Plainfield", {"city": ["North Plainfield"]}),
    ("region", "food in the Plainfields", {"city": PLAINFIELDS}),
    ("region", "kids meals in Elizabeth or Linden", {"city": [*ELIZABETH, "Linden"], "needs": ["kids_meal"]}),
    ("region", "food sites in eastern Union County: Elizabeth, Linden, Rahway, Roselle",
     {"city": [*ELIZABETH, "Linden", "Rahway", "Roselle"]}),
    ("region", "food near the Elizabeth train station, 07201", {"zips": ["07201"]}),
    ("region", "Rahway or Linden food pantry", {"city": ["Rahway", "Linden"], "not_needs": ["kids_meal"]}),
    ("county", "Union County NJ food", {"county": "Union"}),
    ("county", "food pantries in Union County that aren't summer kids meals", {"county": "Union",
                                                                               "not_needs": ["kids_meal"]}),
    ("county", "Union County summer meal sites open Friday", {"county": "Union", "needs": ["kids_meal"], "day": 4}),
    ("hours", "kids lunch in Plainfield open on Friday", {"city": ["Plainfield"], "needs": ["kids_meal"], "day": 4}),
    ("hours", "food in Linden on Saturday", {"city": ["Linden"], "day": 5}),
    ("hours", "anything open Sunday in Plainfield", {"city": ["Plainfield"], "day": 6}),
    ("hours", "Elizabeth food open Saturday", {"city": ELIZABETH, "day": 5}),
    ("hours", "kids meals in Elizabeth after 6pm", {"city": ELIZABETH, "needs": ["kids_meal"], "after": 18.0}),
    ("hours", "Rahway kids meal Monday evening", {"city": ["Rahway"], "needs": ["kids_meal"], "day": 0,
                                                 "after": 17.0}),
    ("hours", "Linden summer meals on Friday", {"city": ["Linden"], "needs": ["kids_meal"], "day": 4}),
    ("hours", "food in Plainfield open Tuesday afternoon", {"city": ["Plainfield"], "day": 1, "after": 12.0}),
    ("hours", "kids lunch in Plainfield before noon", {"city": ["Plainfield"], "needs": ["kids_meal"],
                                                          "before": 12.0}),
    ("negation", "summer meals in Elizabeth that are not students-only", {"city": ELIZABETH, "needs": ["kids_meal"],
                                                                        "not_needs": ["students_only"]}),
    ("negation", "Rahway kids meals, not just for students", {"city": ["Rahway"], "needs": ["kids_meal"],
                                                              "not_needs": ["students_only"]}),
    ("negation", "Plainfield food, not a school", {"city": ["Plainfield"], "not_name_re": r"school|academy"}),
    ("negation", "Elizabeth food not on a Monday", {"city": ELIZABETH, "not_day": 0}),
    ("negation", "Linden food, not at a church", {"city": ["Linden"], "not_name_re": r"church"}),
    ("negation", "food in Plainfield where no ID is needed", {"city": ["Plainfield"], "not_needs": ["id_required"]}),
    ("eligibility", "food in Plainfield that needs ID", {"city": ["Plainfield"], "needs": ["id_required"]}),
    ("eligibility", "students-only meal sites in Elizabeth", {"city": ELIZABETH, "needs": ["students_only"]}),
    ("eligibility", "where do I bring my own bags for food in Elizabeth", {"city": ELIZABETH,
                                                                            "needs": ["bring_bags"]}),
    ("eligibility", "help applying for SNAP in Union County", {"county": "Union", "needs": ["snap"]}),
    ("eligibility", "free meals for children under 18 in Rahway", {"city": ["Rahway"], "needs": ["kids_meal"]}),
    ("name", "Linden Food Pantry", {"name_re": r"linden food pantry"}),
    ("name", "People on the Rise pantry", {"name_re": r"people on the rise"}),
    ("name", "Greater Mount Moriah Baptist Church food", {"name_re": r"greater mt moriah"}),
    ("name", "the bag lunch at the Elizabeth train station", {"name_re": r"train station bag lunch"}),
    ("name", "Boys and Girls Club in Plainfield", {"name_re": r"boy'?s ?(?:&|and) ?girl'?s club",
                                                   "city": ["Plainfield"]}),
    ("name", "Boys & Girls Club", {"name_re": r"boy'?s ?(?:&|and) ?girl'?s club"}, "clarify"),
    ("name", "YMCA", {"name_re": r"\bYMCA\b"}, "clarify"),
    ("name", "Elizabeth Public Library", {"name_re": r"elizabeth library"}, "clarify"),
    ("name", "Elizabeth library Peterstown branch", {"name_re": r"elizabeth library peterstown"}),
    ("name", "Mattano Park summer meals", {"name_re": r"mattano park"}),
    ("name", "House of Prayer Church of God in Christ Plainfield", {"name_re": r"house of prayer"}),
    ("name", "Neighborhood Health Plainfield", {"name_re": r"neighborhood health"}),
    ("zip", "food in 07206", {"zip": "07206"}),
    ("zip", "food near 07036", {"zip": "07036"}),
    ("zip", "kids meals near 07062", {"zip": "07062", "needs": ["kids_meal"]}),
    ("clarify", "free lunch for my kids", {"needs": ["kids_meal"]}),
    ("clarify", "food pantry open Saturday", {"day": 5}),
    ("no_match", "food pantry in Newark", {"outside": "Newark"}, "no_match"),
    ("no_match", "food bank in Morristown", {"outside": "Morristown"}, "no_match"),
    ("no_match", "food pantry in Westfield NJ", {"city": ["Westfield"]}),
    ("no_match", "kids meals in Linden on Sunday", {"city": ["Linden"], "needs": ["kids_meal"], "day": 6}),
    ("followup", ["kids meals in Plainfield", "which ones are open Friday?"], {"city": ["Plainfield"],
                                                                              "needs": ["kids_meal"], "day": 4}),
    ("followup", ["food in Linden", "and in Rahway?"], {"city": ["Rahway"]}),
]

JC = ["Jersey City"]
NORTH_HUDSON = ["Union City", "West New York", "North Bergen", "Guttenberg", "Weehawken"]
HUDSON: list[Q] = [
    ("place", "food in Jersey City", {"city": JC}),
    ("place", "free lunch for kids in Union City", {"city": ["Union City"], "needs": ["kids_meal"]}),
    ("place", "Bayonne summer meals for kids", {"city": ["Bayonne"], "needs": ["kids_meal"]}),
    ("place", "food pantry in Hoboken", {"city": ["Hoboken"]}),
    ("place", "Kearny kids meals", {"city": ["Kearny"], "needs": ["kids_meal"]}),
    ("place", "food in Harrison NJ", {"city": ["Harrison"]}),
    ("place", "Secaucus food pantry", {"city": ["Secaucus"]}),
    ("place", "North Bergen food pantry", {"city": ["North Bergen"]}),
    ("place", "where can kids eat for free in West New York?", {"city": ["West New York"], "needs": ["kids_meal"]}),
    ("alias", "food in JC", {"city": JC}),
    ("alias", "free meals for kids in WNY", {"city": ["West New York"], "needs": ["kids_meal"]}),
    ("alias", "food help in Chilltown", {"city": JC}),
    ("alias", "summer lunch in Jersey City Heights", {"zips": ["07307"], "needs": ["kids_meal"]}),
    ("alias", "kids meals near Journal Sq", {"zips": ["07306"], "needs": ["kids_meal"]}),
    ("region", "food in North Hudson", {"city": NORTH_HUDSON}),
    ("region", "kids meals in Greenville, Jersey City", {"zips": ["07305"], "needs": ["kids_meal"]}),
    ("region", "downtown Jersey City food", {"zips": ["07302", "07310", "07311"]}),
    ("region", "Bergen-Lafayette food pantry", {"zips": ["07304"], "not_needs": ["kids_meal"]}),
    ("region", "kids meals in Kearny or Harrison", {"city": ["Kearny", "Harrison"], "needs": ["kids_meal"]}),
    ("region", "food on the Hoboken and Jersey City waterfront", {"zips": ["07030", "07302", "07310", "07311"]}),
    ("county", "Hudson County food", {"county": "Hudson"}),
    ("county", "Hudson County food pantries, not kids meal sites", {"county": "Hudson", "not_needs": ["kids_meal"]}),
    ("county", "Hudson County food open on Saturday", {"county": "Hudson", "day": 5}),
    ("hours", "Jersey City food open Saturday", {"city": JC, "day": 5}),
    ("hours", "food in Hoboken on a Friday", {"city": ["Hoboken"], "day": 4}),
    ("hours", "anything open Sunday in Jersey City", {"city": JC, "day": 6}),
    ("hours", "Jersey City kids meals after 6pm", {"city": JC, "needs": ["kids_meal"], "after": 18.0}),
    ("hours", "Union City kids lunch on Friday", {"city": ["Union City"], "needs": ["kids_meal"], "day": 4}),
    ("hours", "Secaucus pantry Wednesday afternoon", {"city": ["Secaucus"], "day": 2, "after": 12.0}),
    ("hours", "Bayonne kids meal Tuesday before noon", {"city": ["Bayonne"], "needs": ["kids_meal"], "day": 1,
                                                         "before": 12.0}),
    ("hours", "Kearny kids meals Monday afternoon", {"city": ["Kearny"], "needs": ["kids_meal"], "day": 0,
                                                      "after": 12.0}),
    ("hours", "Jersey City pantry open Thursday", {"city": JC, "day": 3, "not_needs": ["kids_meal"]}),
    ("negation", "West New York kids meals that aren't students only", {"city": ["West New York"],
                                                                         "needs": ["kids_meal"],
                                                                         "not_needs": ["students_only"]}),
    ("negation", "Jersey City food pantry, no ID needed", {"city": JC, "not_needs": ["kids_meal", "id_required"]}),
    ("negation", "Hoboken food without an application", {"city": ["Hoboken"], "not_needs": ["id_required"]}),
    ("negation", "Union City kids meals, not at a school", {"city": ["Union City"], "needs": ["kids_meal"],
                                                             "not_name_re": r"school|academy|center"}),
    ("negation", "Jersey City kids meals not at the library", {"city": JC, "needs": ["kids_meal"],
                                                                "not_name_re": r"JCFPL|library"}),
    ("eligibility", "pantry in North Bergen by appointment", {"city": ["North Bergen"], "needs": ["appointment"]}),
    ("eligibility", "Hoboken food that needs ID", {"city": ["Hoboken"], "needs": ["id_required"]}),
    ("eligibility", "students-only meal sites in Jersey City", {"city": JC, "needs": ["students_only"]}),
    ("eligibility", "SNAP application help in Jersey City", {"city": JC, "needs": ["snap"]}),
    ("eligibility", "Jersey City pantry where I bring ID and proof of address", {"city": JC,
                                                                                 "needs": ["id_required"]}),
    ("name", "Secaucus Food Pantry", {"name_re": r"secaucus food pantry"}),
    ("name", "Christ the King Church pantry", {"name_re": r"christ the king"}),
    ("name", "NB CARES", {"name_re": r"NB C\.?A\.?R\.?E\.?S"}),
    ("name", "Catholic Charities in Union City", {"name_re": r"catholic charities"}),
    ("name", "North Hudson Community Action", {"name_re": r"north hudson community action"}),
    ("name", "Woodcliff Community Reformed Church", {"name_re": r"woodcliff"}),
    ("name", "BITE NJ at Saint Michael's", {"name_re": r"bite nj"}),
    ("name", "the Cunningham branch library kids meals", {"name_re": r"cunningham branch"}),
    ("name", "Jersey City library kids meals", {"name_re": r"JCFPL"}, "clarify"),
    ("name", "Empowerment Academy Charter School", {"name_re": r"empowerment academy"}, "clarify"),
    ("name", "Monroe Gardens community center Hoboken", {"name_re": r"monroe gardens"}),
    ("zip", "food near 07087", {"zip": "07087"}),
    ("zip", "07002 kids meals", {"zip": "07002", "needs": ["kids_meal"]}),
    ("zip", "food pantry 07047", {"zip": "07047"}),
    ("clarify", "free lunch for my kids this summer", {"needs": ["kids_meal"]}),
    ("clarify", "food pantry open Saturday", {"day": 5}),
    ("no_match", "food pantry in Paterson", {"outside": "Paterson"}, "no_match"),
    ("no_match", "food in Hackensack", {"outside": "Hackensack"}, "no_match"),
    ("no_match", "kids meals in Weehawken", {"city": ["Weehawken"], "needs": ["kids_meal"]}),
    ("no_match", "Hoboken food on Sunday", {"city": ["Hoboken"], "day": 6}),
    ("followup", ["kids meals in Bayonne", "any on Friday?"], {"city": ["Bayonne"], "needs": ["kids_meal"], "day": 4}),
    ("followup", ["food in Kearny", "what about Harrison?"], {"city": ["Harrison"]}),
]

BOSTON = ["Boston", "Roxbury", "Roxbury Crossing", "Dorchester", "Dorchester Center", "Mattapan", "Jamaica Plain",
          "East Boston", "West Roxbury", "Brighton", "Allston", "Hyde Park", "Charlestown", "South Boston",
          "Roslindale"]
DORCHESTER = ["Dorchester", "Dorchester Center"]
ROXBURY = ["Roxbury", "Roxbury Crossing"]
NORTH_SHORE = ["Lynn", "Salem", "Gloucester", "Beverly", "Peabody", "Swampscott", "Marblehead", "Saugus"]
MERRIMACK = ["Lowell", "Lawrence", "Methuen", "Dracut", "Tewksbury", "Chelmsford", "Billerica", "Westford",
             "Tyngsboro", "Tyngsborough", "Andover", "North Andover", "Haverhill"]
BOS: list[Q] = [
    ("place", "food in Boston", {"city": BOSTON}),
    ("place", "food in Lowell", {"city": ["Lowell"]}),
    ("place", "Cambridge food pantry", {"city": ["Cambridge"]}),
    ("place", "free food in Lynn", {"city": ["Lynn"]}),
    ("place", "Medford food pantry", {"city": ["Medford"]}),
    ("place", "food help in Malden", {"city": ["Malden"]}),
    ("place", "Woburn food pantry", {"city": ["Woburn"]}),
    ("place", "food in Mattapan", {"city": ["Mattapan"]}),
    ("place", "Stoneham food pantry", {"city": ["Stoneham"]}),
    ("place", "Watertown food pantry", {"city": ["Watertown"]}),
    ("alias", "food in JP", {"city": ["Jamaica Plain"]}),
    ("alias", "food in Dot", {"city": DORCHESTER}),
    ("alias", "Eastie food", {"city": ["East Boston"]}),
    ("alias", "free food in Beantown", {"city": BOSTON}),
    ("alias", "food in Tyngsboro", {"city": ["Tyngsboro", "Tyngsborough"]}),
    ("region", "food pantries on the North Shore", {"city": NORTH_SHORE}),
    ("region", "Merrimack Valley food pantry", {"city": MERRIMACK}),
    ("region", "food in the Acre, Lowell", {"city": ["The Acre"]}),
    ("region", "food in Roxbury or Dorchester", {"city": [*ROXBURY, *DORCHESTER]}),
    ("region", "Malden, Medford or Melrose food pantry", {"city": ["Malden", "Medford", "Melrose"]}),
    ("region", "food near Nubian Square", {"zips": ["02119"]}),
    ("region", "food in Cambridge or Somerville", {"city": ["Cambridge", "Somerville"]}),
    ("county", "Middlesex County food pantry", {"county": "Middlesex"}),
    ("county", "food in Suffolk County MA open Saturday", {"county": "Suffolk", "day": 5}),
    ("county", "Essex County MA food", {"county": "Essex"}),
    ("hours", "Dorchester food open Friday", {"city": DORCHESTER, "day": 4}),
    ("hours", "Lowell food on Saturday", {"city": ["Lowell"], "day": 5}),
    ("hours", "anything open Sunday in Lynn", {"city": ["Lynn"], "day": 6}),
    ("hours", "Cambridge pantry open Wednesday evening", {"city": ["Cambridge"], "day": 2, "after": 17.0}),
    ("hours", "Roxbury food open Thursday after 5pm", {"city": ROXBURY, "day": 3, "after": 17.0}),
    ("hours", "food open today in Dorchester", {"city": DORCHESTER, "day": 2, "date": TODAY}),
    ("hours", "Medford pantry on Tuesday", {"city": ["Medford"], "day": 1}),
    ("hours", "Malden food on a Sunday", {"city": ["Malden"], "day": 6}),
    ("hours", "Mattapan food Friday afternoon", {"city": ["Mattapan"], "day": 4, "after": 12.0}),
    ("hours", "Woburn pantry Saturday", {"city": ["Woburn"], "day": 5}),
    ("negation", "Boston food that's not just for seniors", {"city": BOSTON, "not_needs": ["senior", "snap"]}),
    ("negation", "Lowell food pantry, not the Salvation Army", {"city": ["Lowell"], "not_name_re": r"salvation army"}),
    ("negation", "Roxbury food with no registration", {"city": ROXBURY, "not_needs": ["appointment"]}),
    ("negation", "Dorchester food, not a mobile pantry", {"city": DORCHESTER, "not_needs": ["mobile"]}),
    ("negation", "Medford food where I don't need ID", {"city": ["Medford"], "not_needs": ["id_required"]}),
    ("negation", "Cambridge food not on Tuesday", {"city": ["Cambridge"], "not_day": 1}),
    ("eligibility", "senior meals in Roxbury", {"city": ROXBURY, "needs": ["senior"]}),
    ("eligibility", "food pantry in Medford that needs ID", {"city": ["Medford"], "needs": ["id_required"]}),
    ("eligibility", "Dorchester food with no requirements", {"city": DORCHESTER, "needs": ["no_requirements"]}),
    ("eligibility", "mobile pantry in Roxbury", {"city": ROXBURY, "needs": ["mobile"]}),
    ("eligibility", "soup kitchen in Lynn", {"city": ["Lynn"], "needs": ["soup_kitchen"]}),
    ("eligibility", "community fridge in Dorchester", {"city": DORCHESTER, "needs": ["fridge"]}),
    ("eligibility", "where can I apply for SNAP in Lowell", {"city": ["Lowell"], "needs": ["snap"]}),
    ("eligibility", "pantry in Billerica by appointment", {"city": ["Billerica"], "needs": ["appointment"]}),
    ("name", "Salvation Army in Lowell", {"name_re": r"salvation army", "city": ["Lowell"]}),
    ("name", "My Brother's Table", {"name_re": r"my brother's table"}),
    ("name", "Pine Street Inn meals", {"name_re": r"pine street inn"}),
    ("name", "the food pantry at BHCC", {"name_re": r"bunker hill community college"}),
    ("name", "CEOC pantry in North Cambridge", {"name_re": r"CEOC"}),
    ("name", "Brookline Emergency Food Pantry", {"name_re": r"brookline emergency food pantry"}),
    ("name", "Dorchester Community Fridge", {"name_re": r"dorchester community fridge"}),
    ("name", "the fridge at Ballard Vale church in Andover", {"name_re": r"ballard vale"}),
    ("name", "YMCA mobile market", {"name_re": r"YMCA"}, "clarify"),
    ("name", "Ethos café", {"name_re": r"^ethos"}, "clarify"),
    ("name", "St. Paul's soup kitchen Lowell", {"name_re": r"st\. paul.s soup kitchen"}),
    ("name", "St. Vincent de Paul pantry in Woburn", {"name_re": r"SVDP", "city": ["Woburn"]}),
    ("name", "Whittier Street Health Center", {"name_re": r"whittier street"}),
    ("zip", "food near 02124", {"zip": "02124"}),
    ("zip", "01852 food pantry", {"zip": "01852"}),
    ("zip", "food in 02155", {"zip": "02155"}),
    ("clarify", "I need food", {}, "clarify"),
    ("clarify", "soup kitchen open Thursday", {}, "clarify"),
    ("no_match", "food pantry in Worcester", {"outside": "Worcester"}, "no_match"),
    ("no_match", "Springfield MA food bank", {"outside": "Springfield"}, "no_match"),
    ("no_match", "food pantry in Newton", {"city": ["Newton"]}),
    ("no_match", "Stoneham food on Sunday", {"city": ["Stoneham"], "day": 6}),
    ("followup", ["food in Lynn", "which are open Saturday?"], {"city": ["Lynn"], "day": 5}),
    ("followup", ["pantries in Malden", "and in Medford?"], {"city": ["Medford"]}),
]

SETS = {"union_nj": UNION, "hudson_nj": HUDSON, "greater_boston": BOS}


def build_queries(region: str, entries: list[Q]) -> list[dict[str, Any]]:
    """This batch's query items (haarrrvest_extract.build_queries with this batch's evaluate)."""
    return hx.build_queries(region, entries, evaluate)


def build(region: str) -> dict[str, Any]:
    return {"version": "1.0.0",
            "description": f"Blind natural-language TRACE queries for the {region} HAARRRvest directory "
                           "(benchmarks/trace_sets/regions4/README.md): written by hand on 2026-12-07 by helper hb7 "
                           "before any run and without reading the TRACE code; gold computed by build_regions4.py's "
                           "evaluate from the raw records. Not to be tuned on.",
            "directory": f"benchmarks/trace_sets/regions4/{region}/records.json",
            "mapping": f"benchmarks/trace_sets/regions4/{region}/mapping.json", "state": None,
            "reference": REFERENCE, "queries": build_queries(region, SETS[region])}


def main() -> int:
    return hx.main(SETS, build, HERE)


if __name__ == "__main__":
    raise SystemExit(main_extract(sys.argv[2]) if sys.argv[1:2] == ["extract"] else main())
