"""Hard constraints as properties, checked against the raw records with an oracle that shares no engine code.

A directory written here gives every tag any concept of the rule data names to some records (and withholds it from
others) across three towns and seven weekdays; notes are empty, so a record evidences a concept exactly when one of
its raw tags is one of the concept's tags. Hypothesis then draws a town, a weekday, concepts asked for and concepts
negated (over every concept of the rules), and every answer must:
* never hold a record violating a constraint (town, weekday, required concept, negated concept);
* cite, for each result, a quote per constraint, each quote taken verbatim from that record.
A second property phrases a negation for every concept of the rules in words and checks the parse and the answer.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.directory.directory_rules import load_rules
from engine.directory.retriever import Answer, TraceRetriever
from tests.directory.conftest import REFERENCE, write_directory

RULES = load_rules()
CONCEPTS = RULES.semantic.concepts
TAGS = sorted({tag for concept in CONCEPTS.values() for tag in concept.tags})
TOWNS = {"Riverbend": "Oak", "Lakeview": "Pine", "Millbrook": "Oak"}
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

# one way a visitor negates each concept; the table must cover every concept of the rule data (a new concept
# without a phrase fails test_every_concept_has_a_negation_phrase)
NEGATED = {
    "students": "not only for students", "seniors": "that isn't only for seniors",
    "no_id": "where ID is required", "id_required": "that doesn't require ID",
    "residency_proof": "without proof of residency", "no_residency_proof": "that requires proof of residency",
    "tefap": "that is not a TEFAP site", "appointment": "without an appointment",
    "walk_in": "that doesn't take walk-ins", "families": "not only for families",
    "veterans": "not just for veterans", "unhoused": "not a homeless shelter",
    "hot_meals": "that is not a soup kitchen", "drive_thru": "that is not a drive-thru",
    "delivery": "without delivery", "mobile_pantry": "that is not a mobile pantry",
    "no_appointment": "by appointment only",
    "voucher": "that doesn't need a voucher", "no_voucher": "that requires a voucher",
    "enrollment": "where I don't have to enroll", "no_enrollment": "that requires enrollment",
    "kids_meals": "that is not a kids meal site", "open_to_all": "that isn't open to all",
    "bring_bags": "where I don't have to bring bags", "community_fridge": "that isn't a community fridge",
}


def _records() -> list[dict[str, Any]]:
    """Tag t goes to the records whose number has bit (t mod 5) set: every tag is held by some records of every
    town and weekday and missing from others."""
    records = []
    for i in range(84):
        town = list(TOWNS)[i % 3]
        day = DAYS[(i // 3) % 7]
        tags = [tag for n, tag in enumerate(TAGS) if (i >> (n % 5)) & 1]
        records.append({"pantry_name": f"Pantry {i}", "address": f"{i} Main St, {town}, KS 6700{i % 3}",
                        "county": f"{TOWNS[town]} County, Kansas", "phone": None,
                        "raw_hours": f"{day} from 9-11am", "tags": tags})
    return records


RECORDS = _records()


@pytest.fixture(scope="module")
def tagged(tmp_path_factory: pytest.TempPathFactory) -> TraceRetriever:
    files = write_directory(tmp_path_factory.mktemp("tagged"), RECORDS, [""] * len(RECORDS))
    return TraceRetriever.from_files(*files, rules=RULES)


def evidences(raw: dict[str, Any], concept: str) -> bool:
    return bool(set(raw["tags"]) & CONCEPTS[concept].tags)


def violations(answer: Answer, town: str, day: str | None, required: tuple[str, ...],
               negated: tuple[str, ...]) -> list[str]:
    found = []
    for result in answer.results:
        raw = RECORDS[result.source_index]
        if f", {town}," not in raw["address"]:
            found.append(f"{raw['pantry_name']}: not in {town}")
        if day is not None and day not in raw["raw_hours"]:
            found.append(f"{raw['pantry_name']}: not open {day}")
        found += [f"{raw['pantry_name']}: lacks {c}" for c in required if not evidences(raw, c)]
        found += [f"{raw['pantry_name']}: states {c}" for c in negated if evidences(raw, c)]
    return found


def assert_quotes_per_constraint(answer: Answer, required: tuple[str, ...], negated: tuple[str, ...],
                                 hours: bool) -> None:
    for result in answer.results:
        raw_text = json.dumps(RECORDS[result.source_index])
        labels = [label for label, _ in result.citations]
        assert any(label.startswith("city:") for label in labels), labels
        assert not hours or "hours" in labels, labels
        for concept in required:
            assert f"concept:{concept}" in labels, labels
        for concept in negated:
            assert f"not:{concept}" in labels, labels
        for _, quote in result.citations:
            assert quote.quote in raw_text, quote.quote


taggable = sorted(c for c in CONCEPTS if CONCEPTS[c].tags)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(town=st.sampled_from(list(TOWNS)), day=st.none() | st.sampled_from(DAYS),
       required=st.lists(st.sampled_from(taggable), max_size=1, unique=True),
       negated=st.lists(st.sampled_from(taggable), min_size=1, max_size=2, unique=True))
@pytest.mark.invariant("T-1")
def test_no_result_violates_a_hard_constraint_and_each_constraint_is_quoted(
        tagged: TraceRetriever, town: str, day: str | None, required: list[str], negated: list[str]) -> None:
    text = f"food pantry in {town}" + (f" open on {day}" if day else "")
    parsed = tagged.follow(text, REFERENCE, None)
    wanted, excluded = tuple(required), tuple(c for c in negated if c not in required)
    parsed = replace(parsed, constraints=replace(parsed.constraints, concepts=wanted, excluded=excluded))
    answer = tagged.retrieve(parsed)
    assert answer.status in {"results", "no_match"}
    assert violations(answer, town, day, wanted, excluded) == []
    assert_quotes_per_constraint(answer, wanted, excluded, hours=day is not None)
    # fail closed, never empty-handed by mistake: a satisfying record in the directory means results
    satisfiable = any(f", {town}," in r["address"] and (day is None or day in r["raw_hours"])
                      and all(evidences(r, c) for c in wanted) and not any(evidences(r, c) for c in excluded)
                      for r in RECORDS)
    assert (answer.status == "results") == satisfiable


def test_every_concept_has_a_negation_phrase() -> None:
    assert set(NEGATED) == set(CONCEPTS)


def opposite(concept: str, other: str) -> bool:
    """Rule data pairs: 'negation' ('I have no ID' asks for no_id) and 'excludes' (no_appointment / appointment)."""
    a, b = CONCEPTS[concept], CONCEPTS[other]
    return a.negation == other or b.negation == concept or other in a.excludes or concept in b.excludes


@pytest.mark.parametrize("concept", sorted(NEGATED))
def test_a_negation_in_words_excludes_every_record_stating_the_concept(tagged: TraceRetriever, concept: str) -> None:
    """A negated concept is excluded, or (rule data 'negation': 'I have no ID') asked for as its counterpart."""
    answer = tagged.answer(f"food pantry in Lakeview {NEGATED[concept]}", REFERENCE)
    c = answer.parsed.constraints
    assert concept in c.excluded or any(opposite(concept, other) for other in c.concepts), c
    assert violations(answer, "Lakeview", None, c.concepts, c.excluded) == []
    assert answer.results, "the directory holds Lakeview records without the concept: the test must see some"
