"""Issue 27, second pass: governance judged by meaning, unit scopes, unit synonyms, sibling roles and choices.

Each test names the general rule it checks; the intents are written for the test (none is a benchmark item).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.compiler.compiler_rules import CompilerRules, GovernanceRules
from engine.compiler.deterministic import DeterministicCompiler
from engine.compiler.governance import prohibited, set_aside
from engine.compiler.model import CompileInput
from engine.errors import GraceError
from engine.kernel.goal_models import CriterionKind, GoalSpec

LOCALE = {"currency": "EUR", "phone_region": "ES", "time_zone": "Europe/Madrid"}


def _spec(compiler: DeterministicCompiler, intent: str, language: str = "en") -> GoalSpec:
    return compiler.compile(CompileInput(intent=intent, language=language, **LOCALE)).spec


def _by_phrase(spec: GoalSpec) -> dict[str, tuple[CriterionKind, dict[str, object]]]:
    return {str(p): (o.criterion.kind, dict(o.criterion.params))
            for o in spec.ordered() for p in o.criterion.params.get("intent_phrases", [])}


# -- governance by meaning ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "We want to know whether the hedge shows any signs of disease, and a phone number.",  # subject in the phrase
    "Nous voulons connaître la race et l'âge du chat, et un e-mail.",  # coordinated with the animal's age
    "For boarding we need the puppy's name, any medication it takes, and a phone number.",  # animal in the sentence
    "Necesitamos la marca del coche, el diagnóstico del taller y un teléfono.",  # a workshop's diagnosis
])
def test_a_keyword_about_an_animal_plant_vehicle_or_business_is_set_aside(governance_rules: GovernanceRules,
                                                                          text: str) -> None:
    assert prohibited([text], governance_rules) == []
    assert set_aside([text], governance_rules)  # and reported to the reviewer with its subject


@pytest.mark.parametrize("text", [
    "For the dog walk we need the owner's name and their medical conditions.",  # a person's possessive
    "Pour le séjour il nous faut le niveau et leurs problèmes de santé.",  # French keywords, a person's possessive
    "We want to know the patient's symptoms and a phone number.",  # a person named beside it
    "Queremos saber si tiene alguna enfermedad y un teléfono.",  # nothing but the visitor to be about
])
def test_a_keyword_about_the_visitor_stays_prohibited(governance_rules: GovernanceRules, text: str) -> None:
    found = prohibited([text], governance_rules)
    assert [j.match.label for j in found] == ["health"]
    assert "visitor as a person" in found[0].reason()


@pytest.mark.parametrize(("text", "group"), [
    ("For the charity run we ask which race they enter (5K or 10K) and an email.", "event"),  # a race of a run
    ("Cuando nos escriben por un cumpleaños o una fiesta, queremos saber la fecha y un teléfono.", "event"),
    ("Pour la commande, le type de gâteau (tarte, plateau de religieuses) et un numéro.", "food"),  # a pastry
    ("Nous voulons connaître la nationalité du passeport pour le visa et un e-mail.", "document_attribute"),
    ("We need the passport expiry date and an email.", "document_attribute"),
])
def test_a_restricted_group_sets_aside_its_own_categories(governance_rules: GovernanceRules, text: str,
                                                          group: str) -> None:
    assert prohibited([text], governance_rules) == []
    assert [j.group for j in set_aside([text], governance_rules)] == [group]


@pytest.mark.parametrize(("text", "category"), [
    ("We want to know their religion for the wedding ceremony and an email.", "religion"),  # an event never sets
    ("Queremos saber la religión de la familia para la boda y un teléfono.", "religion"),  # aside a religion
    ("For the party we need the guest's date of birth and a phone number.", "precise_birth_date"),
    ("Nous voulons le numéro de passeport pour le visa et un e-mail.", "national_id"),  # the number itself
    ("We need their passport number and the nationality of the group.", "national_id"),
    ("Quelles allergies a le client pour le gâteau ? Et un numéro.", "health"),  # a pastry sets aside religion only
])
def test_a_restricted_group_keeps_every_other_category(governance_rules: GovernanceRules, text: str,
                                                       category: str) -> None:
    assert [j.match.label for j in prohibited([text], governance_rules)] == [category]


def test_a_refusal_quotes_the_phrase_and_the_reason(compiler: DeterministicCompiler) -> None:
    with pytest.raises(GraceError) as info:
        _spec(compiler, "Pour chaque demande, il nous faut les dates et leurs antécédents médicaux.", "fr")
    assert info.value.code == "goalspec.prohibited_category"
    assert "antecedents medicaux" in info.value.message and "visitor as a person" in info.value.message


# -- unit scopes and unit synonyms ---------------------------------------------------------------------------------

def test_a_unit_scope_makes_a_measured_quantity_shared_by_a_coordinated_noun(compiler: DeterministicCompiler) -> None:
    spec = _spec(compiler, "We want to know the boat's length and draught in metres, the arrival date and an email.")
    parts = _by_phrase(spec)
    assert parts["boat's length"][0] is CriterionKind.QUANTITY and parts["boat's length"][1]["unit"] == "metres"
    assert parts["draught"][0] is CriterionKind.QUANTITY and parts["draught"][1]["unit"] == "metres"
    assert not any("metres" in p for p in parts)  # the scope is not part of any objective's phrase


def test_a_plural_head_with_a_unit_scope_stays_free_text(compiler: DeterministicCompiler) -> None:
    spec = _spec(compiler, "Queremos saber las medidas aproximadas en centímetros, la fecha y un teléfono.", "es")
    kinds = {p: k for p, (k, _) in _by_phrase(spec).items()}
    assert kinds["medidas aproximadas"] is CriterionKind.FREE_TEXT


def test_a_count_accepts_the_units_of_its_synonym_group(compiler: DeterministicCompiler,
                                                        compiler_rules: CompilerRules) -> None:
    spec = _spec(compiler, "We want to know the destination, the number of riders and a phone number.")
    (_, params), = [v for p, v in _by_phrase(spec).items() if "riders" in p]
    terms = params["unit_terms"]
    assert isinstance(terms, dict)
    group = next(g for g in compiler_rules.unit_synonyms if "riders" in g.terms["en"])
    assert set(group.terms["en"]) <= set(terms["en"]) and set(group.terms["es"]) <= set(terms["es"])



@pytest.mark.parametrize(("intent", "language", "unit"), [
    ("Queremos saber cuántos metros cuadrados tiene la zona a reformar y un teléfono.", "es", "metros cuadrados"),
    ("We want to know how many square metres the flat has and a phone number.", "en", "square metres"),
    ("Nous voulons savoir combien de mètres carrés fait le logement et un téléphone.", "fr", "metres carres"),
])
def test_an_area_unit_keeps_both_words_and_accepts_its_written_forms(compiler: DeterministicCompiler, intent: str,
                                                                     language: str, unit: str) -> None:
    spec = _spec(compiler, intent, language)
    (quantity,) = [o for o in spec.ordered() if o.criterion.kind is CriterionKind.QUANTITY]
    assert str(quantity.criterion.params["unit"]).replace("_", " ") == unit
    terms = quantity.criterion.params["unit_terms"]
    assert isinstance(terms, dict) and "m2" in terms[language]  # 'm²' folds to 'm2'


# -- sibling roles -------------------------------------------------------------------------------------------------

def test_two_places_of_one_kind_get_the_cue_words_of_their_role(compiler: DeterministicCompiler,
                                                                compiler_rules: CompilerRules) -> None:
    spec = _spec(compiler, "We want to know the city in which the journey originates, the city in which the "
                           "journey ends and a phone number.")
    places = [o for o in spec.ordered() if o.criterion.kind is CriterionKind.PLACE]
    roles = {r.role: r for r in compiler_rules.sibling_roles}
    first, second = (set(o.criterion.params["cues"]["en"]) for o in places)
    assert set(roles["origin"].cues["en"]) <= first and not set(roles["destination"].cues["en"]) & first
    assert set(roles["destination"].cues["en"]) <= second and not set(roles["origin"].cues["en"]) & second


def test_a_lone_place_keeps_the_kinds_generic_cues(compiler: DeterministicCompiler,
                                                   compiler_rules: CompilerRules) -> None:
    spec = _spec(compiler, "We want to know the city they live in and a phone number.")
    place = next(o for o in spec.ordered() if o.criterion.kind is CriterionKind.PLACE)
    location = compiler_rules.kind("location")
    assert location is not None and "neighbourhood" in location.keywords["en"]
    assert "neighbourhood" in place.criterion.params["cues"]["en"]


# -- choices -------------------------------------------------------------------------------------------------------

def _options(spec: GoalSpec, phrase: str) -> set[str]:
    objective = next(o for o in spec.ordered() if phrase in o.criterion.params.get("intent_phrases", []))
    vocabulary = spec.vocabularies[str(objective.criterion.params["vocabulary"])]
    return {t for option in vocabulary["options"].values() for terms in option.values() for t in terms}


@pytest.mark.parametrize(("intent", "language", "phrase", "options"), [
    ("We want to know whether it's a sailing yacht or a motor boat, and an email.", "en",
     "whether it's a sailing yacht or a motor boat", {"sailing yacht", "motor boat"}),
    ("Queremos saber si es de cloro o de sal y un teléfono.", "es", "si es de cloro o de sal", {"cloro", "sal"}),
    ("Nous voulons savoir s'ils préfèrent des cours individuels ou collectifs, et un e-mail.", "fr",
     "s'ils préfèrent des cours individuels ou collectifs", {"cours individuels", "collectifs"}),
    ("We want to know whether they study full-time or part-time and an email.", "en",
     "whether they study full-time or part-time", {"full-time", "part-time"}),
])
def test_a_choice_is_an_enumeration_of_its_alternatives(compiler: DeterministicCompiler, intent: str, language: str,
                                                        phrase: str, options: set[str]) -> None:
    spec = _spec(compiler, intent, language)
    assert _by_phrase(spec)[phrase][0] is CriterionKind.ENUMERATION
    assert options <= _options(spec, phrase)


def test_a_heading_sentence_before_the_collect_marker_is_context(compiler: DeterministicCompiler) -> None:
    spec = _spec(compiler, "Remorquage et dépannage dans la région de Lyon. Demander où se trouve le véhicule, "
                           "la marque et un numéro de portable.", "fr")
    phrases = set(_by_phrase(spec))
    assert not any("dépannage" in p or "Remorquage" in p for p in phrases)
    assert _by_phrase(spec)["où se trouve le véhicule"][0] is CriterionKind.PLACE


# -- clause structure ------------------------------------------------------------------------------------------

def _phrases(compiler: DeterministicCompiler, intent: str, language: str = "en") -> dict[str, CriterionKind]:
    return {p: kind for p, (kind, _) in _by_phrase(_spec(compiler, intent, language)).items()}


def test_an_infinitive_ending_in_a_preposition_describes_its_noun(compiler: DeterministicCompiler) -> None:
    phrases = _phrases(compiler, "We want to know the town to collect the parcel from, the town to deliver it to, "
                                 "the day to plan the delivery for and an email address to send the receipt to.")
    assert phrases.get("town to collect the parcel from") is CriterionKind.PLACE
    assert phrases.get("town to deliver it to") is CriterionKind.PLACE
    assert phrases.get("day to plan the delivery for") is CriterionKind.DATETIME
    # what an address is for stays its purpose
    assert phrases.get("email address") is CriterionKind.CONTACT


def test_a_continuation_word_is_read_in_the_intents_language(compiler: DeterministicCompiler) -> None:
    # Spanish 'para' + 'calendar' reads like an infinitive; in an English intent the item is information.
    phrases = _phrases(compiler, "We want to know the number of seats to reserve, calendar date for the fitting "
                                 "and the budget.")
    assert phrases.get("calendar date for the fitting") is CriterionKind.DATETIME


def test_a_quotation_is_one_piece_of_context(compiler: DeterministicCompiler) -> None:
    spec = _spec(compiler, 'Our service is described as "Browse, learn about, and rent bikes". We want to know '
                           'the bike model and the budget.')
    claimed = " ".join(str(p) for o in spec.ordered() for p in o.criterion.params.get("intent_phrases", []))
    assert "rent" not in claimed and "learn" not in claimed
    assert len(spec.objectives) == 2


def test_a_colon_in_a_running_list_gives_its_last_items_options(compiler: DeterministicCompiler) -> None:
    phrases = _phrases(compiler, "We want to know the model of the bike, the colour of the frame and the wheel "
                                 "size: small, medium or large.")
    assert any("model of the bike" in p for p in phrases) and any("colour of the frame" in p for p in phrases)


def test_a_clause_opening_with_and_runs_the_list_on_after_a_question(compiler: DeterministicCompiler) -> None:
    phrases = _phrases(compiler, "We want to know the title of the book, who wrote the book? and the genre of "
                                 "the book.")
    assert any("genre" in p for p in phrases)


# -- corpus terms ------------------------------------------------------------------------------------------------

def test_a_labelled_list_in_the_documents_gives_the_free_text_its_terms(compiler: DeterministicCompiler,
                                                                       tmp_path: Path) -> None:
    (tmp_path / "school.md").write_text("# Our school\n\n- Instruments: cello, oboe, harp and bassoon.\n"
                                        "- Rooms: 4 studios, 2 halls, 1 library.\n", encoding="utf-8")
    outcome = compiler.compile(CompileInput(intent="We want to know which instrument the student plays and the "
                                                   "reason for the lesson.", language="en", corpus_dir=tmp_path,
                                            **LOCALE))
    spec = outcome.spec
    assert any("documents list under 'instruments'" in note for note in outcome.notes)  # the review says so
    by_phrase = _by_phrase(spec)
    (_, instrument), = [v for p, v in by_phrase.items() if "instrument" in p]
    (_, reason), = [v for p, v in by_phrase.items() if "reason" in p]
    cues = instrument["cues"]
    assert isinstance(cues, dict) and {"cello", "oboe", "harp", "bassoon"} <= set(cues["en"])
    assert isinstance(reason["cues"], dict) and "harp" not in reason["cues"]["en"]  # only the labelled noun's
