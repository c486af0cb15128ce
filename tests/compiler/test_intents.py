"""Intents beyond the paper: each gives a valid candidate or a clear, coded error."""

from __future__ import annotations

import pytest

from engine.compiler.compiler_rules import GovernanceRules
from engine.compiler.deterministic import DeterministicCompiler
from engine.compiler.errors import CompileError
from engine.compiler.model import CompileInput
from engine.errors import GoalSpecError, GraceError
from engine.kernel.goal_models import CriterionKind
from tests.compiler.compiler_checks import assert_valid_candidate

LOCALE = {"currency": "EUR", "phone_region": "ES", "time_zone": "Europe/Madrid"}

VALID = [
    ("dental clinic", "en",
     "Our dental clinic wants to know which treatment the patient is interested in, their preferred appointment "
     "date and time, and a phone number to confirm the booking.",
     ["service_type", "preferred_date", "preferred_time", "contact"]),
    ("clínica dental", "es",
     "Queremos saber qué tratamiento dental le interesa al paciente, la fecha preferida para la cita y un teléfono "
     "de contacto.",
     ["service_type", "preferred_date", "contact"]),
    ("language school", "en",
     "For our language school we need the language the student wants to learn, their current level, the preferred "
     "schedule and an email address so we can send a course proposal.",
     ["subject", "level", "preferred_schedule", "contact"]),
    ("academia de idiomas", "es",
     "Para nuestra academia necesitamos el idioma que quiere aprender, su nivel actual, el horario preferido y un "
     "correo electrónico.",
     ["subject", "level", "preferred_schedule", "contact"]),
    ("car dealership", "en",
     "At the car dealership we want the vehicle model the customer is interested in, their budget and a telephone "
     "number so a salesperson can call them back.",
     ["product_interest", "budget", "contact"]),
    ("food-pantry helpline", "en",
     "The food-pantry helpline should learn the caller's ZIP code, household size and which day they can come, to "
     "refer them to the closest pantry.",
     ["location", "party_size", "preferred_date"]),
    ("banco de alimentos", "es",
     "La línea de ayuda del banco de alimentos debe conocer el código postal, el número de personas en el hogar y "
     "el día en que pueden venir.",
     ["location", "party_size", "preferred_date"]),
    ("restaurant", "en",
     "Restaurant bookings: we need the number of guests, the date and time of the reservation, and the customer's "
     "name and phone.",
     ["party_size", "preferred_date", "preferred_time", "name", "contact"]),
    ("moving company", "en",
     "A moving company wants to know the origin address, the moving date, the volume to move and contact details "
     "to send a quote.",
     ["location", "preferred_date", "quantity", "contact"]),
    ("reformas", "es",
     "Una empresa de reformas quiere conocer el tipo de reparación que necesita el cliente, la ubicación de la "
     "vivienda, su presupuesto y un teléfono.",
     ["service_type", "location", "budget", "contact"]),
    ("wedding venue", "en",
     "Wedding venue enquiries: the couple's budget, the preferred date, the guest count and an email address.",
     ["budget", "preferred_date", "party_size", "contact"]),
    ("contact first, then needs", "en",
     "Get an email or phone first, then the visitor's requirements and their budget.",
     ["requirements", "budget", "contact"]),
]

ERRORS = [
    ("health", "en", "We need the patient's medical history and a phone number.", "goalspec.prohibited_category",
     "health"),
    ("religion", "es", "Necesitamos la religión del cliente para planificar el menú, además de su correo.",
     "goalspec.prohibited_category", "religion"),
    ("birth date", "en", "Collect the applicant's date of birth and email.", "goalspec.prohibited_category",
     "precise_birth_date"),
    ("national id", "en", "We would like to know the visitor's passport number and address.",
     "goalspec.prohibited_category", "national_id"),
    ("orientation", "es", "Queremos saber la orientación sexual del cliente.", "goalspec.prohibited_category",
     "sexual_orientation"),
    ("ethnicity", "en", "Ask for the caller's ethnic origin and ZIP code.", "goalspec.prohibited_category",
     "ethnicity"),
    ("union", "es", "Recoger la afiliación sindical y el teléfono del trabajador.", "goalspec.prohibited_category",
     "union_membership"),
    ("politics", "en", "Find out the visitor's political opinions and email.", "goalspec.prohibited_category",
     "political_opinion"),
    ("nothing to collect", "en", "Hello, please be nice to our visitors.", "compile.no_objectives", None),
    ("empty", "en", "   ", "compile.intent_empty", None),
    ("too long", "en", "budget " * 1000, "compile.intent_too_long", None),
]


@pytest.mark.parametrize(("label", "language", "intent", "expected"), VALID, ids=[v[0] for v in VALID])
def test_other_intents_compile(compiler: DeterministicCompiler, governance_rules: GovernanceRules, label: str,
                               language: str, intent: str, expected: list[str]) -> None:
    spec = compiler.compile(CompileInput(intent=intent, language=language, **LOCALE)).spec
    assert [o.id for o in spec.ordered()] == expected
    assert_valid_candidate(spec, governance_rules)


@pytest.mark.parametrize(("label", "language", "intent", "code", "category"), ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_intents_give_a_clear_error(compiler: DeterministicCompiler, label: str, language: str, intent: str,
                                        code: str, category: str | None) -> None:
    with pytest.raises(GraceError) as info:
        compiler.compile(CompileInput(intent=intent, language=language, **LOCALE))
    assert info.value.code == code
    assert "\n" not in info.value.message
    if category is not None:
        assert isinstance(info.value, GoalSpecError)
        assert category in info.value.message


def test_unsupported_language_is_refused(compiler: DeterministicCompiler) -> None:
    with pytest.raises(CompileError) as info:
        compiler.compile(CompileInput(intent="We need the budget.", language="de", **LOCALE))
    assert info.value.code == "compile.language_unsupported"


def test_date_and_time_become_two_objectives(compiler: DeterministicCompiler) -> None:
    """A time alone can complete the time objective: "date and time" is two objectives, not one."""
    spec = compiler.compile(CompileInput(intent="We need the appointment date and time.", language="en",
                                         **LOCALE)).spec
    assert [(o.id, o.criterion.kind, o.criterion.params["granularity"]) for o in spec.ordered()] == [
        ("preferred_date", CriterionKind.DATETIME, "date"), ("preferred_time", CriterionKind.DATETIME, "time")]
    date_only = compiler.compile(CompileInput(intent="We need the preferred date.", language="en", **LOCALE)).spec
    assert date_only.objectives[0].criterion.params["granularity"] == "date"


def test_purpose_clauses_never_become_objectives(compiler: DeterministicCompiler) -> None:
    spec = compiler.compile(CompileInput(
        intent="We need the area and the best way to contact them, so that we can prepare a budget proposal.",
        language="en", **LOCALE)).spec
    assert [o.id for o in spec.ordered()] == ["location", "contact"]


def test_compilation_is_deterministic(compiler: DeterministicCompiler) -> None:
    request = CompileInput(intent=VALID[0][2], language="en", **LOCALE)
    assert compiler.compile(request) == compiler.compile(request)


def test_question_languages_can_be_restricted(compiler: DeterministicCompiler) -> None:
    spec = compiler.compile(CompileInput(intent=VALID[1][2], language="es", languages=["es"], **LOCALE)).spec
    assert spec.languages == ["es"] and all(set(o.questions) == {"es"} for o in spec.objectives)


def test_a_language_the_managers_words_cannot_be_asked_in_is_dropped_with_a_note(
        compiler: DeterministicCompiler) -> None:
    intent = "We want to know which hobby club they belong to and a phone number."
    outcome = compiler.compile(CompileInput(intent=intent, language="en", **LOCALE))
    assert outcome.spec.languages == ["en"]
    assert any("no es question" in note and "which hobby club they belong to" in note for note in outcome.notes)
    with pytest.raises(CompileError) as info:  # asked for explicitly: a coded error quoting the phrase
        compiler.compile(CompileInput(intent=intent, language="en", languages=["en", "es"], **LOCALE))
    assert info.value.code == "compile.question_untranslatable" and "hobby club" in info.value.message
    catalogue = compiler.compile(CompileInput(intent="We need their budget and a phone number.", language="en",
                                              languages=["en", "es"], **LOCALE))
    assert catalogue.spec.languages == ["en", "es"]


@pytest.mark.parametrize(("intent", "channels", "question"), [
    ("We need their email.", ["email"], "Could you share an email address so that we can contact you?"),
    ("We need a phone number.", ["phone"], "Could you share a telephone number so that we can contact you?"),
    ("We need their email and a phone number.", ["email", "phone"],
     "Could you share an email address or telephone number so that we can contact you?"),
    ("We need their contact details.", ["email", "phone"],
     "Could you share an email address or telephone number so that we can contact you?"),
])
def test_contact_channels_follow_the_managers_words(compiler: DeterministicCompiler, intent: str,
                                                    channels: list[str], question: str) -> None:
    spec = compiler.compile(CompileInput(intent=intent, language="en", **LOCALE)).spec
    assert len(spec.objectives) == 1
    contact = spec.objectives[0]
    assert contact.criterion.params["channels"] == channels and contact.questions["en"] == question
    assert ("default_region" in contact.criterion.params) == ("phone" in channels)
