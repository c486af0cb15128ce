"""The packaged ZIP table is read once into ``UsPlaces`` and not kept a second time by the ``zipcodes`` module
(its ``list_all`` cache held 42,789 dicts, ~100 MB, in every serving process)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import zipcodes

from engine.directory.geo import UsPlaces, build_us_places
from engine.directory.geo_cache import cache_path, read_cached, us_places, write_cached

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


@pytest.fixture(scope="module")
def built() -> UsPlaces:
    return build_us_places()


def test_the_cache_file_holds_exactly_the_built_table(built: UsPlaces, tmp_path: Path) -> None:
    path = tmp_path / "places.json"
    write_cached(path, built)
    assert read_cached(path) == built  # the same rows, towns, points and alternates


@pytest.mark.parametrize("damage", ['{"format": 1, "zips": [["66044"]]}', "not json", '{"format": 99}', "",
                                    '{"format": 1, "zips": [], "towns": [], "town_states": []}'])
def test_a_damaged_cache_file_is_not_read(damage: str, tmp_path: Path) -> None:
    path = tmp_path / "places.json"
    path.write_text(damage, encoding="utf-8")
    assert read_cached(path) is None


def test_the_process_uses_the_cache_file_and_replaces_a_damaged_one(
    built: UsPlaces, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRACE_CACHE_DIR", str(tmp_path))
    path = cache_path(str(zipcodes.__version__))
    assert path.is_relative_to(tmp_path)
    # a valid file is what the process uses, as it is (here a one-ZIP table) ...
    one = UsPlaces(zips={"66044": built.zips["66044"]}, towns=dict(list(built.towns.items())[:1]),
                   town_states=dict(list(built.town_states.items())[:1]))
    write_cached(path, one)
    us_places.cache_clear()
    try:
        assert us_places() == one
        # ... and a damaged one is rebuilt and written again (by a stand-in builder: building the whole table
        # again costs seconds, and the round trip of the real one is checked above)
        two = UsPlaces(zips={"10001": built.zips["10001"]}, towns=dict(list(built.towns.items())[1:2]),
                       town_states=dict(list(built.town_states.items())[1:2]))
        monkeypatch.setattr("engine.directory.geo_cache.build_us_places", lambda: two)
        path.write_text('{"format": 1, "zips": [["66044"]]}', encoding="utf-8")
        us_places.cache_clear()
        assert us_places() == two
        assert read_cached(path) == two
    finally:
        us_places.cache_clear()


def test_an_unwritable_cache_folder_only_costs_time(built: UsPlaces, tmp_path: Path) -> None:
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("x", encoding="utf-8")
    write_cached(blocker / "directory" / "places.json", built)  # logged, not raised
    assert blocker.read_text(encoding="utf-8") == "x" and list(tmp_path.iterdir()) == [blocker]
