"""The SQLite database, its WAL and shm files are the owner's alone, in a folder made 0700 (issue 30, defect 1).

Seen failing before the fix: the files were created 0644 (readable by every user) under the default umask."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from engine.storage.sqlite import SQLiteStore


def test_database_files_are_0600_in_a_0700_folder(tmp_path: Path, make_state: object) -> None:
    old = os.umask(0o022)  # the usual umask: what made the files world-readable
    try:
        folder = tmp_path / "data"
        store = SQLiteStore(folder / "grace.db", audit_key=b"k" * 32)
        store.create(make_state())  # type: ignore[operator]
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        files = sorted(folder.iterdir())
        assert {p.name for p in files} >= {"grace.db", "grace.db-wal"}
        for path in files:
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path.name
        store.close()
    finally:
        os.umask(old)


def test_an_existing_world_readable_database_is_made_private(tmp_path: Path) -> None:
    path = tmp_path / "grace.db"
    path.touch(mode=0o644)
    os.chmod(path, 0o644)
    SQLiteStore(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
