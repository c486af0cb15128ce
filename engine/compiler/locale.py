"""The company's locale (currency, phone region, time zone): from flags, else from what the intent (or corpus) says.

Nothing is defaulted: a spec whose objectives need a setting that neither the flags nor the text determine is
refused with ``compile.locale_missing`` naming the flag to give. Country names (English and Spanish) and
currencies come from babel's CLDR data, city names from the IANA zone ids and CLDR exemplar cities; only the
word lists that CLDR lacks (currency words, ambiguous symbols, a country's main zone) are in rules/compiler.json.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

import babel
import babel.core
import babel.numbers
import phonenumbers

from engine.compiler.compiler_rules import LocaleRules
from engine.compiler.errors import CompileError
from engine.compiler.places import Candidate, NamedPlace, named_places
from engine.compiler.textmap import fold_map
from engine.kernel.goal_models import Locale
from engine.text import fold

_LANGUAGES = ("en", "es", "fr")


@dataclass
class Hints:
    countries: set[str] = field(default_factory=set)
    zones: set[str] = field(default_factory=set)
    currencies: set[str] = field(default_factory=set)
    ambiguous_currency: bool = False

    def empty(self) -> bool:
        return not (self.countries or self.zones or self.currencies)


@lru_cache(maxsize=1)
def _countries() -> dict[str, str]:
    """Folded country name (English and Spanish CLDR names) -> ISO 3166 code."""
    names: dict[str, str] = {}
    for language in _LANGUAGES:
        for code, name in babel.Locale(language).territories.items():
            if len(code) == 2 and code.isalpha() and code not in ("EU", "EZ", "UN", "ZZ", "QO"):
                names.setdefault(fold(name), code)
    return names


@lru_cache(maxsize=1)
def _cities() -> dict[str, str]:
    """Folded city name -> IANA zone, from zone ids ("America/Los_Angeles") and CLDR exemplar cities."""
    territories = babel.core.get_global("zone_territories")
    cities: dict[str, str] = {}
    for zone in sorted(available_timezones()):
        if zone not in territories or "/" not in zone:
            continue
        cities.setdefault(fold(zone.rsplit("/", 1)[1].replace("_", " ")), zone)
        for language in _LANGUAGES:
            exemplar = babel.Locale(language).time_zones.get(zone, {}).get("city")
            if isinstance(exemplar, str):
                cities.setdefault(fold(exemplar), zone)
    return cities


def _capitalised_hits(text: str, names: dict[str, str], ignored: set[str]) -> set[str]:
    """Values of ``names`` whose key occurs in ``text`` as a capitalised word sequence (not 'turkey')."""
    mapped = fold_map(text)
    words = list(re.finditer(r"[\w'’.-]*\w", mapped.folded))
    hits: set[str] = set()
    for i, first in enumerate(words):
        if not mapped.text[mapped.origin[first.start()]].isupper():
            continue
        for n in range(1, 5):  # names of up to four words ("Santa Cruz de Tenerife")
            if i + n > len(words):
                break
            name = " ".join(w.group(0) for w in words[i:i + n])
            value = names.get(name)
            if value is not None and name not in ignored and len(name) >= 3:
                hits.add(value)
    return hits


def _currency_codes() -> set[str]:
    return set(babel.core.get_global("all_currencies"))


@lru_cache(maxsize=1)
def _tender_codes() -> frozenset[str]:
    """ISO 4217 codes some territory uses as legal tender today (CLDR): a withdrawn code ('ADP', the Andorran
    peseta) in a document is a company's name, never its currency."""
    territories = babel.core.get_global("territory_currencies")
    return frozenset(code for territory in territories
                     for code in babel.numbers.get_territory_currencies(territory, tender=True))


@lru_cache(maxsize=1)
def _currency_names() -> dict[str, str]:
    """Folded CLDR display names of current tenders, singular and plural, in English, Spanish and French
    ("Fijian dollars", "dólares fiyianos", "dollars fidjiens" -> FJD): each names one currency."""
    names: dict[str, str] = {}
    for language in _LANGUAGES:
        locale = babel.Locale(language)
        plurals = locale._data["currency_names_plural"]
        for code in sorted(_tender_codes()):
            for name in {locale.currencies.get(code), *plurals.get(code, {}).values()}:
                if name:
                    names.setdefault(fold(name), code)
    return names


@lru_cache(maxsize=1)
def _issuers() -> dict[str, str]:
    """Currency -> the one territory using it as legal tender today, for currencies only one territory uses
    (a currency shared by a monetary union, the euro or the CFA franc, names no country)."""
    users: dict[str, set[str]] = {}
    for territory in babel.core.get_global("territory_currencies"):
        for code in babel.numbers.get_territory_currencies(territory, tender=True):
            users.setdefault(code, set()).add(territory)
    return {code: next(iter(t)) for code, t in users.items() if len(t) == 1}


def hints(texts: Iterable[str], rules: LocaleRules) -> Hints:
    found = Hints()
    ignored = {fold(n) for n in rules.ignored_place_names}
    codes = _tender_codes()
    for text in texts:
        found.countries |= _capitalised_hits(text, _countries(), ignored)
        found.zones |= _capitalised_hits(text, _cities(), ignored)
        found.currencies |= {c for c in re.findall(r"\b[A-Z]{3}\b", text) if c in codes and c != "USA"}
        folded = fold(text)
        for term, code in [*rules.currency_terms.items(), *_currency_names().items()]:
            if re.search(_term_pattern(fold(term)), folded):
                found.currencies.add(code)
        found.ambiguous_currency |= any(re.search(_term_pattern(fold(t)), folded)
                                        for t in rules.ambiguous_currency_terms)
    return found


def _term_pattern(term: str) -> str:
    if term[:1].isalnum():
        return rf"(?<!\w){re.escape(term)}(?!\w)"
    return re.escape(term)


def _zone_territory(zone: str) -> str | None:
    territory: str | None = babel.core.get_global("zone_territories").get(zone)
    return territory


def _country_zone(country: str, rules: LocaleRules) -> str | None:
    zones = babel.core.get_global("territory_zones").get(country, [])
    if len(zones) == 1:
        return str(zones[0])
    return rules.main_time_zones.get(country)


def main_currency(country: str, rules: LocaleRules) -> str | None:
    """The country's own currency: the rule data's main currency where CLDR lists another country's tender first
    (a common monetary area), else CLDR's first current legal tender."""
    if country in rules.main_currencies:
        return rules.main_currencies[country]
    currencies = babel.numbers.get_territory_currencies(country, tender=True)
    return currencies[0] if currencies else None


@dataclass(frozen=True)
class Needs:
    currency: list[str]  # objectives (manager's words) that need each setting
    phone_region: list[str]
    time_zone: list[str]


def check_flags(currency: str | None, phone_region: str | None, time_zone: str | None) -> None:
    if currency is not None and currency not in _currency_codes():
        raise CompileError(f"--currency {currency!r} is not an ISO 4217 code (e.g. EUR, USD)",
                           code="compile.locale_invalid")
    if phone_region is not None and phone_region not in phonenumbers.SUPPORTED_REGIONS:
        raise CompileError(f"--phone-region {phone_region!r} is not a phone region (e.g. ES, US)",
                           code="compile.locale_invalid")
    if time_zone is not None:
        try:
            ZoneInfo(time_zone)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise CompileError(f"--time-zone {time_zone!r} is not an IANA time zone (e.g. Europe/Madrid)",
                               code="compile.locale_invalid") from exc


def _derive(found: Hints, rules: LocaleRules) -> tuple[str | None, str | None, str | None]:
    countries = set(found.countries)
    zone = next(iter(found.zones)) if len(found.zones) == 1 else None
    territory = _zone_territory(zone) if zone is not None else None
    if territory is not None and not countries:
        countries.add(territory)
    if not countries and len(found.currencies) == 1:
        # a currency only one country uses ("in Fijian dollars") names that country
        issuer = _issuers().get(next(iter(found.currencies)))
        countries |= {issuer} if issuer is not None else set()
    country = next(iter(countries)) if len(countries) == 1 else None
    if zone is not None and country is not None and _zone_territory(zone) != country:
        zone = None  # a city of another country: trust neither for the zone
    currency = next(iter(found.currencies)) if len(found.currencies) == 1 else None
    if currency is None and country is not None and not found.currencies:
        currency = main_currency(country, rules)
    region = country if country in phonenumbers.SUPPORTED_REGIONS else None
    return currency, region, zone or (_country_zone(country, rules) if country else None)


def _official(country: str, language: str) -> bool:
    spoken = babel.core.get_global("territory_languages").get(country, {})
    # a regional official language counts (Spanish in the United States: "San José" may be California's)
    return spoken.get(language, {}).get("official_status") in ("official", "de_facto_official", "official_regional")


def _speaking(place: NamedPlace, language: str | None, rules: LocaleRules) -> NamedPlace:
    """The candidates in countries whose official language is the intent's, when there are any: used only when
    the population alone does not decide (a Spanish intent naming "Zaragoza" drops a Philippine town of that
    name). The heaviest candidate stays when it is a city of ``notable_place_population`` or more: an English
    intent naming "Athens" keeps Greece beside Georgia's city instead of silently choosing the smaller one."""
    if language is None or not place.candidates:
        return place
    weight = rules.alternate_name_weight
    heaviest = max(place.candidates, key=lambda c: c.weight(weight))
    kept = tuple(c for c in place.candidates if _official(c.country, language)
                 or (c is heaviest and c.weight(weight) >= rules.notable_place_population))
    return NamedPlace(place.name, kept, place.qualifier) if kept else place


def _from_places(intent: str, found: Hints, rules: LocaleRules, not_places: Iterable[str],
                 language: str | None) -> tuple[tuple[str | None, str | None, str | None] | None,
                                                     list[NamedPlace]]:
    """(currency, region, zone) from the towns the intent names, and the names left ambiguous. A country the
    intent also names picks among an ambiguous name's candidates ("Valencia, Spain")."""
    decided: list[Candidate] = []
    names: list[str] = []  # the name each decided candidate was read from
    order: list[int] = []  # where each decided name stands among the names the intent gives
    ambiguous: list[NamedPlace] = []
    weight = rules.alternate_name_weight
    places = named_places(intent, rules, not_places, _countries())
    for index, place in enumerate(places):
        notable = rules.notable_place_population
        choice = place.decided(rules.place_dominance, weight, notable) \
            or _speaking(place, language, rules).decided(rules.place_dominance, weight, notable)
        if choice is None:
            named = [c for c in place.candidates if c.country in found.countries]
            choice = named[0] if len(named) == 1 else None
        if choice is None:
            ambiguous.append(place)
        else:
            decided.append(choice)
            names.append(place.name)
            order.append(index)
    # another town the intent names settles an ambiguous one when exactly one of its candidates shares its country
    # ("Sainte-Anne and Pointe-à-Pitre")
    for place in list(ambiguous):
        shared = [c for c in place.candidates if c.country in {d.country for d in decided}]
        if len(shared) == 1:
            ambiguous.remove(place)
            decided.append(shared[0])
            names.append(place.name)
            order.append(places.index(place))
    if not decided:
        return None, ambiguous
    # Towns read in several countries: the country most of the names the intent gives can be in ("à Saint-Pierre
    # et à Miquelon"), then the company's own, named first ("bike hire in Colonia del Sacramento … the ferry from
    # Buenos Aires"); a town read under its own name outranks one read only under an alternate (an exonym).
    def rank(i: int) -> tuple[int, bool, int]:
        country = decided[i].country
        return -sum(any(c.country == country for c in p.candidates) for p in places), decided[i].alternate, order[i]

    first = min(range(len(decided)), key=rank)
    if ambiguous and places.index(ambiguous[0]) < order[first]:
        return None, ambiguous  # the first name the intent gives is the ambiguous one: ask
    country = decided[first].country
    # the first name the intent gives in that country is the town (its zone): "Saint-Pierre" before "Miquelon"
    town = next((p for p in places[:order[first]] if p.qualifier is None
                 and any(c.country == country for c in p.candidates)), None)
    city, name = decided[first], names[first]
    if town is not None:
        city, name = next(c for c in town.candidates if c.country == country), town.name
    # the IANA zone named after the town itself is more precise than the gazetteer's ("Ceuta": Africa/Ceuta)
    own_zone = _cities().get(fold(name))
    if own_zone is not None and _zone_territory(own_zone) == city.country:
        city = Candidate(city.country, own_zone, city.population, city.alternate)
    # the town's country wins over a currency named in passing ("the FOB price in US dollars"), unless it is a
    # tender of that country too ("en dólares" in Quito)
    said = next(iter(found.currencies)) if len(found.currencies) == 1 else None
    tenders = babel.numbers.get_territory_currencies(city.country, tender=True)
    currency = said if said is not None and said in tenders else main_currency(city.country, rules)
    region = city.country if city.country in phonenumbers.SUPPORTED_REGIONS else None
    return (currency, region, city.time_zone or _country_zone(city.country, rules)), []


def resolve_locale(*, currency: str | None, phone_region: str | None, time_zone: str | None,
                   intent: str, corpus: list[str], needs: Needs, rules: LocaleRules,
                   not_places: Iterable[str] = (), language: str | None = None) -> Locale:
    """Flags first, then the intent (a town it names before anything else), then the corpus; refuse when a
    needed setting stays unknown, naming the candidates of an ambiguous town."""
    check_flags(currency, phone_region, time_zone)
    derived: list[tuple[str | None, str | None, str | None]] = []
    intent_hints = hints([intent], rules)
    from_places, ambiguous = _from_places(intent, intent_hints, rules, not_places, language)
    if ambiguous:
        # a zone read from a city name ("La Paz" -> America/La_Paz) is the same guess the gazetteer refused
        intent_hints.zones.clear()
    if from_places is not None:
        derived.append(from_places)
    elif not intent_hints.empty():
        derived.append(_derive(intent_hints, rules))
    if corpus:
        found = hints(corpus, rules)
        if not found.empty():
            derived.append(_derive(found, rules))
    for d_currency, d_region, d_zone in derived:
        currency = currency or d_currency
        phone_region = phone_region or d_region
        time_zone = time_zone or d_zone
    if currency is None and phone_region is not None and not any(d[0] for d in derived):
        currency = main_currency(phone_region, rules) if needs.currency else None
    if time_zone is None and phone_region is not None and needs.time_zone:
        time_zone = _country_zone(phone_region, rules)
    missing = [(setting, objectives) for setting, objectives, value in (
        ("currency", needs.currency, currency), ("phone_region", needs.phone_region, phone_region),
        ("time_zone", needs.time_zone, time_zone)) if objectives and value is None]
    if missing:
        parts = [f"{rules.flags[s]} (needed by {', '.join(repr(o) for o in objs[:3])})" for s, objs in missing]
        if ambiguous:
            seen = "; ".join(f"'{p.name}' could be in {p.describe()}" for p in ambiguous)
            raise CompileError(f"the intent names a place found in several countries ({seen}); pass "
                               + "; ".join(parts), code="compile.locale_ambiguous")
        raise CompileError("the intent does not say which locale to use; pass " + "; ".join(parts),
                           code="compile.locale_missing")
    return Locale(currency=currency, phone_region=phone_region, time_zone=time_zone)
