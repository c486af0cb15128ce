"""Keep the garbage collector's full collections short in a serving process.

A worker loads its models, indexes and directories once and keeps them for its whole life: hundreds of
thousands of container objects (the pantry demo's directory and the packaged ZIP table alone add ~280,000).
CPython's full (generation-2) collection scans every tracked object, so with that heap each one stopped the
whole worker -- the engine thread, the HTTP loop, every in-flight turn -- for 100-750 ms, which was the p99 of
the load benchmark. None of those start-up objects ever becomes garbage, so once the worker is warm we collect
once and ``gc.freeze()`` them: they move to the permanent generation, which no collection scans; objects made
while serving are still collected as before (reference counting frees almost everything; the collector breaks
cycles). Decisions and audit bytes do not depend on when memory is reclaimed.

Not for processes that build and drop many services (tests): a frozen object that later becomes part of a
reference cycle is never reclaimed. Serving processes build once, so it is on by default there
(``freeze_heap_after_warm_up`` in limits.json).

``set_switch_interval``: a turn makes several database round trips and hands its decision to the engine
thread. Each time a request thread wakes up (its reply arrived) while another thread computes a turn, it
waits for the GIL until the interpreter forces a switch: up to 5 ms by CPython's default
(``benchmarks/gil_wait_bench.py``). A shorter interval also slices concurrent turns' computing finer, which
delays each of them; 1 ms showed no end-to-end gain in ``grace bench load``, so ``switch_interval_ms`` in
limits.json keeps CPython's 5 ms and stays a knob to measure on the target host.
"""

from __future__ import annotations

import gc
import sys
import time
from dataclasses import dataclass

import structlog

log = structlog.get_logger("engine.service.heap")


@dataclass(frozen=True)
class HeapSettled:
    frozen: bool
    objects: int  # objects in the permanent generation afterwards (0 when not frozen)
    collect_ms: float


def settle_heap(*, freeze: bool) -> HeapSettled:
    """Collect what start-up left behind, then (``freeze``) exempt every surviving object from later
    collections. Call once, after warm-up and before taking traffic."""
    if not freeze:
        return HeapSettled(False, 0, 0.0)
    started = time.perf_counter()
    gc.collect()  # garbage frozen now would never be reclaimed
    collect_ms = (time.perf_counter() - started) * 1000
    gc.freeze()
    settled = HeapSettled(True, gc.get_freeze_count(), round(collect_ms, 1))
    log.info("service.heap.frozen", objects=settled.objects, collect_ms=settled.collect_ms)
    return settled


def set_switch_interval(ms: float) -> None:
    """The interpreter's thread switch interval (how long a thread may keep the GIL while another waits)."""
    sys.setswitchinterval(ms / 1000)
    log.info("service.switch_interval", ms=ms)
