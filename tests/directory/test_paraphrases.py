"""Wordings the benchmark generator never uses: the parser must be general, not tuned to its templates."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from engine.directory.retriever import TraceRetriever

REF = datetime(2026, 3, 4, 10, 0)  # Wednesday

Case = tuple[str, set[tuple[str, str]], frozenset[int], tuple[date, ...], set[tuple[str, int]], tuple[str, ...]]
CASES: list[Case] = [
    ("yo i need some groceries asap, im over in lakeview", {("city", "lakeview")}, frozenset(), (), set(), ()),
    ("Lakeview KS - where do I get food?", {("city", "lakeview")}, frozenset(), (), set(), ()),
    ("Who hands out food around the 67003 area", {("zip", "67003")}, frozenset(), (), set(), ()),
    ("my family is hungry, we live out in Pine Co", {("county", "pine")}, frozenset(), (), set(), ()),
    ("cerca de Millbrook hay comida gratis?", {("city", "millbrook")}, frozenset(), (), set(), ()),
    ("Riverbend: anything on weekends?", {("city", "riverbend")}, frozenset({5, 6}), (), set(), ()),
    ("got off my shift, is something in Riverbend still open past 5 pm",
     {("city", "riverbend")}, frozenset(), (), {("after", 17 * 60)}, ()),
    ("lakeview, sometime before noon on a weekday", {("city", "lakeview")}, frozenset(range(5)), (),
     {("before", 12 * 60)}, ()),
    ("Can I go tmrw afternoon? I'm in Millbrook", {("city", "millbrook")}, frozenset(), (date(2026, 3, 5),),
     {("window", 12 * 60)}, ()),
    ("What's open in Oak County on Mondays or Fridays", {("county", "oak")}, frozenset({0, 4}), (), set(), ()),
    ("el próximo sábado en Lakeview", {("city", "lakeview")}, frozenset(), (date(2026, 3, 7),), set(), ()),
    ("los domingos por la tarde en Millbrook", {("city", "millbrook")}, frozenset({6}), (),
     {("window", 12 * 60)}, ()),
    ("Riverbend, I'm 70 and retired", {("city", "riverbend")}, frozenset(), (), set(), ("seniors",)),
    ("anything in Lakeview that won't ask me for documentation", {("city", "lakeview")}, frozenset(), (), set(),
     ("no_id",)),
    ("I'm enrolled at the university and broke - Lakeview", {("city", "lakeview")}, frozenset(), (), set(),
     ("students",)),
    ("Oak County spots handing out USDA commodities", {("county", "oak")}, frozenset(), (), set(), ("tefap",)),
    ("somewhere in Lakeview I can just show up without booking", {("city", "lakeview")}, frozenset(), (), set(),
     ("walk_in",)),
    ("Lakeview drop-in pantry", {("city", "lakeview")}, frozenset(), (), set(), ("walk_in",)),
    ("soy veterano, busco despensa en Millbrook", {("city", "millbrook")}, frozenset(), (), set(), ("veterans",)),
    ("lakeview curbside pickup please", {("city", "lakeview")}, frozenset(), (), set(), ("drive_thru",)),
]


@pytest.mark.parametrize(("text", "places", "days", "dates", "conditions", "concepts"), CASES,
                         ids=[c[0][:40] for c in CASES])
def test_unseen_wordings(retriever: TraceRetriever, text: str, places: set[tuple[str, str]], days: frozenset[int],
                         dates: tuple[date, ...], conditions: set[tuple[str, int]], concepts: tuple[str, ...]) -> None:
    parsed = retriever.parse(text, REF).constraints
    assert {(p.kind, p.key) for p in parsed.places} == places
    hours = parsed.hours
    if not (days or dates or conditions):
        assert hours is None
    else:
        assert hours is not None
        assert hours.days == days and hours.dates == dates
        assert {(c.relation, c.start) for c in hours.conditions} == conditions
    assert parsed.concepts == concepts


@pytest.mark.parametrize(("text", "key"), [
    ("hours for hope table?", ("hope", "table")),
    ('is "Hill Street Kitchen" open on sunday', ("hill", "street", "kitchen")),
    ("info on Campus Cupboard", ("campus", "cupboard")),
    ("dirección de Millbrook Pantry", ("millbrook", "pantry")),
])
def test_unseen_recall_wordings(retriever: TraceRetriever, text: str, key: tuple[str, ...]) -> None:
    assert [n.key for n in retriever.parse(text, REF).constraints.names] == [key]
