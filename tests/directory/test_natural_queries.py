"""Places as people say them, proximity, service types, hours in notes, name-alone answers and follow-ups.

The directory is written by this test (real Kansas towns and ZIP codes, invented pantries), never the shared data.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.directory.answer import DirectoryAnswerer, render
from engine.directory.constraints import check
from engine.directory.directory_rules import load_rules
from engine.directory.retriever import TraceRetriever

from .conftest import REFERENCE, write_directory

RECORDS: list[dict[str, Any]] = [
    {"pantry_name": "Bourbon Valley Pantry", "address": "1 Main St, Fort Scott, KS 66701",
     "county": "Bourbon County, Kansas", "phone": "555-0200", "raw_hours": "Monday from 9-11am", "tags": []},
    {"pantry_name": "High Plains Food Bank", "address": "2 Wyatt Earp Blvd, Dodge City, KS 67801",
     "county": "Ford County, Kansas", "phone": "555-0201", "raw_hours": "Saturday from 9am-12pm", "tags": []},
    {"pantry_name": "Harvest Table", "address": "3 State Ave, Kansas City, KS 66101",
     "county": "Wyandotte County, Kansas", "phone": "555-0202", "raw_hours": "Tuesday from 1-3pm", "tags": []},
    {"pantry_name": "Reno Community Cupboard", "address": "4 Main St, Hutchinson, KS 67501",
     "county": "Reno County, Kansas", "phone": "555-0203", "raw_hours": "Not available", "tags": []},
    {"pantry_name": "Reno Hygiene Closet", "address": "5 Main St, Hutchinson, KS 67501",
     "county": "Reno County, Kansas", "phone": "555-0204", "raw_hours": "Thursday from 5-7pm", "tags": []},
    {"pantry_name": "Cowley Mission Pantry", "address": "6 Summit St, Arkansas City, KS 67005",
     "county": "Cowley County, Kansas", "phone": "555-0205", "raw_hours": "Wednesday from 9-11am", "tags": []},
    {"pantry_name": "Prairie Food Pantry", "address": "7 Mass St, Lawrence, KS 66044",
     "county": "Douglas County, Kansas", "phone": "555-0206", "raw_hours": "Tuesday from 1-3pm", "tags": []},
    {"pantry_name": "Prairie Senior Council", "address": "8 Iowa St, Lawrence, KS 66049",
     "county": "Douglas County, Kansas", "phone": "555-0207", "raw_hours": "Friday from 9-11am", "tags": []},
    {"pantry_name": "Eudora Helping Hands", "address": "9 Main St, Eudora, KS 66025",
     "county": "Douglas County, Kansas", "phone": "555-0208", "raw_hours": "Thursday from 4-6pm", "tags": []},
    {"pantry_name": "Salina Bread Basket", "address": "10 Santa Fe Ave, Salina, KS 67401",
     "county": "Saline County, Kansas", "phone": "555-0209", "raw_hours": "Monday from 9-11am", "tags": []},
]
NOTES = [
    "Proof of address required",
    "Photo ID and proof of address not required",
    "",
    "Open Thursday from 5-7pm in the church basement",
    "Hygiene items only",
    "",
    "Proof of residency in Douglas County required",
    "For seniors 60+",
    "No ID needed",
    "",
]


@pytest.fixture(scope="module")
def natural(tmp_path_factory: pytest.TempPathFactory) -> TraceRetriever:
    directory, mapping = write_directory(tmp_path_factory.mktemp("natural"), RECORDS, NOTES)
    return TraceRetriever.from_files(directory, mapping, rules=load_rules())


def _cities(retriever: TraceRetriever, text: str) -> set[str]:
    return {p.label for p in retriever.parse(text, REFERENCE).constraints.places if p.kind == "city"}


@pytest.mark.parametrize(("text", "city"), [
    ("food pantry in Ft. Scott", "Fort Scott"),  # word abbreviation
    ("i need food in KCK", "Kansas City"),  # initials + the state's letter
    ("is there a pantry in Dodge?", "Dodge City"),  # a generic last word dropped
    ("food in Hutch", "Hutchinson"),  # a word prefix
    ("groceries in Ark City please", "Arkansas City"),  # prefixes of every word
    ("pantry in Hutchinsen", "Hutchinson"),  # a misspelling
    ("Lawrance food pantries", "Lawrence"),  # a misspelling right before what is asked for
])
def test_places_as_people_say_them(natural: TraceRetriever, text: str, city: str) -> None:
    assert _cities(natural, text) == {city}
    answer = natural.answer(text, REFERENCE)
    assert answer.status == "results" and all(r.record.city == city for r in answer.results)


def test_a_close_call_asks_which_place_naming_the_candidates(natural: TraceRetriever) -> None:
    answer = natural.answer("food pantry in Salin", REFERENCE)
    assert answer.status == "clarify" and answer.reason == "ambiguous_place"
    assert answer.question is not None and "Salina" in answer.question and "Saline County" in answer.question


@pytest.mark.parametrize("text", ["food pantry in Abilene", "food pantry in Denver", "pantry in Kansas City, Missouri"])
def test_a_real_town_the_directory_does_not_list_is_a_no_match(natural: TraceRetriever, text: str) -> None:
    answer = natural.answer(text, REFERENCE)
    assert answer.status == "no_match" and not answer.results


def test_near_a_zip_ranks_by_distance_and_says_it(natural: TraceRetriever) -> None:
    answer = natural.answer("food pantry near 66044", REFERENCE)
    assert answer.status == "results"
    distances = [r.distance_miles for r in answer.results]
    assert all(d is not None for d in distances) and distances == sorted(distances)  # type: ignore[type-var]
    assert answer.results[0].record.zip == "66044"
    text = render(answer, natural.rules, natural.directory.id, "en")
    assert "miles from 66044" in text


@pytest.mark.parametrize("radius", [1, 5, 15, 60])
def test_within_a_radius_never_returns_anything_farther(natural: TraceRetriever, radius: int) -> None:
    answer = natural.answer(f"pantries within {radius} miles of Lawrence", REFERENCE)
    assert answer.parsed.constraints.proximity is not None
    assert all(r.distance_miles is not None and r.distance_miles <= radius for r in answer.results)
    if answer.status == "no_match":
        assert radius < 5


def test_a_town_named_with_near_keeps_the_exact_town(natural: TraceRetriever) -> None:
    parsed = natural.parse("pantries near Lawrence", REFERENCE)
    assert parsed.constraints.proximity is None and {p.label for p in parsed.constraints.places} == {"Lawrence"}


def test_a_food_request_never_returns_a_hygiene_only_service(natural: TraceRetriever) -> None:
    food = natural.answer("food pantry in Hutchinson open Thursday", REFERENCE)
    assert "Reno Hygiene Closet" not in [r.name for r in food.results]
    hygiene = natural.answer("where can I get hygiene items in Hutchinson?", REFERENCE)
    assert [r.name for r in hygiene.results] == ["Reno Hygiene Closet"]
    assert any(label.startswith("service:hygiene") for label, _ in hygiene.results[0].citations)


def test_hours_stated_in_a_note_count_and_are_quoted(natural: TraceRetriever) -> None:
    answer = natural.answer("Hutchinson food pantry open Thursday night", REFERENCE)
    assert [r.name for r in answer.results] == ["Reno Community Cupboard"]
    hours = dict(answer.results[0].citations)["hours"]
    assert hours.field == "other_info" and "Thursday" in hours.quote


def test_a_name_query_returns_the_named_record_alone(natural: TraceRetriever) -> None:
    alone = natural.answer("hours and phone of Prairie Food Pantry", REFERENCE)
    assert [r.name for r in alone.results] == ["Prairie Food Pantry"]


@pytest.mark.invariant("T-2")
def test_a_negated_requirement_in_a_record_is_not_that_requirement(natural: TraceRetriever) -> None:
    answer = natural.answer("Fort Scott pantries that ask for proof of address", REFERENCE)
    assert answer.status == "results" and [r.name for r in answer.results] == ["Bourbon Valley Pantry"]
    answer = natural.answer("Dodge City pantries that ask for proof of address", REFERENCE)
    assert answer.status == "no_match"


def test_follow_ups_carry_the_earlier_constraints(natural: TraceRetriever) -> None:
    first = natural.answer("food pantry in Lawrence", REFERENCE)
    second = natural.answer("are any of them open Friday?", REFERENCE, first.parsed)
    assert second.parsed.carried == ("places",) and second.status == "results"
    assert {r.record.city for r in second.results} == {"Lawrence"}
    third = natural.answer("what about Eudora?", REFERENCE, second.parsed)
    assert {p.label for p in third.parsed.constraints.places} == {"Eudora"} and "hours" in third.parsed.carried
    fresh = natural.answer("food pantry in Salina", REFERENCE, third.parsed)
    assert fresh.parsed.carried == () and fresh.parsed.constraints.hours is None  # a complete new request
    again = natural.answer("and what about food pantries in Salina?", REFERENCE, third.parsed)
    assert "hours" in again.parsed.carried  # 'what about ...' is a follow-up even when it is a full request
    reset = natural.answer("new search: Eudora", REFERENCE, third.parsed)
    assert reset.parsed.carried == ()


def test_the_answerer_records_what_it_carried(natural: TraceRetriever) -> None:
    answerer = DirectoryAnswerer(natural, clock=lambda: REFERENCE)
    answer = answerer.answer("and without ID?", "en", history=["pantries in Eudora"])
    assert answer.carried == ["places"] and answer.supported
    assert all(c.source.endswith("#8") for c in answer.citations)
    assert answerer.answer("thanks!", "en", history=["pantries in Eudora"]).text == ""


def test_today_is_the_directory_s_today(natural: TraceRetriever) -> None:
    # 04:00 UTC on Thursday 5 March is still Wednesday evening in Kansas (America/Chicago)
    answerer = DirectoryAnswerer(natural, clock=lambda: datetime(2026, 3, 5, 4, 0, tzinfo=UTC))
    assert natural.resolver.timezone == "America/Chicago"
    assert answerer.reference_time() == datetime(2026, 3, 4, 22, 0)


_PLACES = st.sampled_from(["Lawrence", "Lawrance", "KCK", "Hutch", "Dodge", "Ft. Scott", "Ark City", "Salina",
                           "Eudora", "66044", "near 66044", "within 20 miles of Lawrence", "Douglas County"])
_WHEN = st.sampled_from(["", " open Monday", " open on Saturdays", " open Thursday evening", " open tomorrow",
                         " open today morning"])
_NEED = st.sampled_from(["", " no ID needed", " for seniors", " with proof of address", " hygiene"])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(place=_PLACES, when=_WHEN, need=_NEED)
def test_every_recommendation_satisfies_every_extracted_constraint(natural: TraceRetriever, place: str, when: str,
                                                                   need: str) -> None:
    text = f"food pantry {'' if place.startswith(('near', 'within')) else 'in '}{place}{when}{need}"
    answer = natural.answer(text, REFERENCE)
    c = answer.parsed.constraints
    for result in answer.results:
        assert check(result.record, c).ok, (text, result.name)
        assert result.citations or result.evidence
        if c.proximity is not None and c.proximity.radius is not None:
            assert result.distance_miles is not None and result.distance_miles <= c.proximity.radius
    if answer.status == "results":
        assert answer.results
    else:
        assert not answer.results


def test_rule_data_drives_the_derived_aliases(tmp_path: Path) -> None:
    """Word abbreviations are rule data: without 'fort' -> 'ft' the alias is not derived (the normaliser's
    St./Mt./Ft. folding aside, 'Ft Scott' still reads as Fort Scott)."""
    import json
    import shutil

    from engine.directory.directory_rules import directory_rules
    from engine.rules.loader import DEFAULT_RULES_DIR, load_bundle

    root = tmp_path / "rules"
    shutil.copytree(DEFAULT_RULES_DIR, root, ignore=shutil.ignore_patterns("published"))
    path = root / "directory" / "natural_queries.json"
    data = json.loads(path.read_text())
    data["droppable_last_words"] = []
    path.write_text(json.dumps(data))
    rules = directory_rules(load_bundle(root, require_published=False))
    directory, mapping = write_directory(tmp_path / "dir", RECORDS, NOTES)
    retriever = TraceRetriever.from_files(directory, mapping, rules=rules)
    assert ("dodge",) not in retriever.resolver.aliases


@pytest.mark.parametrize(("text", "city"), [
    ("pantries in eudora", "Eudora"),  # lower case after a place cue
    ("food pantry in Lawrence, Kansas", "Lawrence"),  # the state only qualifies the town
    ("food pantry in Lawrence KS", "Lawrence"),
])
def test_plain_and_qualified_town_names(natural: TraceRetriever, text: str, city: str) -> None:
    parsed = natural.parse(text, REFERENCE)
    assert {p.label for p in parsed.constraints.places if p.kind == "city"} == {city}
    assert all(r.record.city == city for r in natural.answer(text, REFERENCE).results)


def test_ordinary_sentences_are_not_places(natural: TraceRetriever) -> None:
    for text in ["Thanks so much!", "I need food for my famly", "we are hungry", "can I get diapers"]:
        c = natural.parse(text, REFERENCE).constraints
        assert not (c.places or c.ambiguous or c.proximity), text


def test_a_low_confidence_place_asks_did_you_mean(natural: TraceRetriever) -> None:
    # 'Eodra' is 73/100 from 'Eudora' (rapidfuzz ratio): above the suggest threshold, below the match threshold
    answer = natural.answer("food pantry in Eodra", REFERENCE)
    assert answer.status == "clarify" and answer.question is not None and "Eudora" in answer.question
    far = natural.answer("food pantry in Qzxwv", REFERENCE)
    assert far.status == "no_match" and not far.results


def test_near_a_real_town_the_directory_does_not_list_ranks_by_distance(natural: TraceRetriever) -> None:
    answer = natural.answer("food pantry near Baldwin City", REFERENCE)  # a Kansas town with no entry here
    prox = answer.parsed.constraints.proximity
    assert prox is not None and prox.label == "Baldwin City" and answer.status == "results"
    distances = [r.distance_miles for r in answer.results]
    assert distances == sorted(distances)  # type: ignore[type-var]
    assert {r.record.city for r in answer.results} <= {"Lawrence", "Eudora"}
