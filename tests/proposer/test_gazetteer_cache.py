"""The gazetteer's folded name sets are kept on disk (parsing the packaged JSON costs about a second per serving
process); the file can only save time: a damaged one is rebuilt, an unwritable folder only costs time."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from llm_adapters.offline import gazetteer


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("GRACE_CACHE_DIR", str(tmp_path))
    gazetteer._names.cache_clear()
    gazetteer._big_cities.cache_clear()
    yield tmp_path / "gazetteer"
    gazetteer._names.cache_clear()  # later tests build from the real cache again
    gazetteer._big_cities.cache_clear()


def test_the_file_holds_exactly_the_built_names_and_is_what_the_process_uses(cache_dir: Path) -> None:
    built = gazetteer._build_big_cities()
    assert gazetteer._big_cities() == built and "chicago" in built
    [written] = [p for p in cache_dir.iterdir() if p.name.startswith("big")]
    gazetteer._big_cities.cache_clear()
    written.write_text("grace-gazetteer/1\nnowhere town", encoding="utf-8")  # a valid file is used as it is
    assert gazetteer._big_cities() == frozenset({"nowhere town"})


NAMES = frozenset({"nowhere town", "", "sao paulo"})


@pytest.mark.parametrize("damage", ["", "not the header\nchicago", b"\xff\xfe"])
def test_a_damaged_file_is_rebuilt(cache_dir: Path, damage: str | bytes) -> None:
    # the cache logic with a small builder: folding the 150,000 real names costs seconds per case
    assert gazetteer._cached("test", lambda: NAMES) == NAMES  # writes the file
    [written] = [p for p in cache_dir.iterdir() if p.name.startswith("test")]
    assert gazetteer._cached("test", lambda: frozenset()) == NAMES  # read back, not rebuilt
    if isinstance(damage, bytes):
        written.write_bytes(damage)
    else:
        written.write_text(damage, encoding="utf-8")
    assert gazetteer._cached("test", lambda: NAMES) == NAMES
    assert written.read_text(encoding="utf-8").startswith("grace-gazetteer/1\n")


def test_an_unwritable_cache_folder_only_costs_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("GRACE_CACHE_DIR", str(blocker))
    assert gazetteer._cached("test", lambda: NAMES) == NAMES
    assert blocker.read_text(encoding="utf-8") == "x"
