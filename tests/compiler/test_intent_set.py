"""Our own set of 32 intents (EN and ES, many domains, short and long, purpose clauses, listed options).

Each expectation is what a reviewer would want from the intent: one objective per piece of information, in
approved order (qualify first, contact last), with the most specific kind that fits: a datetime granularity,
a count's unit, the listed options. Every candidate must also pass the same intent check as `goals validate`.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.compiler.compiler_rules import CompilerRules, GovernanceRules
from engine.compiler.coverage import intent_issues
from engine.compiler.deterministic import DeterministicCompiler
from engine.compiler.model import CompileInput
from engine.kernel.goal_models import GoalSpec
from tests.compiler.compiler_checks import assert_valid_candidate

LOCALE = {"currency": "EUR", "phone_region": "ES", "time_zone": "Europe/Madrid"}

# (kind, detail): detail is the datetime granularity, the quantity unit, or the set of listed option keys.
Expected = list[tuple[str, Any]]
DATE, TIME, SCHEDULE, TIMEFRAME = ("datetime", "date"), ("datetime", "time"), ("datetime", "schedule"), (
    "datetime", "timeframe")
AVAILABILITY = ("datetime", "availability")  # "which days and times suit them" (spec/adr/0008)
MONEY, PLACE, CONTACT, FREE = ("money", None), ("place", None), ("contact", None), ("free_text", None)


def count(unit: str) -> tuple[str, str]:
    return ("quantity", unit)


def one_of(*options: str) -> tuple[str, frozenset[str]]:
    return ("enumeration", frozenset(options))


def some_of(*options: str) -> tuple[str, frozenset[str]]:
    return ("features", frozenset(options))


INTENTS: list[tuple[str, str, str, Expected]] = [
    ("hotel", "en", "Hotel bookings: we need the check-in and check-out dates, the number of rooms, the number of "
     "guests, and an email address.", [DATE, DATE, count("rooms"), count("people"), CONTACT]),
    ("hotel es", "es", "Para reservar necesitamos la fecha de entrada y salida, cuántas habitaciones quiere y un "
     "teléfono.", [DATE, DATE, count("habitaciones"), CONTACT]),
    ("car rental", "en", "For car rentals we want to know the pick-up and return dates, the car type (hatchback, "
     "sedan or SUV), the pick-up city and a phone number.",
     [DATE, DATE, one_of("hatchback", "sedan", "suv"), PLACE, CONTACT]),
    ("therapy", "en", "We need to know whether they are looking for a psychologist, psychiatrist or family "
     "counselor, which days and times suit them, and their email.",
     [one_of("psychologist", "psychiatrist", "family_counselor"), AVAILABILITY, CONTACT]),
    ("terapia", "es", "Queremos saber si busca psicólogo, psiquiatra o terapeuta familiar, qué horario prefiere y "
     "un correo electrónico.", [one_of("psicologo", "psiquiatra", "terapeuta_familiar"), SCHEDULE, CONTACT]),
    ("homes", "en", "We want to know whether they want to rent or buy, the number of bedrooms and bathrooms, "
     "their maximum budget and the neighbourhood they prefer.",
     [one_of("rent", "buy"), count("bedrooms"), count("bathrooms"), MONEY, PLACE]),
    ("hr software", "en", "We want to qualify inbound leads for our HR software: how many employees they have, "
     "which payroll tool they use today, when they plan to buy, and a work email.",
     [count("employees"), FREE, TIMEFRAME, CONTACT]),
    ("taller", "es", "Queremos saber la marca y el modelo del coche, qué fecha le viene bien para traer el coche al "
     "taller y un teléfono o correo.", [FREE, DATE, CONTACT]),
    ("car dealer", "en", "For car buyers we want the make and model they are interested in, their buying time "
     "frame, whether they have a trade-in and a phone number.", [FREE, TIMEFRAME, FREE, CONTACT]),
    ("dental", "en", "We want to know the reason for the patient's visit, which dental insurance provider they "
     "have, the day and time that suits them for an appointment, and a phone number or email so that our front "
     "desk can confirm it.", [FREE, FREE, DATE, TIME, CONTACT]),
    ("academia", "es", "Queremos saber qué idioma quiere aprender, para qué lo necesita, qué horario prefiere, "
     "cuántos alumnos serían y un correo o WhatsApp para enviarle la propuesta.",
     [FREE, FREE, SCHEDULE, count("alumnos"), CONTACT]),
    ("wedding", "en", "We want to know the couple's wedding date, how many guests they expect, their overall "
     "budget, which facilities they need (catering, bar, accommodation, outdoor ceremony and so on) and a phone "
     "number or email address so that our events team can send a tailored quote.",
     [DATE, count("people"), MONEY, some_of("catering", "bar", "accommodation", "outdoor_ceremony"), CONTACT]),
    ("moving", "en", "A moving company wants to know the origin address, the destination address, the moving date "
     "and how many rooms are being moved, plus an email to send a quote.",
     [PLACE, PLACE, DATE, count("rooms"), CONTACT]),
    ("reformas", "es", "Una empresa de reformas quiere conocer el tipo de reforma (cocina, baño o integral), la "
     "superficie de la vivienda, el presupuesto aproximado, antes de cuándo quiere terminar la obra y un teléfono.",
     # a floor area is a quantity with a unit (m²), issue 27
     [one_of("cocina", "bano", "integral"), ("quantity", None), MONEY, TIMEFRAME, CONTACT]),
    ("restaurant", "en", "Restaurant bookings: we need the number of guests, the date and time of the reservation, "
     "the seating preference (indoor or outdoor), and the customer's name and phone.",
     [count("people"), DATE, TIME, one_of("indoor", "outdoor"), FREE, CONTACT]),
    ("tutoring", "en", "We need the subject they need help with, how many hours per week they want, their "
     "preferred schedule and a parent's email.", [FREE, count("hours"), SCHEDULE, CONTACT]),
    ("peluquería", "es", "Necesitamos saber qué servicio quiere (corte, color o peinado), qué día y a qué hora le "
     "viene bien, y su nombre y teléfono.", [one_of("corte", "color", "peinado"), DATE, TIME, FREE, CONTACT]),
    ("venue short", "en", "Budget, guest count, event date and contact details.",
     [MONEY, count("people"), DATE, CONTACT]),
    ("corto", "es", "Presupuesto, zona y teléfono.", [MONEY, PLACE, CONTACT]),
    ("insurance", "en", "We want to know what type of insurance they are looking for (home, car or life), their "
     "postcode, when their current policy renews, and a phone number so an advisor can call them back.",
     [one_of("home", "car", "life"), PLACE, DATE, CONTACT]),
    ("solar", "en", "Ask homeowners for their ZIP code, their average monthly electricity bill, whether they own or "
     "rent the home, the roof type (tile, metal or flat) and the best time to call.",
     [PLACE, MONEY, one_of("own", "rent"), one_of("tile", "metal", "flat"), TIME]),
    ("veterinaria", "es", "Queremos conocer la especie de la mascota (perro, gato u otro), su tamaño, el motivo de la "
     "consulta, el día que prefiere y un teléfono de contacto.",
     [one_of("perro", "gato", "otro"), FREE, FREE, DATE, CONTACT]),
    ("gym", "en", "We are a boutique gym with a small team of coaches. To prepare a personalised plan, we need to "
     "know their fitness goal, how many days per week they can train, and their preferred class time. Finally, "
     "we need an email or phone number.", [FREE, count("days"), TIME, CONTACT]),
    ("surf", "es", "Somos una escuela de surf pequeña y familiar. Queremos saber el nivel del alumno "
     "(principiante, intermedio o avanzado), cuántas personas vienen, las fechas de su estancia y un móvil para "
     "confirmar la reserva.",
     [one_of("beginner", "intermediate", "advanced"), count("people"), DATE, CONTACT]),
    ("bakery", "en", "For custom cake orders we need the pick-up date, the number of servings, the flavour "
     "(chocolate, vanilla or lemon) and the customer's name and phone number.",
     [DATE, count("servings"), one_of("chocolate", "vanilla", "lemon"), FREE, CONTACT]),
]


# Other ways managers write: bullet lines, questions, numbered items, examples after "e.g.".
INTENTS += [
    ("bullets", "en", "We need:\n- budget\n- reason for the visit\n- preferred date\n- phone", [
        MONEY, FREE, DATE, CONTACT]),
    ("preguntas", "es", "¿Cuál es su presupuesto? ¿Qué les trajo hasta nosotros? ¿Cómo podemos contactarles?",
     [MONEY, FREE, CONTACT]),
    ("numbered", "en", "Please collect: 1. their budget; 2. the reason for the visit; 3. a phone number.",
     [MONEY, FREE, CONTACT]),
    ("examples", "en", "I would like to learn their favourite cuisine, e.g. Italian or Thai, and a phone number.",
     [some_of("italian", "thai"), CONTACT]),
    ("appointment vs project", "en", "We want to know when they would like to come in, when they would like the "
     "kitchen finished, and their email.", [DATE, TIMEFRAME, CONTACT]),
    ("hotel stay", "en", "Hotel bookings: we need the check-in date, the length of stay, the number of rooms and an "
     "email.", [DATE, count("nights"), count("rooms"), CONTACT]),
    ("shared head", "en", "For our tailoring shop we need to know whether they want cotton, linen or wool shirts, "
     "and their email.", [one_of("cotton", "linen", "wool"), CONTACT]),
]


def _shape(spec: GoalSpec) -> Expected:
    shape: Expected = []
    for objective in spec.ordered():
        kind, params = objective.criterion.kind.value, objective.criterion.params
        detail: Any = None
        if kind == "datetime":
            detail = params.get("granularity", "date")
        elif kind == "quantity":
            detail = params.get("unit")
        elif kind in ("enumeration", "features") and "vocabulary" in params:
            detail = frozenset(spec.vocabularies[params["vocabulary"]]["options"])
        shape.append((kind, detail))
    return shape


def _expected(expected: Expected, spec: GoalSpec) -> Expected:
    """Features and enumerations from a catalogue kind without listed options carry seed vocabularies: compare
    only what the intent lists."""
    return [(k, d) for k, d in expected]


@pytest.mark.parametrize(("label", "language", "intent", "expected"), INTENTS, ids=[i[0] for i in INTENTS])
def test_every_part_of_the_intent_becomes_an_objective_of_the_right_kind(
        compiler: DeterministicCompiler, compiler_rules: CompilerRules, governance_rules: GovernanceRules,
        label: str, language: str, intent: str, expected: Expected) -> None:
    spec = compiler.compile(CompileInput(intent=intent, language=language, **LOCALE)).spec
    assert _shape(spec) == expected
    assert intent_issues(spec, compiler_rules) == []
    assert_valid_candidate(spec, governance_rules)
    for objective in spec.ordered():
        assert objective.criterion.params["intent_phrases"]
        assert language in objective.questions and objective.questions[language].strip()


def test_the_set_is_varied() -> None:
    assert len(INTENTS) >= 20
    assert {lang for _, lang, _, _ in INTENTS} == {"en", "es"}
    kinds = {kind for *_, expected in INTENTS for kind, _ in expected}
    assert kinds >= {"money", "place", "contact", "enumeration", "features", "datetime", "quantity", "free_text"}
