"""Issue 28, vocabularies and free text, as general properties (words from small generic pools, never a
benchmark's sentences): a first-person possessive gives a shared-vocabulary term to the visitor's own role
whatever was asked; a vocabulary word inside a longer capitalised title names that title, while a capitalised
category phrase stays the option; a 'no' that asks for another offer declines no feature; a feature asked about
in a 'let me know ... if' request is no claim; a name objective never takes a place led by a preposition, nor the
later words of another objective's value; a giving verb before a name gives the recipient."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.goals.publication import spec_hash
from engine.kernel.conversation import Message, Role
from engine.kernel.goal_models import GoalSpec, PublishedGoalSpec
from engine.kernel.ports import ProposerInput
from tests.proposer.helpers import proposer


def _vocabulary(vid: str, options: dict[str, list[str]]) -> dict[str, Any]:
    return {"version": "1.0.0", "description": f"{vid} options", "id": vid, "kind": "enumeration",
            "options": {o: {"en": terms} for o, terms in options.items()}}


def _objective(oid: str, kind: str, params: dict[str, Any], order: int, question: str,
               description: str = "") -> dict[str, Any]:
    return {"id": oid, "name": oid.replace("_", " "), "questions": {"en": question},
            "criterion": {"kind": kind, "description": description or f"The visitor gives the {oid}.",
                          "params": params},
            "weight": "0.25", "order": order}


def _published(spec_id: str, title: str, objectives: list[dict[str, Any]],
               vocabularies: dict[str, Any]) -> PublishedGoalSpec:
    body: dict[str, Any] = {
        "schema_version": 1, "id": spec_id, "title": title, "default_language": "en", "languages": ["en"],
        "manager_intent": "", "objectives": objectives, "initial_state": [0] * len(objectives),
        "vocabularies": vocabularies}
    spec = GoalSpec.model_validate(body)
    return PublishedGoalSpec(spec=spec, version=1, content_hash=spec_hash(spec), approved_by="tests",
                             approved_at=datetime(2026, 1, 1, tzinfo=UTC))


def _propose(spec: PublishedGoalSpec, text: str, asked: str | None = None) -> dict[str, str]:
    request = ProposerInput(spec=spec, bits=[0] * len(spec.spec.objectives), language="en", turn=1,
                            message=Message(role=Role.VISITOR, turn=1, text=text), history=[], last_asked=asked)
    return {c.objective: c.value for c in proposer().propose(request).commands
            if c.type == "complete" and c.objective is not None}


KINDS = {"gold": ["gold", "gold card"], "silver": ["silver", "silver card"]}
CARDS = _published("t-cards", "Card top-ups", [
    _objective("own_card", "enumeration", {"vocabulary": "cards", "cues": {"en": ["card", "from"]}}, 1,
               "Which of your cards: gold or silver?"),
    _objective("amount", "money", {"currency": "EUR", "cues": {"en": ["top up", "amount"]}}, 2, "How much?"),
    _objective("beneficiary", "free_text", {"cues": {"en": ["beneficiary", "send it to", "give it to"]}}, 3,
               "Who receives it?", "The name of the person who receives the money."),
    _objective("beneficiary_card", "enumeration", {"vocabulary": "cards", "cues": {"en": ["their", "to", "onto"]}},
               4, "Onto which kind of card does it go: gold or silver?"),
], {"cards": _vocabulary("cards", KINDS)})

OPENERS = ["Please check", "Tell me the balance of", "I want to use", "Let's take it from"]
NAMES = ["Ilona", "Tomasz", "Wanjiru", "Aarav", "Solveig"]


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(OPENERS), st.sampled_from(sorted(KINDS)), st.sampled_from(["my", "our", "my own"]))
def test_a_first_person_possessive_gives_the_term_to_the_visitors_own_role(opener: str, option: str,
                                                                          possessive: str) -> None:
    values = _propose(CARDS, f"{opener} {possessive} {option} card.", asked="beneficiary_card")
    assert "beneficiary_card" not in values
    assert values.get("own_card") == option


@settings(max_examples=10, deadline=None)
@given(st.sampled_from(sorted(KINDS)), st.sampled_from(NAMES))
def test_the_asked_role_still_takes_a_term_without_a_possessive(option: str, name: str) -> None:
    assert _propose(CARDS, f"Onto {name}'s {option} card.", asked="beneficiary_card").get(
        "beneficiary_card") == option
    assert _propose(CARDS, f"{option.capitalize()}, please.", asked="beneficiary_card").get(
        "beneficiary_card") == option


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(NAMES), st.sampled_from(["40 euros", "250 euros", "12 euros"]),
       st.sampled_from(["Send", "Please send", "I'd like to give", "Pay"]))
def test_a_giving_verb_before_a_name_states_the_recipient(name: str, amount: str, verb: str) -> None:
    values = _propose(CARDS, f"{verb} {name} {amount}.", asked="amount")
    assert name in values.get("beneficiary", "")


GENRES = {"rock": ["rock"], "jazz": ["jazz"], "blues": ["blues"], "folk": ["folk"]}
EVENTS = _published("t-events", "Event tickets", [
    _objective("genre", "enumeration", {"vocabulary": "genres", "cues": {"en": ["genre", "music"]}}, 1,
               "Which kind of music?"),
    _objective("town", "place", {"cues": {"en": ["in"]}}, 2, "Where?"),
], {"genres": _vocabulary("genres", GENRES)})
TITLE_WORDS = ["Harbour", "Summer", "Northern", "Lakeside", "Grand"]


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(sorted(GENRES)), st.sampled_from(TITLE_WORDS), st.sampled_from(["Festival", "Nights"]),
       st.sampled_from(["I heard good things about", "Everyone is talking about", "Tickets for"]))
def test_a_vocabulary_word_inside_a_longer_title_names_the_title(genre: str, before: str, after: str,
                                                                  lead: str) -> None:
    title = f"{before} {genre.capitalize()} {after}"
    assert "genre" not in _propose(EVENTS, f"{lead} {title}.", asked="genre")


@settings(max_examples=10, deadline=None)
@given(st.sampled_from(sorted(GENRES)), st.sampled_from(["a {} concert", "a {} Concert", "{} music"]))
def test_a_capitalised_category_phrase_stays_the_option(genre: str, phrase: str) -> None:
    text = f"I'd like {phrase.format(genre.capitalize())}, please."
    assert _propose(EVENTS, text).get("genre") == genre


FLATS = _published("t-flats", "Flat rentals", [
    _objective("needs", "features", {"vocabulary": "needs"}, 1, "Does it need a garden or a lift?"),
    _objective("town", "place", {"cues": {"en": ["in"]}}, 2, "Where?"),
], {"needs": {**_vocabulary("needs", {"garden": ["garden"], "lift": ["lift", "elevator"]}), "kind": "features"}})


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["No", "Nope", "No thanks"]),
       st.sampled_from(["try again", "show me another one", "any other flats?", "something else please",
                        "not yet"]))
def test_a_no_asking_for_another_offer_declines_no_feature(no: str, rest: str) -> None:
    assert "needs" not in _propose(FLATS, f"{no}, {rest}.", asked="needs")


@settings(max_examples=5, deadline=None)
@given(st.sampled_from(["No thanks.", "No, we don't need that.", "Nope."]))
def test_a_plain_no_to_the_feature_question_still_declines(text: str) -> None:
    assert _propose(FLATS, text, asked="needs").get("needs", "").startswith("no:")


@settings(max_examples=10, deadline=None)
@given(st.sampled_from(["let me know real quick if", "can you figure out if", "let me know if you can find out if"]),
       st.sampled_from(["there is a garden", "they have a lift"]))
def test_a_feature_asked_about_in_a_request_is_no_claim(lead: str, clause: str) -> None:
    assert "needs" not in _propose(FLATS, f"Also, {lead} {clause}?")


TABLES = _published("t-tables", "Restaurant table bookings", [
    _objective("town", "place", {}, 1, "In which town would you like to eat?"),
    _objective("restaurant", "free_text", {"cues": {"en": ["restaurant"]}}, 2, "Which restaurant?",
               "The name of the restaurant the visitor wants."),
], {})
TOWNS = ["San Jose", "Palo Alto", "Santa Rosa", "Los Angeles", "San Diego"]


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(TOWNS), st.sampled_from(["I want a restaurant in {}.", "Please look for restaurants in {}.",
                                                 "Find a restaurant in {} for tonight."]))
def test_a_name_objective_never_takes_the_town_a_preposition_leads(town: str, template: str) -> None:
    values = _propose(TABLES, template.format(town), asked="town")
    assert "restaurant" not in values
