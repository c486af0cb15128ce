"""On-disk copy of the derived US places table, so a serving process starts in a fraction of the build time.

Building ``UsPlaces`` from the packaged ``zipcodes`` table (42,789 rows, 19,000 town keys) costs 1.5-3 s per
process; every worker of ``grace serve --workers N`` and every restart paid it again. The derived table is written
once as JSON (no pickle: the file is data, never code) under ``$GRACE_CACHE_DIR/directory`` or
``<system temp>/grace-cache/directory``, named by the ``zipcodes`` version and this file's format version, so an
upgrade of either makes a new file. A missing, unreadable or malformed file is ignored and rebuilt, a failed write
only costs speed: the cache can never change a place or a point.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

import structlog
import zipcodes

from engine.cache_root import cache_root
from engine.directory.geo import UsPlaces, ZipRow, build_us_places

log = structlog.get_logger("grace.directory")

FORMAT = 1  # bump when the layout below or how UsPlaces is derived changes
_LOCK = threading.Lock()  # lru_cache does not stop two threads building at once


def cache_path(source_version: str) -> Path:
    return cache_root() / "directory" / f"us-places-zipcodes-{source_version}-v{FORMAT}.json"


def dump_places(places: UsPlaces) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "zips": [[z.zip, z.city, z.state, z.county, z.point[0], z.point[1], z.standard, list(z.alternates), z.timezone]
                 for z in places.zips.values()],
        "towns": [[list(key), state, point[0], point[1]] for (key, state), point in places.towns.items()],
        "town_states": [[list(key), sorted(states)] for key, states in places.town_states.items()],
    }


def load_places(data: Any) -> UsPlaces:
    """The table back from ``dump_places``; ValueError/TypeError/KeyError/IndexError on anything else."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError("not a places table of this format")
    places = UsPlaces()
    for zip_code, city, state, county, lat, lon, standard, alternates, timezone in data["zips"]:
        places.zips[str(zip_code)] = ZipRow(str(zip_code), str(city), str(state), str(county),
                                            (float(lat), float(lon)), bool(standard),
                                            tuple(str(a) for a in alternates), str(timezone))
    for key, state, lat, lon in data["towns"]:
        places.towns[(tuple(str(t) for t in key), str(state))] = (float(lat), float(lon))
    for key, states in data["town_states"]:
        places.town_states[tuple(str(t) for t in key)] = {str(s) for s in states}
    if not places.zips or not places.towns:
        raise ValueError("empty places table")
    return places


def read_cached(path: Path) -> UsPlaces | None:
    if not path.exists():
        return None
    try:
        places = load_places(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, ValueError, TypeError, KeyError, IndexError) as exc:
        log.warning("directory.geo_cache.unreadable", path=str(path), error=type(exc).__name__)
        return None
    log.debug("directory.geo_cache.hit", path=str(path))
    return places


def write_cached(path: Path, places: UsPlaces) -> None:
    """Atomically (temp file + rename): a process starting beside this one never reads half a table."""
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".json.tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(dump_places(places), handle, ensure_ascii=False, separators=(",", ":"))
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:  # a read-only or full disk only costs start-up time
        log.warning("directory.geo_cache.write_failed", path=str(path), error=str(exc))
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)


@lru_cache(maxsize=1)
def us_places() -> UsPlaces:
    """The process's table: from the cache file when it holds this zipcodes version, else built and stored."""
    with _LOCK:
        path = cache_path(str(zipcodes.__version__))
        places = read_cached(path)
        if places is None:
            places = build_us_places()
            write_cached(path, places)
        return places
