"""`grace serve --demo` built in-process and served on loopback, for the browser tests that drive the demo."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from engine.service.runner import Built, build_from_args
from tests.browser.live import LiveServer


@contextmanager
def served_demo(data_dir: Path) -> Iterator[tuple[Built, str]]:
    args = argparse.Namespace(demo=True, data_dir=data_dir, database_url=None, goals=[], corpus=[], rules=None,
                              cors_origin=[])
    built = build_from_args(args)
    try:
        with LiveServer(built.app) as server:
            yield built, server.url
    finally:
        built.close()
