"""Compiler classes behind the onboarding gaps (issue 27): what a company's own intent needs to become a spec that
records real visitors. Each test is a general class, written with intents of our own."""

from __future__ import annotations

import pytest

from engine.compiler import phrasing
from engine.compiler.compiler_rules import CompilerRules
from engine.compiler.deterministic import DeterministicCompiler
from engine.compiler.locale import Needs, resolve_locale
from engine.compiler.model import CompileInput
from engine.kernel.goal_models import CriterionKind, GoalSpec
from engine.text import fold

LOCALE = {"currency": "EUR", "phone_region": "ES", "time_zone": "Europe/Madrid"}
NEEDS = Needs(currency=["budget"], phone_region=["phone"], time_zone=["date"])


def _compile(compiler: DeterministicCompiler, intent: str, language: str) -> GoalSpec:
    return compiler.compile(CompileInput(intent=intent, language=language, **LOCALE)).spec


def _by_phrase(spec: GoalSpec) -> dict[str, tuple[str, str]]:
    return {str(p): (o.id, o.criterion.kind.value) for o in spec.ordered()
            for p in o.criterion.params.get("intent_phrases", [])}


def test_a_reason_and_a_current_provider_carry_how_visitors_answer_them(compiler: DeterministicCompiler) -> None:
    spec = _compile(compiler, "We want to know the reason for the call, which accounting software they use today "
                              "and a phone number.", "en")
    objectives = {o.id: o for o in spec.ordered()}
    assert [o.id for o in spec.ordered()] == ["reason", "provider", "contact"]
    reason, provider = objectives["reason"].criterion, objectives["provider"].criterion
    assert reason.kind is CriterionKind.FREE_TEXT and provider.kind is CriterionKind.FREE_TEXT
    # the visitor's way of answering joins the manager's words, in every language the spec asks in
    assert "need" in reason.params["cues"]["en"] and "reason" in reason.params["cues"]["en"]
    assert "necesito" in reason.params["cues"]["es"] and "besoin" in reason.params["cues"]["fr"]
    assert "we use" in provider.params["cues"]["en"] and "usamos" in provider.params["cues"]["es"]


def test_a_kind_without_answer_cues_keeps_the_managers_words_only(compiler: DeterministicCompiler) -> None:
    spec = _compile(compiler, "We want to know the make and model of the boat and an email.", "en")
    cues = spec.ordered()[0].criterion.params["cues"]
    assert "need" not in cues.get("en", []) and "we use" not in cues.get("en", [])


@pytest.mark.parametrize(("intent", "language", "contact", "purpose"), [
    ("We want to know the date of the trip and an email for the booking form.", "en", "email", "for the booking"),
    ("Necesitamos la fecha y un teléfono para que el conductor le llame al llegar.", "es", "teléfono",
     "para que el conductor"),
    ("Nous voulons savoir la date et un courriel pour la facture.", "fr", "courriel", "pour la facture"),
])
def test_what_the_contact_is_for_is_a_purpose_not_an_objective(compiler: DeterministicCompiler, intent: str,
                                                               language: str, contact: str, purpose: str) -> None:
    spec = _compile(compiler, intent, language)
    phrases = _by_phrase(spec)
    assert len(spec.objectives) == 2
    assert any(contact in p and kind == "contact" for p, (_, kind) in phrases.items())
    assert not any(fold(purpose) in fold(p) for p in phrases)


@pytest.mark.parametrize(("intent", "language", "phrase"), [
    ("Necesitamos la potencia de la bomba en kilovatios, el presupuesto y un teléfono.", "es",
     "la potencia de la bomba"),
    ("Nous voulons savoir la longueur du quai en pieds, le budget et un courriel.", "fr", "la longueur du quai"),
    ("We want to know the size of the generator in kVA, the budget and a phone number.", "en",
     "the size of the generator"),
])
def test_a_unit_scope_ends_the_phrase_as_context(compiler: DeterministicCompiler, intent: str, language: str,
                                                  phrase: str) -> None:
    spec = _compile(compiler, intent, language)
    phrases = _by_phrase(spec)
    assert len(spec.objectives) == 3
    claimed = [p for p in phrases if fold(phrase) in fold(p) or fold(p) in fold(phrase)]
    assert claimed and phrases[claimed[0]][1] == "quantity"


@pytest.mark.parametrize(("intent", "language", "phrase", "kind"), [
    ("Nous voulons savoir le nombre d'invités et un courriel.", "fr", "nombre d'invités", "quantity"),
    ("Queremos saber el nombre del perro y un correo.", "es", "nombre del perro", "free_text"),
])
def test_kind_keywords_are_read_in_the_intents_language(compiler: DeterministicCompiler, intent: str,
                                                        language: str, phrase: str, kind: str) -> None:
    phrases = _by_phrase(_compile(compiler, intent, language))
    claimed = [k for p, (_, k) in phrases.items() if phrase in p]
    assert claimed == [kind]


@pytest.mark.parametrize(("intent", "language", "fragment", "kind", "granularity"), [
    ("We want to know which weekdays and times suit them and an email.", "en", "weekdays", "datetime",
     "availability"),
    ("We want to know which week suits them and an email.", "en", "week", "datetime", None),
    ("Nous voulons savoir quel dimanche leur convient et un courriel.", "fr", "dimanche", "datetime", None),
    ("We want to know the best number to reach them and the date.", "en", "number", "contact", None),
])
def test_kinds_for_what_companies_ask(compiler: DeterministicCompiler, intent: str, language: str, fragment: str,
                                      kind: str, granularity: str | None) -> None:
    spec = _compile(compiler, intent, language)
    asked = [o for o in spec.ordered() if any(fragment in str(p) for p in o.criterion.params["intent_phrases"])]
    assert len(asked) == 1 and asked[0].criterion.kind.value == kind
    if granularity is not None:
        assert asked[0].criterion.params.get("granularity") == granularity


def test_no_inflected_variant_is_shorter_than_the_rule_allows(compiler_rules: CompilerRules) -> None:
    assert "me" not in phrasing.variants("mes", "es", compiler_rules.phrasing)
    assert "casas" in phrasing.variants("casa", "es", compiler_rules.phrasing)


@pytest.mark.parametrize(("intent", "language", "expected"), [
    ("Window cleaning across Adelaide's eastern suburbs. We want to know the budget, the date and a phone number.",
     "en", ("AUD", "AU", "Australia/Adelaide")),
    ("A bakery on the edge of Leeds. We want to know the budget, the date and a phone number.", "en",
     ("GBP", "GB", "Europe/London")),
    ("Balades en bateau au nord d'Angers. Nous voulons connaître le budget, la date et un téléphone.", "fr",
     ("EUR", "FR", "Europe/Paris")),
    ("Nous sommes une agence à Aix-en-Provence. Nous voulons connaître le budget, la date et un téléphone.", "fr",
     ("EUR", "FR", "Europe/Paris")),
])
def test_town_frames_possessives_and_elisions(compiler_rules: CompilerRules, intent: str, language: str,
                                              expected: tuple[str, str, str]) -> None:
    locale = resolve_locale(currency=None, phone_region=None, time_zone=None, intent=intent, corpus=[], needs=NEEDS,
                            rules=compiler_rules.locale, not_places=compiler_rules.corpus.not_places,
                            language=language)
    assert (locale.currency, locale.phone_region, locale.time_zone) == expected


@pytest.mark.parametrize(("intent", "language", "phrases"), [
    # the company's offer listed after a colon, before the sentence that asks: no objective
    ("Boat trips from the old harbour: island tour, dolphin watching, sunset cruise. We want to know the date, "
     "the number of people and an email.", "en", {"date", "number of people", "email"}),
    ("Excursions depuis le port : tour de l'île, cascades, lagon. On veut savoir le jour, le nombre de personnes "
     "et un e-mail.", "fr", {"jour", "nombre de personnes", "e-mail"}),
    # a collect verb opening the item after a comma
    ("Entretien de chaudières : gaz, fioul, bois. Pour une demande, demander le type de chaudière, l'adresse et "
     "un téléphone.", "fr", {"type de chaudière", "adresse", "téléphone"}),
    # the assistant "asks:" a list; an instruction to tell visitors something and a negated need are context
    ("Bike hire in the old town. For rentals the assistant asks: the date, how many bikes and a mobile number. "
     "Tell them we take cash or card, no deposits.", "en", {"date", "how many bikes", "mobile number"}),
    ("We want to know the date and the number of guests. We do not need their phone number.", "en",
     {"date", "number of guests"}),
])
def test_offers_instructions_and_negated_needs_are_context(compiler: DeterministicCompiler, intent: str,
                                                           language: str, phrases: set[str]) -> None:
    spec = _compile(compiler, intent, language)
    claimed = {fold(p) for p in _by_phrase(spec)}
    assert len(claimed) == len(phrases), claimed
    for phrase in phrases:
        assert any(fold(phrase) in c for c in claimed), (phrase, claimed)
