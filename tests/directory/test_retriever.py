from __future__ import annotations

import itertools
import json
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.directory.constraints import check
from engine.directory.retriever import TraceRetriever, Variant, parse_variant

PLACES = ["in Riverbend", "in Lakeview", "in Millbrook", "in Oak County", "in Pine County", "near 67002", ""]
WHEN = ["", "on Saturday", "tomorrow", "this Saturday", "after 5pm", "in the morning", "on Sunday afternoon",
        "today before 10am"]
WHO = ["", "for students", "that need no ID", "for seniors", "TEFAP", "with hot meals", "by appointment"]


def source_text(files: tuple[Path, Path]) -> str:
    directory, _ = files
    return directory.read_text() + (directory.parent / "notes.json").read_text()


@pytest.mark.invariant("T-1")
def test_kg3_results_satisfy_every_constraint_and_quote_the_directory(
        retriever: TraceRetriever, small_files: tuple[Path, Path], reference: datetime) -> None:
    text = source_text(small_files)
    statuses = set()
    for place, when, who in itertools.product(PLACES, WHEN, WHO):
        query = " ".join(p for p in ("food pantry", place, when, who) if p)
        answer = retriever.answer(query, reference)
        statuses.add(answer.status)
        if answer.status == "clarify":
            c = answer.parsed.constraints
            # the retrieval policy decides whether hours alone are enough to search
            unplaced = (not (c.places or c.names) if retriever.rules.retrieval.clarify_requires_location
                        else not c.has_structural)
            assert unplaced and answer.question
        for result in answer.results:
            record = retriever.directory.records[result.source_index]
            assert record.name == result.name
            assert check(record, answer.parsed.constraints).ok, (query, result.name)
            assert json.dumps(result.evidence)[1:-1] in text or result.evidence in text
            for _, evidence in result.citations:
                assert evidence.quote in text or json.dumps(evidence.quote)[1:-1] in text
        assert len(answer.results) <= retriever.rules.retrieval.k
    assert statuses == {"results", "clarify", "no_match"}


@pytest.mark.invariant("T-3")
def test_clarification_when_nothing_structural(retriever: TraceRetriever, reference: datetime) -> None:
    answer = retriever.answer("Do I qualify if I'm a student?", reference)
    assert answer.status == "clarify" and answer.question and not answer.results
    assert answer.parsed.constraints.concepts == ("students",)


@pytest.mark.invariant("T-4")
def test_unknown_place_is_an_explicit_no_match(retriever: TraceRetriever, reference: datetime) -> None:
    answer = retriever.answer("food pantries in Walnut County", reference)
    assert answer.status == "no_match" and answer.reason == "unknown_place"


@pytest.mark.invariant("T-1")
def test_unknown_hours_are_never_guessed(retriever: TraceRetriever, reference: datetime) -> None:
    answer = retriever.answer("is the Senior Center Pantry open on Monday?", reference)
    assert answer.parsed.constraints.names and answer.status == "no_match"


def test_irregular_openings_match_weekdays_but_not_dates(retriever: TraceRetriever, reference: datetime) -> None:
    weekday = retriever.answer("Grace Mobile Pantry open on Thursday?", reference)
    dated = retriever.answer("Grace Mobile Pantry open tomorrow?", reference)  # tomorrow is a Thursday
    assert weekday.status == "results" and dated.status == "no_match"


def test_week_of_month_decides_a_date(retriever: TraceRetriever) -> None:
    second_saturday = retriever.answer("Campus Cupboard open this Saturday", datetime(2026, 3, 10, 9))
    first_saturday = retriever.answer("Campus Cupboard open this Saturday", datetime(2026, 3, 3, 9))
    assert second_saturday.status == "results" and first_saturday.status == "no_match"


def test_expansion_fetches_the_next_k(retriever: TraceRetriever, reference: datetime) -> None:
    parsed = retriever.parse("pantries in Pine County for students", reference)
    ranked = [3, 4, 5, 9, 2]  # the only student pantry (2) sits in the second chunk
    results, rounds = retriever._filter(ranked, parsed.constraints)
    assert [r.source_index for r in results] == [2] and rounds == 2


@pytest.mark.invariant("T-4")
def test_nothing_passes_gives_no_match(retriever: TraceRetriever, reference: datetime) -> None:
    answer = retriever.answer("pantries for veterans in Lakeview", reference)
    assert answer.status == "no_match" and answer.rounds >= 1 and answer.candidates > 0


def test_variants_differ_only_in_what_they_enforce(retriever: TraceRetriever, reference: datetime) -> None:
    query = "food pantry in Oak County open on Sunday"
    kg3 = retriever.with_variant(Variant.KG3).answer(query, reference)
    kg1 = retriever.with_variant(Variant.KG1).answer(query, reference)
    assert {r.source_index for r in kg3.results} == {6}
    assert any(not check(r.record, kg1.parsed.constraints).ok for r in kg1.results)
    assert all(check(r.record, kg1.parsed.constraints, hours=False).ok for r in kg1.results)
    kg0 = retriever.with_variant(Variant.KG0).answer(query, reference)
    assert kg0.status == "results" and kg0.variant is Variant.KG0


def test_answers_are_deterministic(retriever: TraceRetriever, reference: datetime) -> None:
    first = retriever.answer("pantries in Riverbend open after 5pm", reference)
    second = retriever.answer("pantries in Riverbend open after 5pm", reference)
    assert [r.source_index for r in first.results] == [r.source_index for r in second.results]


@pytest.mark.parametrize(("value", "variant"), [("KG-3", Variant.KG3), ("kg0", Variant.KG0), ("KG_2", Variant.KG2)])
def test_variant_names(value: str, variant: Variant) -> None:
    assert parse_variant(value) is variant


def test_bad_variant_name() -> None:
    from engine.directory.errors import DirectoryUsageError

    with pytest.raises(DirectoryUsageError) as info:
        parse_variant("KG-7")
    assert info.value.code == "directory.usage_variant"


WORDS = ["pantry", "food", "in", "Riverbend", "lakeview", "Oak", "County", "67002", "open", "after", "5pm",
         "tomorrow", "Saturday", "students", "no", "ID", "seniors", "appointment", "Hope", "Table", "tell", "me",
         "about", "¿", "mañana", "en", "sin", "cita", "or", "between", "2", "and", "4"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.text(max_size=80), st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join)))
def test_any_text_gets_a_safe_answer(retriever: TraceRetriever, text: str) -> None:
    answer = retriever.answer(text, datetime(2026, 3, 4, 10))
    assert answer.status in {"results", "clarify", "no_match"}
    assert (answer.status == "clarify") == (answer.question is not None)
    for result in answer.results:
        assert check(result.record, answer.parsed.constraints).ok
