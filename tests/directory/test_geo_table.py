"""The packaged ZIP table is read once into ``UsPlaces`` and not kept a second time by the ``zipcodes`` module
(its ``list_all`` cache held 42,789 dicts, ~100 MB, in every serving process)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import zipcodes

from engine.directory.geo import us_places

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
    code = ("import zipcodes\nfrom engine.directory.geo import us_places\nplaces = us_places()\n"
            "print(len(places.zips), getattr(zipcodes, '_zips_cache', None) is None)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    count, no_cache = out.stdout.split()
    assert int(count) > 40_000 and no_cache == "True"
