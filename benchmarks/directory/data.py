"""Where the shared evaluation directories live: ``$GRACE_SHARED_DIRECTORIES``, else ``shared/data/directories``
next to the project (or next to its parent, for a worktree one level deeper). They are never copied in."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]


def shared_directories() -> Path | None:
    configured = os.environ.get("GRACE_SHARED_DIRECTORIES")
    candidates = [Path(configured)] if configured else []
    candidates += [parent / "shared" / "data" / "directories" for parent in (PROJECT.parent, PROJECT.parents[1])]
    return next((c for c in candidates if c.is_dir()), None)
