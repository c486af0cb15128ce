"""Read a program's big files once, sequentially, just before a test starts the program.

The machines these tests run on reclaim file pages that nobody touched for about a minute (the host runs DAMON
with a ``pageout`` scheme for file-backed memory: ``/sys/kernel/mm/damon/admin``). A browser or model server
started in the middle of a run therefore finds its executable evicted and faults it back in page by page, in
random order: a cold Chromium launch took 18.1 s against 1.7 s warm, and its faults held the disk so that every
other process of the run waited on I/O too (90% iowait for 20 s in a fresh-clone run). Reading the same files in
order first took 1.5 s cold; on a warm cache it costs a copy from memory.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

BIG_FILE_BYTES = 1 << 20  # smaller files are one or two reads either way
_CHUNK = 1 << 20


def _files(root: Path) -> Iterable[Path]:
    if root.is_file():
        yield root
    elif root.is_dir():
        yield from sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink())


def prefetch(*roots: Path, min_bytes: int = BIG_FILE_BYTES) -> int:
    """Read every regular file of at least ``min_bytes`` under ``roots`` (files or folders, symbolic links not
    followed, missing paths skipped) from start to end; returns the number of bytes read."""
    total = 0
    buffer = bytearray(_CHUNK)
    for root in roots:
        for path in _files(root):
            try:
                if path.stat().st_size < min_bytes:
                    continue
                with path.open("rb", buffering=0) as stream:
                    os.posix_fadvise(stream.fileno(), 0, 0, os.POSIX_FADV_SEQUENTIAL)
                    while read := stream.readinto(buffer):
                        total += read
            except OSError:  # unreadable or vanished: the program reports that itself when it starts
                continue
    return total
