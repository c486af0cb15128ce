"""The one folder under which derived, re-creatable data is cached: ``$GRACE_CACHE_DIR`` or
``<system temp>/grace-cache`` (never in the repository). Each cache keeps its own subfolder and keys its files by
what they derive from, so a cache can only save time."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def cache_root() -> Path:
    root = os.environ.get("GRACE_CACHE_DIR")
    return Path(root) if root else Path(tempfile.gettempdir()) / "grace-cache"
