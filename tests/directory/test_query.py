from __future__ import annotations

from datetime import date, datetime

import pytest

from engine.directory.directory_rules import load_rules
from engine.directory.retriever import TraceRetriever


def places(retriever: TraceRetriever, text: str, reference: datetime) -> set[tuple[str, str]]:
    return {(p.kind, p.key) for p in retriever.parse(text, reference).constraints.places}


@pytest.mark.parametrize(("text", "expected"), [
    ("food pantries in Riverbend", {("city", "riverbend")}),
    ("any help around lakeview?", {("city", "lakeview")}),
    ("Millbrook food banks", {("city", "millbrook")}),
    ("pantries in Oak County", {("county", "oak")}),
    ("pantries in oak co.", {("county", "oak")}),
    ("despensas en el condado de Pine", {("county", "pine")}),
    ("zip 67002", {("zip", "67002")}),
    ("pantries in Oak or Pine county", {("county", "oak"), ("county", "pine")}),
])
def test_places_come_from_the_directory(retriever: TraceRetriever, reference: datetime, text: str,
                                        expected: set[tuple[str, str]]) -> None:
    assert places(retriever, text, reference) == expected


def test_unknown_places_are_kept_as_unknown(retriever: TraceRetriever, reference: datetime) -> None:
    parsed = retriever.parse("food banks in Walnut County", reference).constraints
    assert parsed.unknown_places == ("Walnut County",) and not parsed.places
    assert retriever.parse("pantries near 99999", reference).constraints.unknown_places == ("ZIP 99999",)
    assert retriever.parse("pantries in Springfield", reference).constraints.unknown_places == ("Springfield",)


def test_state_alone_does_not_narrow(retriever: TraceRetriever, reference: datetime) -> None:
    parsed = retriever.parse("food pantries in Kansas", reference)
    assert not parsed.constraints.places and any(n.startswith("state_not_narrowing") for n in parsed.notes)


def test_recurring_weekday_and_time(retriever: TraceRetriever, reference: datetime) -> None:
    hours = retriever.parse("anything open on Saturdays after 6pm in Lakeview?", reference).constraints.hours
    assert hours is not None and hours.days == {5} and not hours.dates
    assert [(c.relation, c.start) for c in hours.conditions] == [("after", 18 * 60)]


@pytest.mark.parametrize(("text", "day"), [
    ("open tomorrow in Riverbend", date(2026, 3, 5)),
    ("open today in Riverbend", date(2026, 3, 4)),
    ("this Saturday in Riverbend", date(2026, 3, 7)),
    ("mañana en Riverbend", date(2026, 3, 5)),
])
def test_dates_resolve_against_the_reference(retriever: TraceRetriever, reference: datetime, text: str,
                                             day: date) -> None:
    hours = retriever.parse(text, reference).constraints.hours
    assert hours is not None and hours.dates == (day,)


def test_tomorrow_morning_and_spanish_meridiem(retriever: TraceRetriever, reference: datetime) -> None:
    hours = retriever.parse("tomorrow morning in Riverbend", reference).constraints.hours
    assert hours is not None and [(c.relation, c.start, c.end) for c in hours.conditions] == [("window", 360, 720)]
    hours = retriever.parse("¿algo abierto después de las 6 de la tarde en Lakeview?", reference).constraints.hours
    assert hours is not None and [(c.relation, c.start) for c in hours.conditions] == [("after", 18 * 60)]


def test_between_is_a_window(retriever: TraceRetriever, reference: datetime) -> None:
    hours = retriever.parse("open Tuesday between 4 and 6 pm in Riverbend", reference).constraints.hours
    assert hours is not None and [(c.relation, c.start, c.end) for c in hours.conditions] == [
        ("window", 16 * 60, 18 * 60)]


def test_bare_numbers_are_not_times(retriever: TraceRetriever, reference: datetime) -> None:
    assert retriever.parse("I have 3 kids and live in Riverbend", reference).constraints.hours is None


@pytest.mark.parametrize(("text", "concepts"), [
    ("pantries for college students in Lakeview", ("students",)),
    ("I don't have an ID, anything in Lakeview?", ("no_id",)),
    ("I can't make an appointment, pantry in Lakeview?", ("walk_in",)),
    ("pantry with no appointment needed in Lakeview", ("no_appointment",)),
    ("despensa para adultos mayores en Lakeview", ("seniors",)),
    ("I'm struggling to feed my kids in Lakeview", ()),
])
def test_semantic_constraints(retriever: TraceRetriever, reference: datetime, text: str,
                              concepts: tuple[str, ...]) -> None:
    c = retriever.parse(text, reference).constraints
    if concepts == ("no_appointment",):  # a negated requirement: records stating it are excluded
        assert c.preferred == concepts and c.excluded == ("appointment",) and c.concepts == ()
    else:
        assert c.concepts == concepts


def test_negated_concept_without_counterpart_is_not_a_constraint(retriever: TraceRetriever,
                                                                 reference: datetime) -> None:
    parsed = retriever.parse("I am not a veteran, pantry in Lakeview?", reference)
    # a visitor describing themselves: no constraint (veterans' pantries may serve everyone)
    assert parsed.constraints.concepts == () and parsed.constraints.excluded == ()
    assert any("unsupported" in n for n in parsed.notes)


def test_negated_record_property_excludes_the_records_stating_it(retriever: TraceRetriever,
                                                                  reference: datetime) -> None:
    parsed = retriever.parse("pantry in Lakeview that is not a soup kitchen", reference)
    assert parsed.constraints.excluded == ("hot_meals",) and parsed.constraints.concepts == ()
    for result in retriever.retrieve(parsed).results:
        assert not result.record.attributes.get("hot_meals")
        assert any(label == "not:hot_meals" for label, _ in result.citations)


def test_names_are_recognised_with_or_without_cues(retriever: TraceRetriever, reference: datetime) -> None:
    assert [n.key for n in retriever.parse("Tell me about Hope Table", reference).constraints.names] == [
        ("hope", "table")]
    named = retriever.parse("What time does the Salvation Army in Lakeview open?", reference).constraints
    assert [n.key for n in named.names] == [("salvation", "army")] and named.places
    # a name made only of generic words needs a recall cue: here it is just a place plus a request
    plain = retriever.parse("where is a community pantry in Riverbend", reference).constraints
    assert not plain.names and plain.places


def test_common_word_town_needs_a_cue(tmp_path_factory: pytest.TempPathFactory, reference: datetime) -> None:
    from .conftest import RECORDS, write_directory

    records = [dict(r) for r in RECORDS]
    records[0]["address"] = "12 Main St, Hope, KS 67001"
    directory, mapping = write_directory(tmp_path_factory.mktemp("hope"), records)
    retriever = TraceRetriever.from_files(directory, mapping, rules=load_rules())
    assert not retriever.parse("is there hope for a family like mine", reference).constraints.places
    assert places(retriever, "food pantries in Hope", reference) == {("city", "hope")}


def test_language_detection(retriever: TraceRetriever, reference: datetime) -> None:
    assert retriever.parse("¿Dónde hay comida en Lakeview?", reference).language == "es"
    assert retriever.parse("necesito una despensa cerca de Lakeview", reference).language == "es"
    assert retriever.parse("where can I get food in Lakeview", reference).language == "en"


def test_spanish_range_with_articles(retriever: TraceRetriever, reference: datetime) -> None:
    text = "abierto el martes entre las 4 y las 6 de la tarde en Riverbend"
    hours = retriever.parse(text, reference).constraints.hours
    assert hours is not None and hours.days == {1}
    assert [(c.relation, c.start, c.end) for c in hours.conditions] == [("window", 16 * 60, 18 * 60)]


def test_near_a_zip_is_a_distance_anchor(retriever: TraceRetriever, reference: datetime) -> None:
    """'near zip 67002' ranks by distance from the ZIP's centroid (the exact-ZIP reading is 'in 67002')."""
    parsed = retriever.parse("near zip 67002", reference)
    assert parsed.constraints.proximity is not None and parsed.constraints.proximity.label == "67002"
    assert not parsed.constraints.places
