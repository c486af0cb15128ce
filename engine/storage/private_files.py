"""Files that hold personal data are the owner's alone: databases 0600 in a folder made 0700.

SQLite creates its ``-wal`` and ``-shm`` files with the mode of the database file, so creating the database file
first with 0600 (before SQLite opens it) keeps every copy of the data private whatever the process umask is."""

from __future__ import annotations

import os
from pathlib import Path

FILE_MODE = 0o600
DIR_MODE = 0o700
_SIDE_FILES = ("-wal", "-shm", "-journal")


def private_dir(path: Path) -> None:
    """Create ``path`` (and missing parents) 0700; a folder that already exists keeps its mode (it may be the
    working directory), except a folder this function made before."""
    if not path.exists():
        path.mkdir(parents=True, mode=DIR_MODE, exist_ok=True)
        os.chmod(path, DIR_MODE)  # mkdir's mode is filtered by the umask


def private_file(path: Path) -> None:
    """Make the database file ``path`` (empty if new) and its SQLite side files mode 0600."""
    private_dir(path.parent)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, FILE_MODE)
    os.close(fd)
    for candidate in [path, *(path.with_name(path.name + suffix) for suffix in _SIDE_FILES)]:
        if candidate.exists() and (candidate.stat().st_mode & 0o777) != FILE_MODE:
            os.chmod(candidate, FILE_MODE)
