"""The test run's own lists (tests/conftest.py) name modules that exist: a renamed or deleted module would silently
drop out of the process tier or of the heaviest-first order."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import HEAVIEST_FIRST, PROCESS_TIER

ROOT = Path(__file__).resolve().parents[2]


def test_every_listed_module_exists_once() -> None:
    for name in (*HEAVIEST_FIRST, *PROCESS_TIER):
        assert (ROOT / name).is_file(), f"{name} is listed in tests/conftest.py but does not exist"
    assert len(set(HEAVIEST_FIRST)) == len(HEAVIEST_FIRST)
