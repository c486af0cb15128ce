"""Issue 28, questions/requests and places, as general properties: a place named in a request to the company
(English, French, Spanish) is the visitor's own; a place phrase on its own ('In <city>.'), a known place accepted
in the same breath ('<city> would be perfect'), travel verbs ('we're visiting <city>'); and what stays out: a
venue's name for an area objective, a common word that is also a city ('a nice hotel'), numbers before 'a one
way' read as a street, requests about the company or a third party. Specs are built here; cities and venues are
drawn from small generic pools (gazetteer-known cities), never from a benchmark's dialogues."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.goals.publication import spec_hash
from engine.kernel.conversation import Message, Role
from engine.kernel.goal_models import GoalSpec, PublishedGoalSpec
from engine.kernel.ports import ProposerInput
from llm_adapters.offline.gazetteer import is_big_city, is_known_place
from tests.proposer.helpers import proposer

CITIES = ["Denver", "Seattle", "Toronto", "Boston", "Madrid", "Lyon", "Marseille", "Valencia", "Portland"]
FILLERS = ["ok", "sure", "and", "great", "alright"]
EN_REQUESTS = ["Could you look in {city}?", "Can you search in {city}?", "Would you look around {city}, please?",
               "Search {city} for something.", "Please search within {city}.", "Let's try {city}.",
               "What about {city}?", "Are you able to find something in {city}?", "Try {city}."]
FR_REQUESTS = ["Vous pourriez regarder à {city} ?", "Pourriez-vous regarder à {city} ?",
               "Est-ce que vous pouvez chercher à {city} ?", "Vous intervenez à {city} ?", "Vous couvrez {city} ?"]
ES_REQUESTS = ["¿Podrías mirar en {city}?", "¿Me puedes buscar algo en {city}?", "Mira en {city}, por favor."]
ACCEPTING = ["would be perfect", "would be great", "will be fine", "sounds good", "is my choice"]
TRAVEL = ["We're travelling to {city}.", "I'm heading to {city} next week.", "We are visiting {city}.",
          "I'm on my way to {city}."]
VENUES = ["Hotel", "Inn", "Restaurant", "Museum", "Cinema"]
VENUE_NAMES = ["Marigold", "Bluebird", "Silver Oak", "Harbour Light"]


def _objective(oid: str, kind: str, params: dict[str, Any], order: int, weight: str) -> dict[str, Any]:
    return {"id": oid, "name": oid.replace("_", " "), "questions": {"en": f"What about the {oid}?"},
            "criterion": {"kind": kind, "description": f"The visitor gives the {oid}.", "params": params},
            "weight": weight, "order": order}


def _spec(place_cues: list[str]) -> PublishedGoalSpec:
    objectives = [
        _objective("where", "place", {"cues": {"en": place_cues, "fr": ["ville", "commune"], "es": ["ciudad"]}},
                   1, "0.5"),
        _objective("guests", "quantity", {"unit": "people", "unit_terms": {"en": ["people", "guests"]},
                                          "min": 1, "max": 9}, 2, "0.5"),
    ]
    spec = GoalSpec.model_validate({
        "schema_version": 1, "id": "t-place-requests", "title": "t", "default_language": "en",
        "languages": ["en", "fr", "es"], "manager_intent": "", "objectives": objectives,
        "initial_state": [0] * len(objectives)})
    return PublishedGoalSpec(spec=spec, version=1, content_hash=spec_hash(spec), approved_by="tests",
                             approved_at=datetime(2026, 1, 1, tzinfo=UTC))


AREA = _spec(["city", "town", "area"])  # asks for an area: a venue's name is not one
ADDRESS = _spec(["address", "destination", "take me to"])  # a venue or an address answers it


def _place(text: str, spec: PublishedGoalSpec = AREA, language: str = "en") -> str | None:
    request = ProposerInput(spec=spec, bits=[0, 0], language=language, turn=1,
                            message=Message(role=Role.VISITOR, turn=1, text=text), history=[], last_asked=None,
                            reference_time=datetime(2026, 3, 2, 10, tzinfo=UTC))
    done = {c.objective: c.value for c in proposer().propose(request).commands
            if c.type == "complete"}
    return done.get("where")


def test_the_pools_are_known_places() -> None:
    assert all(is_known_place(city) for city in CITIES)
    assert is_big_city("nice") and is_big_city("reading")  # the common words below are also big cities


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(FILLERS), max_size=2), st.sampled_from(EN_REQUESTS), st.sampled_from(CITIES))
def test_a_place_named_in_a_request_is_the_visitors(fillers: list[str], template: str, city: str) -> None:
    text = template.format(city=city)
    if fillers:
        text = ", ".join([fillers[0].capitalize(), *fillers[1:]]) + ", " + text[0].lower() + text[1:]
    assert _place(text) == city


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(FR_REQUESTS + ES_REQUESTS), st.sampled_from(CITIES))
def test_french_and_spanish_requests_and_coverage_questions_name_the_place(template: str, city: str) -> None:
    text = template.format(city=city)
    assert _place(text, language="fr" if template in FR_REQUESTS else "es") == city


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(CITIES), st.sampled_from(["In", "Near", "Around"]), st.sampled_from(["", ", please"]))
def test_a_place_phrase_on_its_own_answers_the_only_place_objective(city: str, preposition: str, tail: str) -> None:
    assert _place(f"{preposition} {city}{tail}.") == city


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(CITIES), st.sampled_from(ACCEPTING))
def test_a_known_place_accepted_in_the_same_breath_is_given(city: str, accepting: str) -> None:
    assert _place(f"{city} {accepting}.") == city
    assert _place(f"Thanks, that {accepting}.") is None


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(CITIES), st.sampled_from(TRAVEL))
def test_where_the_visitor_travels_is_their_place(city: str, template: str) -> None:
    assert _place(template.format(city=city)) == city


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(VENUE_NAMES), st.sampled_from(VENUES), st.sampled_from(["stay at the", "book a table at the",
                                                                                  "go to the"]))
def test_a_venue_name_is_no_area_but_may_be_a_destination(name: str, venue: str, lead: str) -> None:
    text = f"I'd like to {lead} {name} {venue}."
    assert _place(text) is None
    assert _place(text, ADDRESS) == f"{name} {venue}"


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["a nice", "the nice", "a reading", "a very nice", "the mobile"]),
       st.sampled_from(["hotel", "one", "place", "room"]))
def test_a_common_word_that_is_also_a_city_is_a_word(phrase: str, noun: str) -> None:
    assert _place(f"Can you help me to find {phrase} {noun}?") is None
    assert _place(f"I want {phrase} {noun}.") is None


@settings(max_examples=20, deadline=None)
@given(st.integers(min_value=1, max_value=9), st.sampled_from(["ticket", "tickets", "seats"]))
def test_a_count_before_a_one_way_trip_is_no_street_address(count: int, noun: str) -> None:
    assert _place(f"I want {count} {noun} for a one way trip.", ADDRESS) is None
    assert _place(f"Take me to {count}20 Walnut Avenue.", ADDRESS) == f"{count}20 Walnut Avenue"


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(CITIES), st.sampled_from([
    "Could you tell me if your office in {city} is open?", "Can you check whether your branch in {city} is open?",
    "My brother wants to search {city} for a flat.", "Could you find out if my sister lives in {city}?"]))
def test_requests_about_the_company_or_a_third_party_name_no_place_of_the_visitor(city: str, template: str) -> None:
    assert _place(template.format(city=city)) is None


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["las vegas", "chicago", "denver"]), st.sampled_from(["Take me to", "I'm going to"]))
def test_a_lower_case_city_right_after_the_marker_is_a_place_unless_an_article_follows(city: str, lead: str) -> None:
    assert _place(f"{lead} {city}.", ADDRESS) == city
    assert _place(f"{lead} {city} a friend.", ADDRESS) is None  # a verb or adjective: 'to hail a taxi'
    assert _place(f"I want a room in {city} hotel.") is None  # 'in nice hotel'


def test_a_name_opening_a_several_word_company_term_is_no_place() -> None:
    cues = {"en": ["city", "town"]}
    objectives = [_objective("where", "place", {"cues": cues}, 1, "0.5"),
                  _objective("cabin", "enumeration", {"vocabulary": "cabins"}, 2, "0.5")]
    cabins = {"id": "cabins", "version": "1.0.0", "description": "cabins", "kind": "enumeration",
              "options": {"first": {"en": ["first class"]}, "upper": {"en": ["upper deck"]}}}
    spec = GoalSpec.model_validate({
        "schema_version": 1, "id": "t-cabins", "title": "t", "default_language": "en", "languages": ["en"],
        "manager_intent": "", "objectives": objectives, "initial_state": [0, 0], "vocabularies": {"cabins": cabins}})
    published = PublishedGoalSpec(spec=spec, version=1, content_hash=spec_hash(spec), approved_by="tests",
                                  approved_at=datetime(2026, 1, 1, tzinfo=UTC))
    assert _place("I'd like a seat in Upper deck, please.", published) is None
    assert _place("I'd like a seat in Denver, please.", published) == "Denver"


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(CITIES), st.sampled_from(["France", "Spain", "Canada", "California", "Texas"]),
       st.sampled_from(["Bob", "Maria", "Peter"]))
def test_a_city_region_form_is_a_place_wherever_it_stands(city: str, region: str, name: str) -> None:
    assert _place(f"I need one for {city}, {region}.") == city
    assert _place(f"I need one for {name}, {name}a and me.") is None  # names in a list are no region


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(CITIES), st.sampled_from(["films", "plays", "shows"]),
       st.sampled_from(["showing", "playing", "screening"]))
def test_asking_what_is_showing_in_a_place_names_the_area_of_interest(city: str, noun: str, verb: str) -> None:
    assert _place(f"What {noun} are {verb} in {city}?") == city
    assert _place(f"What is the address of your office in {city}?") is None
    assert _place(f"Which schools are good in {city}?") is None


SHORT_FORMS = ["NYC", "LA", "SF", "Philly", "Vegas", "NOLA", "KL"]  # alternate names the gazetteer lists
SHORT_FORM_REQUESTS = ["Could you look in {city}?", "Could you check {city} instead?", "Search {city} for one.",
                       "Is there something in {city}?", "How about {city}?", "Let's try {city}.",
                       "Anything good while we're in {city}?", "I'd like to explore {city}."]


def test_the_short_forms_are_alternate_names_of_the_gazetteer() -> None:
    assert all(is_known_place(short) for short in SHORT_FORMS)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(SHORT_FORMS + CITIES), st.sampled_from(SHORT_FORM_REQUESTS))
def test_a_short_form_or_alternate_name_in_a_request_is_the_visitors_place(city: str, template: str) -> None:
    assert _place(template.format(city=city)) == city


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(CITIES), st.sampled_from(["CA", "WA", "TX", "NSW", "France", "Canada"]),
       st.sampled_from(SHORT_FORM_REQUESTS))
def test_a_city_region_form_in_a_request_names_the_city(city: str, region: str, template: str) -> None:
    assert _place(template.format(city=f"{city}, {region}")) == city


# Where only a known place may stand (a verb's direct object, 'how about'), an unknown capitalised word stays out.
DIRECT_OBJECT_REQUESTS = [t for t in SHORT_FORM_REQUESTS if " in " not in t and not t.startswith("Search")]


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["Tuesday", "Thanks", "Premium", "Anything"]), st.sampled_from(DIRECT_OBJECT_REQUESTS))
def test_an_unknown_word_where_a_place_could_stand_is_no_place(word: str, template: str) -> None:
    assert _place(template.format(city=word)) is None


MULTI_WORD_CITIES = ["San Jose", "Los Angeles", "New York", "Salt Lake City", "San Diego"]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(MULTI_WORD_CITIES), st.sampled_from(["In {city}.", "Could you look in {city}?",
                                                            "I'm in {city} for work."]))
def test_a_big_city_typed_with_only_its_first_word_capitalised_is_read_whole(city: str, template: str) -> None:
    first, *rest = city.split(" ")
    typed = " ".join([first, *(word.lower() for word in rest)])
    assert _place(template.format(city=typed)) == typed
    assert _place(template.format(city=f"{first} room")) in (None, first)  # other lower-case words stay out


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(CITIES), st.sampled_from(["I'd like", "I would like", "I'm looking for", "We're looking for",
                                                 "We'd like"]),
       st.sampled_from(["", "Yes, ", "Ok, "]))
def test_a_statement_of_need_ending_in_a_question_mark_is_a_request(city: str, lead: str, opener: str) -> None:
    text = f"{opener}{lead} something in {city}?"
    assert _place(text[0].upper() + text[1:]) == city
