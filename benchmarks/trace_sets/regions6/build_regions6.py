"""Extract and write the blind TRACE query sets of the sixth HAARRRvest batch (benchmarks/trace_sets/regions6).

    .venv/bin/python benchmarks/trace_sets/regions6/build_regions6.py extract <HAARRRvest git dir>   # records
    .venv/bin/python benchmarks/trace_sets/regions6/build_regions6.py                               # query sets

Written blind on 2026-12-07 by helper hb11 (README.md here), before any run and without reading the TRACE code.
Same scrape and record shape as ../regions5: the extraction (``extract``), the schedule reading and the gold rules
(``evaluate``) are ../regions5/build_regions5.py's, imported, not copied; this file gives them the sixth batch's
regions, folder and requirement patterns, and holds the hand-written queries.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "regions5"))

import build_regions5 as r5  # noqa: E402  # regions5's gold rules (evaluate), pointed at this batch below

from benchmarks.trace_sets import haarrrvest_extract as hx  # noqa: E402  # the shared record extraction

# region -> (state, counties as the zipcodes package names them)
REGIONS = {
    "philadelphia_pa": ("PA", ("Philadelphia County",)),
    "charlotte_nc": ("NC", ("Mecklenburg County", "Cabarrus County")),
    "passaic_nj": ("NJ", ("Passaic County",)),
}


@contextmanager
def _regions6() -> Iterator[None]:
    """Point the imported regions5 functions at this batch's regions, folder and patterns while they run."""
    saved = r5.REGIONS, r5.HERE, r5.NEEDS, r5.CLOSED
    r5.REGIONS, r5.HERE, r5.NEEDS, r5.CLOSED = REGIONS, HERE, {**r5.NEEDS, **EXTRA_NEEDS}, CLOSED
    try:
        yield
    finally:
        r5.REGIONS, r5.HERE, r5.NEEDS, r5.CLOSED = saved


def main_extract(repo: str) -> int:
    """This batch's records, by the shared HAARRRvest extraction (benchmarks/trace_sets/haarrrvest_extract.py)."""
    return hx.main_extract(repo, REGIONS, HERE)


def evaluate(region: str, c: dict[str, Any]) -> tuple[list[int], list[int]]:
    """(gold, acceptable) record indices, by regions5's rules, on this batch's records."""
    with _regions6():
        gold_and_acceptable: tuple[list[int], list[int]] = r5.evaluate(region, c)
    return gold_and_acceptable


# ------------------------------------------------------------------------------------------------ gold, from the data
# A record saying it is closed is never gold, only acceptable: regions5's wording plus "closed for the summer"
# (a Philadelphia pantry's description, read by this author)
CLOSED = re.compile(r"temporarily closed|no food distribution - marked unavailable|closed for the summer", re.I)
# Requirement and kind patterns this batch's records need beyond regions5's (same key overrides, read from the
# records of the three regions by this author): the Passaic mobile pantries write "MFP" and "Registration on website
# required"/"Get registered"; Charlotte's summer sites write "Student Meal Site" and "kids and teens ages 18 and
# under"; Charlotte's pantries need a referral or a call ahead; the Huntersville table says "No qualification".
EXTRA_NEEDS: dict[str, re.Pattern[str]] = {
    "kids_meal": re.compile(r"summer meal|all children under 18|SUN Meals|student meal site|"
                            r"kids and teens ages 18 and under", re.I),
    "registration": re.compile(r"registration required|pre-register|must register|needs to fill out a form|"
                               r"complete the application|registration on website required|get registered", re.I),
    "mobile": re.compile(r"mobile (?:pantry|market|foodbank)|\bMFP\b", re.I),
    "no_requirements": re.compile(r"no requirements|open to all|no qualification required", re.I),
    "referral": re.compile(r"referral required", re.I),
    "call_ahead": re.compile(r"call in advance", re.I),
    "client_choice": re.compile(r"client choice", re.I),
    "produce": re.compile(r"fresh produce", re.I),
    "eat_on_site": re.compile(r"meals must be eaten on site", re.I),
}

# ------------------------------------------------------------------------------------------------ the queries
Q = tuple[Any, ...]
REFERENCE, TODAY = r5.REFERENCE, r5.TODAY  # 2025-07-16 10:00, a Wednesday, as in ../regions5

PHL = "Philadelphia County"  # the city and the county are one
WEST_PHILLY = ["19104", "19139", "19143", "19151", "19131"]
NW_PHILLY = ["19118", "19119", "19128", "19129", "19138", "19144", "19150"]
SOUTH_PHILLY = ["19145", "19146", "19148"]  # 19147's only record (Old Pine, Lombard St) is Society Hill
PHI: list[Q] = [
    ("place", "food pantry in North Philadelphia", {"city": ["North Philadelphia"]}),
    ("place", "Olney food pantry", {"city": ["Olney"]}),
    ("place", "free food in Frankford", {"city": ["Frankford"]}),
    ("place", "food in Mantua", {"city": ["Mantua"]}),
    ("place", "University City food pantry", {"city": ["University City"]}),
    ("place", "Haddington food", {"city": ["Haddington"]}),
    ("place", "food in Kingsessing", {"city": ["Kingsessing"]}),
    ("place", "food in Society Hill", {"city": ["Society Hill"]}),
    ("place", "food near Wynnefield", {"city": ["Wynnefield Heights", "Wynnefield"]}),
    ("alias", "free food in Philly", {"county": PHL}),
    ("alias", "North Philly food pantry", {"city": ["North Philadelphia"]}),
    ("alias", "food in the City of Brotherly Love", {"county": PHL}),
    ("alias", "Southwest Philly pantry", {"city": ["Southwest Philadelphia"]}),
    ("alias", "food in NoLibs", {"zips": ["19123"]}),
    ("alias", "food near Temple U", {"zips": ["19121", "19122"]}),
    ("region", "West Philly food", {"zips": WEST_PHILLY}),
    ("region", "food in Germantown or Mount Airy", {"zips": ["19144", "19138", "19119"]}),
    ("region", "South Philly free food", {"zips": SOUTH_PHILLY}),
    ("region", "food in Kensington", {"zips": ["19134", "19125"]}),
    ("region", "Northwest Philly food pantry", {"zips": NW_PHILLY}),
    ("region", "food in Frankford or Olney", {"city": ["Frankford", "Olney"]}),
    ("county", "Philadelphia County food pantry", {"county": PHL}),
    ("county", "Philadelphia County food open Monday", {"county": PHL, "day": 0}),
    ("county", "food in Philadelphia County on Friday", {"county": PHL, "day": 4}),
    ("hours", "food in Philly on Sunday", {"county": PHL, "day": 6}),
    ("hours", "North Philly pantry open Saturday", {"city": ["North Philadelphia"], "day": 5}),
    ("hours", "Philadelphia food Wednesday evening", {"county": PHL, "day": 2, "after": 17.0}),
    ("hours", "West Philly food Friday", {"zips": WEST_PHILLY, "day": 4}),
    ("hours", "Frankford pantry on Monday", {"city": ["Frankford"], "day": 0}),
    ("hours", "food open today in Philly", {"county": PHL, "day": 2, "date": TODAY}),
    ("hours", "Tuesday food pantry in North Philadelphia", {"city": ["North Philadelphia"], "day": 1}),
    ("hours", "Saturday food after 4pm in Philadelphia", {"county": PHL, "day": 5, "after": 16.0}),
    ("hours", "Germantown food on Tuesday", {"zips": ["19144", "19138"], "day": 1}),
    ("negation", "Philly food that isn't a community fridge", {"county": PHL, "not_needs": ["fridge"]}),
    ("negation", "North Philly food, not at a church", {"city": ["North Philadelphia"], "not_name_re": r"church"}),
    ("negation", "West Philly pantry where I don't have to bring bags", {"zips": WEST_PHILLY,
                                                                         "not_needs": ["bring_bags"]}),
    ("negation", "Philadelphia pantry not on a Saturday", {"county": PHL, "not_day": 5}),
    ("negation", "Philly food without registering", {"county": PHL, "not_needs": ["registration"]}),
    ("negation", "Southwest Philadelphia food with no registration", {"city": ["Southwest Philadelphia"],
                                                                      "not_needs": ["registration"]}),
    ("eligibility", "community fridge in Philly", {"county": PHL, "needs": ["fridge"]}),
    ("eligibility", "first come first served pantry West Philly", {"zips": WEST_PHILLY, "needs": ["first_come"]}),
    ("eligibility", "Philly pantry where you have to register", {"county": PHL, "needs": ["registration"]}),
    ("eligibility", "fresh produce giveaway North Philadelphia", {"city": ["North Philadelphia"],
                                                                  "needs": ["produce"]}),
    ("eligibility", "food pantry open to everyone in Philadelphia", {"county": PHL, "needs": ["no_requirements"]}),
    ("eligibility", "pantry in Philly where you bring your own cart", {"county": PHL, "needs": ["bring_bags"]}),
    ("eligibility", "24 hour free food in Kensington", {"zips": ["19134", "19125"], "needs": ["fridge"]}),
    ("name", "Small Things Philly", {"name_re": r"small things philly"}),
    ("name", "the fridge at St Chris children's hospital", {"name_re": r"st\. chris hospital"}),
    ("name", "Mama-Tee community fridge", {"name_re": r"mama-tee"}, "clarify"),
    ("name", "Sanctuary Farm", {"name_re": r"sanctuary farm"}),
    ("name", "Germantown Friends Meeting food", {"name_re": r"germantown friends"}),
    ("name", "the Welcome Table at St. James School", {"name_re": r"welcome table"}),
    ("name", "White Rock Baptist food pantry", {"name_re": r"white rock baptist"}),
    ("name", "the Porcos fridge", {"name_re": r"porcos"}),
    ("name", "AFAHO food", {"name_re": r"afaho"}),
    ("name", "DePaul USA meals", {"name_re": r"depaul usa"}),
    ("name", "Carver High School food", {"name_re": r"carver high"}),
    ("name", "Brothers of Strawberry Mansion", {"name_re": r"brothers of strawberry mansion"}),
    ("name", "Baptist church food pantry", {"name_re": r"baptist"}, "clarify"),
    ("zip", "food near 19121", {"zip": "19121"}),
    ("zip", "19139 pantry", {"zip": "19139"}),
    ("zip", "food in 19143", {"zip": "19143"}),
    # One city-county directory: a query with no place needs no "where?" (README); gold is every open record
    ("clarify", "where can I get free food", {}),
    ("clarify", "food pantry open Saturday", {"day": 5}),
    ("no_match", "food pantry in Pittsburgh", {"outside": "Pittsburgh"}, "no_match"),
    ("no_match", "food in Camden NJ", {"outside": "Camden"}, "no_match"),
    ("no_match", "food in Manayunk", {"city": ["Manayunk"]}),
    ("no_match", "kids summer meals in Philly", {"county": PHL, "needs": ["kids_meal"]}),
    ("followup", ["food in West Philly", "which ones are open Wednesday?"], {"zips": WEST_PHILLY, "day": 2}),
    ("followup", ["community fridges in Philly", "any in North Philly?"], {"city": ["North Philadelphia"],
                                                                           "needs": ["fridge"]}),
]

MECK, CAB = "Mecklenburg County", "Cabarrus County"
CLT = ["Charlotte"]
EAST_CLT = ["28205", "28212", "28215", "28227"]
WEST_CLT = ["28208", "28216"]
CHA: list[Q] = [
    ("place", "food in Charlotte", {"city": CLT}),
    ("place", "food pantry in Concord NC", {"city": ["Concord"]}),
    ("place", "Huntersville free meal", {"city": ["Huntersville"]}),
    ("place", "food in Cornelius", {"city": ["Cornelius"]}),
    ("place", "Matthews NC food", {"city": ["Matthews"]}),
    ("place", "food in Eastway", {"city": ["Eastway"]}),
    ("place", "Lincoln Heights food", {"city": ["Lincoln Heights"]}),
    ("place", "food in Berryhill", {"city": ["Dixie - Berryhill", "Berryhill"]}),
    ("place", "Cotswold food", {"city": ["Cotswold"]}),
    ("alias", "free food in the Queen City", {"city": CLT}),
    ("alias", "food in CLT", {"city": CLT}),
    ("alias", "food in NoDa", {"city": ["North Charlotte"]}),
    ("alias", "South End Charlotte food", {"zips": ["28203"]}),
    ("alias", "food near UNC Charlotte", {"zips": ["28262", "28213"]}),
    ("region", "east Charlotte food", {"zips": EAST_CLT}),
    ("region", "west Charlotte food", {"zips": WEST_CLT}),
    ("region", "food in north Mecklenburg, Huntersville or Cornelius", {"city": ["Huntersville", "Cornelius",
                                                                                "Davidson"]}),
    ("region", "south Charlotte food", {"zips": ["28210", "28211", "28226", "28217", "28277"]}),
    ("region", "food in Concord or Kannapolis", {"city": ["Concord", "Kannapolis"]}),
    ("region", "food in Eastway or Oak Forest", {"city": ["Eastway", "Oak Forest"]}),
    ("county", "Mecklenburg County food", {"county": MECK}),
    ("county", "Cabarrus County food pantry", {"county": CAB}),
    ("county", "Mecklenburg food open Friday", {"county": MECK, "day": 4}),
    ("hours", "Charlotte food Friday evening", {"city": CLT, "day": 4, "after": 17.0}),
    ("hours", "food in Concord on Sunday", {"city": ["Concord"], "day": 6}),
    ("hours", "Charlotte food on Saturday", {"city": CLT, "day": 5}),
    ("hours", "Huntersville food Tuesday", {"city": ["Huntersville"], "day": 1}),
    ("hours", "Charlotte pantry Thursday evening", {"city": CLT, "day": 3, "after": 17.0}),
    ("hours", "Eastway kids meals on Friday", {"city": ["Eastway"], "day": 4, "needs": ["kids_meal"]}),
    ("hours", "Matthews food on Wednesday", {"city": ["Matthews"], "day": 2}),
    ("hours", "Charlotte food Monday before 11am", {"city": CLT, "day": 0, "before": 11.0}),
    ("hours", "food open today in Charlotte", {"city": CLT, "day": 2, "date": TODAY}),
    ("negation", "Charlotte food that doesn't need a referral", {"city": CLT, "not_needs": ["referral"]}),
    ("negation", "Charlotte food that isn't a kids meal site", {"city": CLT, "not_needs": ["kids_meal"]}),
    ("negation", "Charlotte food not at a school", {"city": CLT,
                                                    "not_name_re": r"school|academy|elementary|high\b"}),
    ("negation", "Concord food, not Solo Faith", {"city": ["Concord"], "not_name_re": r"solo faith"}),
    ("negation", "Eastway meals not on Friday", {"city": ["Eastway"], "not_day": 4}),
    ("negation", "Charlotte pantry without pre-registration", {"city": CLT, "not_needs": ["registration"]}),
    ("eligibility", "Charlotte pantry that needs a referral", {"city": CLT, "needs": ["referral"]}),
    ("eligibility", "kids summer meals in east Charlotte", {"zips": EAST_CLT, "needs": ["kids_meal"]}),
    ("eligibility", "free meal in Huntersville with no qualification", {"city": ["Huntersville"],
                                                                        "needs": ["no_requirements"]}),
    ("eligibility", "client choice pantry Charlotte", {"city": CLT, "needs": ["client_choice"]}),
    ("eligibility", "summer meals where you call ahead, Charlotte", {"city": CLT, "needs": ["call_ahead"]}),
    ("eligibility", "free lunch for kids in Matthews", {"city": ["Matthews"], "needs": ["kids_meal"]}),
    ("eligibility", "student meal site in Lincoln Heights", {"city": ["Lincoln Heights"], "needs": ["kids_meal"]}),
    ("name", "Angels & Sparrows", {"name_re": r"angels & sparrows"}),
    ("name", "Nourish Up pantry", {"name_re": r"nourish ?up"}, "clarify"),
    ("name", "Solo Faith food bank", {"name_re": r"solo faith"}),
    ("name", "Corner Field Market in Concord", {"name_re": r"corner field market"}),
    ("name", "Autism Charlotte meals", {"name_re": r"autism charlotte"}),
    ("name", "The Plaza Pantry", {"name_re": r"plaza pantry"}),
    ("name", "Hearts United for Good", {"name_re": r"hearts united"}),
    ("name", "Queen City Nerve food", {"name_re": r"queen city nerve"}),
    ("name", "Food Lion Feeds pantry", {"name_re": r"food lion feeds"}),
    ("name", "Derita Presbyterian summer meals", {"name_re": r"derita presbyterian"}),
    ("name", "West Charlotte High meals", {"name_re": r"west charlotte high"}),
    ("name", "rec center summer meals", {"name_re": r"recreation center"}, "clarify"),
    ("name", "Grace Lutheran child care center", {"name_re": r"grace lutheran"}),
    ("zip", "food near 28216", {"zip": "28216"}),
    ("zip", "28215 meals", {"zip": "28215"}),
    ("zip", "food in 28027", {"zip": "28027"}),
    ("clarify", "where can I get free food", {}, "clarify"),
    ("clarify", "kids meals this week", {}, "clarify"),
    ("no_match", "food pantry in Gastonia", {"outside": "Gastonia"}, "no_match"),
    ("no_match", "food in Raleigh", {"outside": "Raleigh"}, "no_match"),
    ("no_match", "food in Mint Hill", {"city": ["Mint Hill"]}),
    ("no_match", "kids summer meals in Concord", {"city": ["Concord"], "needs": ["kids_meal"]}),
    ("followup", ["kids meals in Eastway", "which are open Friday?"], {"city": ["Eastway"], "day": 4,
                                                                       "needs": ["kids_meal"]}),
    ("followup", ["food in Concord", "and in Huntersville?"], {"city": ["Huntersville"]}),
]

HALEDONS = ["Haledon", "North Haledon", "Prospect Park"]
UPPER_PASSAIC = ["West Milford", "Hewitt", "Ringwood", "Wanaque", "Bloomingdale"]
PAS: list[Q] = [
    ("place", "food in Paterson", {"city": ["Paterson"]}),
    ("place", "Passaic NJ kids meals", {"city": ["Passaic"], "needs": ["kids_meal"]}),
    ("place", "food pantry in Clifton", {"city": ["Clifton"]}),
    ("place", "food in Hawthorne NJ", {"city": ["Hawthorne"]}),
    ("place", "Totowa food", {"city": ["Totowa"]}),
    ("place", "food in Wanaque", {"city": ["Wanaque"]}),
    ("place", "Bloomingdale NJ food pantry", {"city": ["Bloomingdale"]}),
    ("place", "Ringwood food", {"city": ["Ringwood"]}),
    ("place", "food in Woodland Park", {"city": ["Woodland Park"]}),
    ("alias", "food in Silk City", {"city": ["Paterson"]}),
    ("alias", "food in Botany Village", {"city": ["Botany Village"]}),
    ("alias", "food near Preakness, Wayne", {"city": ["Preakness", "Wayne"]}),
    ("alias", "Hewitt NJ food", {"city": ["Hewitt"]}),
    ("alias", "food in Little Falls", {"city": ["Little Falls", "Little Falls Township"]}),
    ("alias", "Eastside Paterson food", {"city": ["East Side Park Historic District"], "zips_also": ["07504"]}),
    ("region", "food in the Haledons", {"city": HALEDONS}),
    ("region", "food in upper Passaic County", {"city": UPPER_PASSAIC}),
    ("region", "food in Clifton or Passaic", {"city": ["Clifton", "Passaic"]}),
    ("region", "food in Totowa, Woodland Park or Little Falls", {"city": ["Totowa", "Woodland Park",
                                                                        "Little Falls"]}),
    ("region", "West Milford area food", {"city": ["West Milford", "Hewitt"]}),
    ("region", "food in Paterson or Haledon", {"city": ["Paterson", "Haledon"]}),
    ("county", "Passaic County food pantry", {"county": "Passaic County"}),
    ("county", "Passaic County food open Tuesday evening", {"county": "Passaic County", "day": 1,
                                                             "after": 17.0}),
    ("county", "Passaic County mobile pantry Wednesday", {"county": "Passaic County", "day": 2,
                                                          "needs": ["mobile"]}),
    ("hours", "Paterson food on Wednesday evening", {"city": ["Paterson"], "day": 2, "after": 17.0}),
    ("hours", "Clifton kids meals Friday", {"city": ["Clifton"], "day": 4, "needs": ["kids_meal"]}),
    ("hours", "Passaic kids lunch on Monday", {"city": ["Passaic"], "day": 0, "needs": ["kids_meal"]}),
    ("hours", "food in Haledon on Wednesday", {"city": ["Haledon"], "day": 2}),
    ("hours", "Passaic County food on Saturday", {"county": "Passaic County", "day": 5}),
    ("hours", "Bloomingdale food Tuesday", {"city": ["Bloomingdale"], "day": 1}),
    ("hours", "Paterson kids meals before noon on Thursday", {"city": ["Paterson"], "day": 3, "before": 12.0,
                                                               "needs": ["kids_meal"]}),
    ("hours", "food open today in Passaic", {"city": ["Passaic"], "day": 2, "date": TODAY}),
    ("hours", "Wayne food on Tuesday afternoon", {"city": ["Wayne", "Preakness"], "day": 1, "after": 13.0}),
    ("negation", "Passaic County food that isn't a kids meal site", {"county": "Passaic County",
                                                                    "not_needs": ["kids_meal"]}),
    ("negation", "kids meals in Paterson I can take home", {"city": ["Paterson"], "needs": ["kids_meal"],
                                                            "not_needs": ["eat_on_site"]}),
    ("negation", "Paterson food without registering online", {"city": ["Paterson"],
                                                              "not_needs": ["registration"]}),
    ("negation", "Passaic food that isn't at a school", {"city": ["Passaic"], "not_name_re": r"school|#\d"}),
    ("negation", "Clifton food, not a mobile pantry", {"city": ["Clifton"], "not_needs": ["mobile"]}),
    ("negation", "Passaic kids meals not on Friday", {"city": ["Passaic"], "needs": ["kids_meal"], "not_day": 4}),
    ("eligibility", "mobile food pantry in the Haledons", {"city": HALEDONS, "needs": ["mobile"]}),
    ("eligibility", "Passaic County pantry where you register online first", {"county": "Passaic County",
                                                                              "needs": ["registration"]}),
    ("eligibility", "first come first served food Passaic County", {"county": "Passaic County",
                                                                    "needs": ["first_come"]}),
    ("eligibility", "kids meals in Haledon", {"city": ["Haledon"], "needs": ["kids_meal"]}),
    ("eligibility", "mobile pantry in Clifton", {"city": ["Clifton"], "needs": ["mobile"]}),
    ("eligibility", "senior center food in Bloomingdale", {"city": ["Bloomingdale"], "needs": ["senior"]}),
    ("eligibility", "summer lunch for kids in Clifton", {"city": ["Clifton"], "needs": ["kids_meal"]}),
    ("name", "CUMAC mobile pantry", {"name_re": r"cumac"}, "clarify"),
    ("name", "the CUMAC pantry at Jaycee Park", {"name_re": r"jaycee park"}),
    ("name", "CUMAC at the Totowa library", {"name_re": r"totowa public library"}),
    ("name", "The Food Brigade", {"name_re": r"food brigade"}),
    ("name", "Center for Food Action Ringwood", {"name_re": r"center for food action"}),
    ("name", "YMCA of Paterson food", {"name_re": r"ymca of paterson"}),
    ("name", "Clifton Boys and Girls Club meals", {"name_re": r"clifton boys and girls"}),
    ("name", "Boys & Girls Club of Passaic", {"name_re": r"boys & girls club of passaic"}),
    ("name", "Arts and Science Charter School meals", {"name_re": r"arts and science charter"}, "clarify"),
    ("name", "Primera Iglesia Bautista", {"name_re": r"primera iglesia bautista"}),
    ("name", "Second Timothy Baptist Church", {"name_re": r"second timothy"}),
    ("name", "Eastside High School meals", {"name_re": r"eastside high"}),
    ("name", "Manchester Regional High meals", {"name_re": r"manchester regional"}),
    ("zip", "food near 07055", {"zip": "07055"}),
    ("zip", "07508 food", {"zip": "07508"}),
    ("zip", "food in 07501", {"zip": "07501"}),
    ("clarify", "where can I get free food", {}, "clarify"),
    ("clarify", "mobile food pantry on Tuesday", {}, "clarify"),
    ("no_match", "food pantry in Newark", {"outside": "Newark"}, "no_match"),
    ("no_match", "food in Hackensack", {"outside": "Hackensack"}, "no_match"),
    ("no_match", "food in Pompton Lakes", {"city": ["Pompton Lakes"]}),
    ("no_match", "kids summer meals in Wanaque", {"city": ["Wanaque"], "needs": ["kids_meal"]}),
    ("followup", ["kids meals in Clifton", "any open on Friday?"], {"city": ["Clifton"], "day": 4,
                                                                    "needs": ["kids_meal"]}),
    ("followup", ["mobile pantries in the Haledons", "and in Totowa?"], {"city": ["Totowa"], "needs": ["mobile"]}),
]

SETS = {"philadelphia_pa": PHI, "charlotte_nc": CHA, "passaic_nj": PAS}


def build(region: str) -> dict[str, Any]:
    with _regions6():
        queries: list[dict[str, Any]] = r5.build_queries(region, SETS[region])
    return {"version": "1.0.0",
            "description": f"Blind natural-language TRACE queries for the {region} HAARRRvest directory "
                           "(benchmarks/trace_sets/regions6/README.md): written by hand on 2026-12-07 by helper hb11 "
                           "before any run and without reading the TRACE code; gold computed by regions5's evaluate "
                           "(imported by build_regions6.py) from the raw records. Not to be tuned on.",
            "directory": f"benchmarks/trace_sets/regions6/{region}/records.json",
            "mapping": f"benchmarks/trace_sets/regions6/{region}/mapping.json", "state": None,
            "reference": REFERENCE, "queries": queries}


def main() -> int:
    return hx.main(SETS, build, HERE)

if __name__ == "__main__":
    raise SystemExit(main_extract(sys.argv[2]) if sys.argv[1:2] == ["extract"] else main())
