"""Diagnostic probe for the load benchmark: times every garbage collection and every turn inside each process.

Put this folder first on PYTHONPATH and set GRACE_GC_PROBE_DIR; every Python process started with that
environment (the bench client, ``grace serve`` and its workers) imports this file at start-up (Python's
``sitecustomize`` hook) and writes ``gc-<pid>.json`` when it exits: each collection (wall time, generation,
milliseconds, objects collected), the time the worker printed its ready banner, and the wall time of each
``TurnSubmitter.submit`` (a turn inside the server, HTTP parsing and queueing left out). Summarise with
``python -m benchmarks.gc_pauses DIR``. GRACE_GC_PROBE_SKIP_DEMO=name serves the demos without that one
(e.g. ``pantry-helpline``: the run without the Kansas directory). Never set in production or in tests.

    GRACE_GC_PROBE_DIR=/tmp/gc PYTHONPATH=benchmarks/gc_probe grace bench load --configs postgres:2
"""

from __future__ import annotations

import atexit
import gc
import json
import os
import sys
import time
from typing import Any

_DIR = os.environ.get("GRACE_GC_PROBE_DIR")


def _install(folder: str) -> None:
    events: list[tuple[float, int, float, int]] = []
    turns: list[tuple[float, float]] = []
    marks: dict[str, float] = {}
    started = [0.0]

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            events.append((time.time(), int(info["generation"]), (time.perf_counter() - started[0]) * 1000,
                           int(info.get("collected", 0))))

    gc.callbacks.append(on_gc)
    worker = sys.argv[:1] == ["-c"]  # ``grace serve --workers N`` starts each worker with ``python -c``
    skip = os.environ.get("GRACE_GC_PROBE_SKIP_DEMO")
    if skip:
        import engine.demos as demos

        every = demos.demo_names
        demos.demo_names = lambda: [n for n in every() if n != skip]
    if worker or "serve" in sys.argv:
        import engine.service.serving as serving_module
        import engine.service.turns as turns_module

        banner = serving_module.worker_banner

        def ready_banner(index: int, workers: int) -> str:
            marks["ready"] = time.time()
            return banner(index, workers)

        serving_module.worker_banner = ready_banner  # run_server reads the module's global at each call
        submit = turns_module.TurnSubmitter.submit

        def timed_submit(self: Any, *args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return submit(self, *args, **kwargs)
            finally:
                turns.append((time.time(), (time.perf_counter() - t0) * 1000))

        turns_module.TurnSubmitter.submit = timed_submit  # type: ignore[method-assign]

    def dump() -> None:
        with open(os.path.join(folder, f"gc-{os.getpid()}.json"), "w", encoding="utf-8") as handle:
            json.dump({"argv": sys.argv, "marks": marks, "events": events, "turns": turns,
                       "frozen": gc.get_freeze_count(), "threshold": list(gc.get_threshold())}, handle)

    atexit.register(dump)


if _DIR:
    _install(_DIR)
