"""The packaged ZIP table is read once into ``UsPlaces`` and not kept a second time by the ``zipcodes`` module
(its ``list_all`` cache held 42,789 dicts, ~100 MB, in every serving process)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import zipcodes

from engine.directory.geo import UsPlaces, build_us_places
from engine.directory.geo_cache import cache_path, load_places, us_places, write_cached

ROOT = Path(__file__).resolve().parents[2]


def test_unfiltered_filter_by_is_the_whole_table_in_list_all_order() -> None:
    # What engine.directory.geo relies on: a package upgrade that changed it would change every place's point.
    rows = zipcodes.filter_by()  # type: ignore[no-untyped-call]
    assert rows == zipcodes.list_all()  # type: ignore[no-untyped-call]
    assert len(rows) > 40_000


def test_places_hold_every_row_with_coordinates() -> None:
    rows = zipcodes.list_all()  # type: ignore[no-untyped-call]
    with_points = {r["zip_code"] for r in rows if r["lat"] not in (None, "") and r["long"] not in (None, "")}
    places = us_places()
    assert set(places.zips) == with_points
    row = next(r for r in rows if r["zip_code"] in places.zips)
    z = places.zips[row["zip_code"]]
    assert (z.city, z.state, z.point) == (row["city"], row["state"], (float(row["lat"]), float(row["long"])))


def test_building_the_places_leaves_no_module_cache_behind() -> None:
    code = ("import zipcodes\nfrom engine.directory.geo import build_us_places\nplaces = build_us_places()\n"
            "print(len(places.zips), getattr(zipcodes, '_zips_cache', None) is None)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    count, no_cache = out.stdout.split()
    assert int(count) > 40_000 and no_cache == "True"


def test_the_cached_table_is_the_built_table_and_a_damaged_file_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRACE_CACHE_DIR", str(tmp_path))
    built = build_us_places()
    path = cache_path(str(zipcodes.__version__))
    assert path.is_relative_to(tmp_path) and not path.exists()
    us_places.cache_clear()
    try:
        assert us_places() == built and path.exists()  # built, then written
        us_places.cache_clear()
        assert us_places() == built  # read back: the same rows, towns, points and alternates
        assert load_places(json.loads(path.read_text(encoding="utf-8"))) == built

        # a cache file is what the process uses: a valid file with other content is read as it is ...
        one = UsPlaces(zips={"66044": built.zips["66044"]}, towns=dict(list(built.towns.items())[:1]),
                       town_states=dict(list(built.town_states.items())[:1]))
        write_cached(path, one)
        us_places.cache_clear()
        assert us_places() == one
        # ... and a damaged one is ignored and replaced by the built table
        for damage in ('{"format": 1, "zips": [["66044"]]}', "not json", '{"format": 99}', ""):
            path.write_text(damage, encoding="utf-8")
            us_places.cache_clear()
            assert us_places() == built
            assert load_places(json.loads(path.read_text(encoding="utf-8"))) == built
    finally:
        us_places.cache_clear()


def test_an_unwritable_cache_folder_only_costs_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("GRACE_CACHE_DIR", str(blocker))
    us_places.cache_clear()
    try:
        assert len(us_places().zips) > 40_000
    finally:
        us_places.cache_clear()
