"""Issue 28, the long tail of Spanish and French visitors as general properties: scaled counts answering the count
just asked, regional amount words, a head count closing a price question, bare sí/no vocabulary terms, requests
phrased as questions, a verb cue governing a place's role, names stated after possession, date pairs (both
months written, lengths in hours, an end counted from the start, a weekday-and-day end), and a question that says
only a time. Specs are built here; words come from small generic pools, never from a benchmark's sentences."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.goals.publication import spec_hash
from engine.kernel.conversation import Message, Role
from engine.kernel.goal_models import GoalSpec, PublishedGoalSpec
from engine.kernel.ports import ProposerInput
from tests.proposer.helpers import proposer

NOW = datetime(2027, 3, 1, 10, tzinfo=UTC)  # a Monday
YES_NO = {"version": "1.0.0", "description": "yes or no", "kind": "enumeration",
          "options": {"si": {"es": ["sí", "con remolque"]}, "no": {"es": ["no", "sin remolque"]}}}
PLACES = {"version": "1.0.0", "description": "places", "kind": "place", "allow_unlisted": True,
          "options": {"estacion": {"es": ["la estación", "estación"]}, "puerto": {"es": ["el puerto", "puerto"]}}}


def _objective(oid: str, kind: str, params: dict[str, Any], order: int, *, name: str | None = None,
               question: str | None = None, description: str | None = None, lang: str = "es") -> dict[str, Any]:
    return {"id": oid, "name": name or oid, "questions": {lang: question or f"¿{oid}?"}, "weight": "0.1",
            "order": order, "criterion": {"kind": kind, "description": description or f"El visitante da {oid}.",
                                          "params": params}}


def _publish(objectives: list[dict[str, Any]], lang: str = "es", currency: str | None = None,
             vocabularies: dict[str, Any] | None = None) -> PublishedGoalSpec:
    body: dict[str, Any] = {"id": "t-regional", "title": "t", "default_language": lang, "languages": [lang],
                            "objectives": objectives, "vocabularies": vocabularies or {}}
    if currency:
        body["locale"] = {"currency": currency}
    spec = GoalSpec.model_validate(body)
    return PublishedGoalSpec(spec=spec, version=1, content_hash=spec_hash(spec), approved_by="tests",
                             approved_at=datetime(2026, 1, 1, tzinfo=UTC))


@lru_cache(maxsize=1)
def _workshop() -> PublishedGoalSpec:
    return _publish([
        _objective("vehiculo", "free_text", {"cues": {"es": ["coche", "auto"]}}, 1, name="Marca y modelo",
                   question="¿Qué marca y modelo tiene?"),
        _objective("km", "quantity", {"unit": "km", "unit_terms": {"es": ["km", "kilómetros"]}, "min": 0,
                                      "max": 900000, "integer": False}, 2),
        _objective("dia", "datetime", {"granularity": "availability"}, 3),
        _objective("remolque", "enumeration", {"vocabulary": "remolque", "cues": {"es": ["remolque"]}}, 4),
        _objective("grupo", "quantity", {"unit": "people", "unit_terms": {"es": ["personas"]}, "min": 1,
                                         "max": 30, "integer": True, "cues": {"es": ["para", "somos"]}}, 5),
        _objective("presupuesto", "money", {"currency": "ARS", "min_amount": 1000,
                                            "cues": {"es": ["presupuesto"]}}, 6),
    ], currency="ARS", vocabularies={"remolque": {**YES_NO, "id": "remolque"}})


@lru_cache(maxsize=1)
def _transfers() -> PublishedGoalSpec:
    return _publish([
        _objective("recogida", "place", {"vocabulary": "lugares", "cues": {"es": ["recoger", "llegamos"]}}, 1,
                   question="¿Dónde le recogemos?"),
        _objective("destino", "place", {"vocabulary": "lugares", "cues": {"es": ["a", "llevar", "destino"]}}, 2,
                   question="¿A dónde va?"),
    ], vocabularies={"lugares": {**PLACES, "id": "lugares"}})


@lru_cache(maxsize=1)
def _rental(lang: str) -> PublishedGoalSpec:
    start_name, end_name = ("Date de prise", "Date de retour") if lang == "fr" else ("Pick-up day", "Return day")
    return _publish([
        _objective("prise", "datetime", {"granularity": "date"}, 1, name=start_name, lang=lang,
                   description="« La fin du mois » ne compte pas." if lang == "fr" else "'The end of June' is no day."),
        _objective("retour", "datetime", {"granularity": "date"}, 2, name=end_name, lang=lang),
    ], lang=lang)


def _done(spec: PublishedGoalSpec, text: str, *, asked: str | None = None, lang: str = "es",
          recorded: dict[str, str] | None = None) -> dict[str, str]:
    bits = [0 if o.id not in (recorded or {}) else 1 for o in spec.spec.objectives]
    request = ProposerInput(spec=spec, bits=bits, language=lang, turn=2, history=[], last_asked=asked,
                            message=Message(role=Role.VISITOR, turn=2, text=text), reference_time=NOW,
                            recorded=recorded or {})
    return {c.objective: c.value for c in proposer().propose(request).commands if c.type == "complete"}


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 400), st.sampled_from(["como ", "unos ", "", "tiene como "]))
def test_a_scaled_number_answers_the_count_just_asked(thousands: int, lead: str) -> None:
    assert _done(_workshop(), f"{lead}{thousands} mil", asked="km").get("km") == str(thousands * 1000)


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 90), st.sampled_from(["lucas", "luca"]), st.sampled_from(["la noche", "x noche", "por noche"]))
def test_regional_thousands_scale_an_amount(amount: int, word: str, per: str) -> None:
    found = _done(_workshop(), f"presupuesto {amount} {word} {per}")
    assert found.get("presupuesto") == f"{amount * 1000} ARS"


@settings(max_examples=15, deadline=None)
@given(st.integers(2, 9), st.sampled_from(["cuánto sale", "cuanto cuesta", "cuánto me sale"]))
def test_a_head_count_closing_a_price_question_counts(count: int, ask: str) -> None:
    assert _done(_workshop(), f"hola, ¿{ask} x noche para {count}?").get("grupo") == str(count)


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["perdón, no {n}, somos {m}", "aún no sé el día", "no, nos vamos el lunes",
                        "sí, somos {m}"]), st.integers(2, 5))
def test_a_bare_yes_or_no_term_answers_only_its_own_question(template: str, n: int) -> None:
    text = template.format(n=n, m=n + 1)
    assert "remolque" not in _done(_workshop(), text, asked="grupo")
    assert _done(_workshop(), "no", asked="remolque").get("remolque") == "no"
    assert _done(_workshop(), "sí, con remolque para la moto", asked="grupo").get("remolque") == "si"


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["Nissan Versa", "Renault Clio", "Mazda 3", "Kia Rio"]), st.integers(1995, 2026),
       st.sampled_from(["Tengo un {car} {year}", "Buenas, tengo un {car} {year} y hace ruido",
                        "Necesito una revisión para mi {car} {year}"]))
def test_a_name_stated_after_possession_answers_a_brand_and_model(car: str, year: int, template: str) -> None:
    assert car in _done(_workshop(), template.format(car=car, year=year)).get("vehiculo", "")


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["el sábado", "el jueves en la mañana", "mañana en la tarde"]),
       st.sampled_from(["no necesito remolque", "no tengo prisa"]))
def test_a_lone_no_after_a_comma_negates_the_next_clause_not_the_day(day: str, rest: str) -> None:
    assert "dia" in _done(_workshop(), f"lo puedo dejar {day}, {rest}")
    assert "dia" not in _done(_workshop(), f"{day} no puedo")


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["Marbella", "Ronda", "Nerja", "Cádiz"]),
       st.sampled_from(["podéis", "pueden", "podrías", "puede"]))
def test_a_request_phrased_as_a_question_names_the_places(town: str, can: str) -> None:
    found = _done(_transfers(), f"¿Me {can} recoger en la estación y llevarme a {town}?")
    assert found.get("recogida") == "la estación" and found.get("destino") == town
    assert not _done(_transfers(), f"¿Me {can} decir cuánto cuesta ir a {town}?")


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["llegan", "llegamos", "llega"]), st.integers(2, 27))
def test_a_verb_cue_governs_the_place_after_a_bare_preposition(verb: str, day: int) -> None:
    found = _done(_transfers(), f"{verb} el {day} de junio al puerto")
    assert found.get("recogida") == "puerto" and "destino" not in found


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 20), st.integers(1, 6), st.sampled_from(["juillet", "août"]))
def test_a_french_range_with_both_months_gives_both_days(first: int, length: int, month: str) -> None:
    number = 7 if month == "juillet" else 8
    found = _done(_rental("fr"), f"du {first} {month} au {first + length} {month}", lang="fr")
    assert found == {"prise": f"2027-{number:02d}-{first:02d}", "retour": f"2027-{number:02d}-{first + length:02d}"}


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 4), st.sampled_from(["je la garde {h} heures", "je la garde {h}h", "pour {h} heures"]))
def test_a_length_in_hours_gives_the_return_day(days: int, template: str) -> None:
    found = _done(_rental("fr"), template.format(h=24 * days), lang="fr", asked="retour",
                  recorded={"prise": "2027-07-03T08:00"})
    assert found.get("retour") == f"2027-07-{3 + days:02d}"


@settings(max_examples=10, deadline=None)
@given(st.sampled_from([("Je la ramène le lendemain", 1, "fr"), ("Retour le soir même", 0, "fr"),
                        ("I bring it back the next day", 1, "en"), ("back the same evening", 0, "en")]))
def test_an_end_counted_from_the_start(case: tuple[str, int, str]) -> None:
    text, days, lang = case
    found = _done(_rental(lang), text, lang=lang, asked="retour", recorded={"prise": "2027-07-03"})
    assert found.get("retour") == f"2027-07-{3 + days:02d}"


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 20), st.integers(1, 8))
def test_a_weekday_and_day_end_takes_the_start_month(first: int, length: int) -> None:
    start = datetime(2027, 10, first)
    end = datetime(2027, 10, first + length)
    text = f"{start:%A} {first} October to {end:%A} {first + length}th"
    assert _done(_rental("en"), text, lang="en") == {"prise": f"{start:%Y-%m-%d}", "retour": f"{end:%Y-%m-%d}"}


def test_quoted_examples_do_not_give_a_range_role() -> None:
    assert _done(_rental("fr"), "du 29 au 30 juin", lang="fr") == {"prise": "2027-06-29", "retour": "2027-06-30"}


@settings(max_examples=10, deadline=None)
@given(st.sampled_from([("tmrw am?", "2027-03-02Tmorning"), ("tomorrow pm?", "2027-03-02Tafternoon"),
                        ("tonite", "2027-03-01Tevening"), ("friday arvo?", "2027-03-05Tafternoon")]))
def test_casual_times_answer_availability(case: tuple[str, str]) -> None:
    spec = _publish([_objective("when", "datetime", {"granularity": "availability"}, 1, lang="en",
                                question="When can you come?")], lang="en")
    text, value = case
    assert _done(spec, text, asked="when", lang="en").get("when") == value


@settings(max_examples=15, deadline=None)
@given(st.integers(10, 19), st.sampled_from(["something from '{y}", "I want something released in '{y}.",
                                             "could you find me something from ’{y}?"]))
def test_a_year_short_form_names_the_year(year: int, template: str) -> None:
    vocabulary = {"version": "1.0.0", "description": "years", "kind": "enumeration",
                  "options": {f"y20{n}": {"en": [f"20{n}"]} for n in range(10, 20)}}
    spec = _publish([_objective("year", "enumeration", {"vocabulary": "years", "cues": {"en": ["year"]}}, 1,
                                lang="en")], lang="en", vocabularies={"years": {**vocabulary, "id": "years"}})
    found = _done(spec, template.format(y=year), lang="en")
    assert found.get("year") == f"y20{year}"
    assert "year" not in _done(spec, f"it costs {year} dollars", lang="en")
