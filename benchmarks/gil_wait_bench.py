"""How long a thread whose I/O has returned waits for the GIL while another thread computes
(``python -m benchmarks.gil_wait_bench``), at CPython's default switch interval (5 ms) and at the serving
processes' ``switch_interval_ms`` (engine/service/limits.json).

A worker runs a turn's Python on one thread while other turns' threads wait on PostgreSQL; each of those, when
its reply arrives, needs the GIL back before it can go on, and gets it when the computing thread is forced to
drop it: after up to one switch interval. A turn makes five round trips and two engine-thread hand-offs, so
with turns overlapping (100 turns/s on two workers) the interval is paid several times per turn. This measures
that wait alone: one thread spins in pure Python (a turn computing), the main thread makes many short blocking
calls (a 0.2 ms sleep, and with ``GRACE_TEST_POSTGRES_URL`` set a ``SELECT 1`` round trip) and records how
much longer each took than with no competing thread. Printed, never asserted: on a shared machine the other
processes' load adds its own waits.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import threading
import time
from collections.abc import Callable

from engine.service.limits import load_limits


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))]


def _spin(stop: threading.Event) -> None:
    x = 0
    while not stop.is_set():
        for i in range(1000):  # pure Python: holds the GIL until the interpreter forces a switch
            x ^= i


def measure(call: Callable[[], None], calls: int, interval_s: float, busy: bool) -> list[float]:
    """Milliseconds each ``call`` took, at switch interval ``interval_s``, with or without a spinning thread."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(interval_s)
    stop = threading.Event()
    spinner = threading.Thread(target=_spin, args=(stop,), daemon=True)
    if busy:
        spinner.start()
        time.sleep(0.05)
    out = []
    try:
        for _ in range(calls):
            t0 = time.perf_counter()
            call()
            out.append((time.perf_counter() - t0) * 1000)
    finally:
        stop.set()
        if busy:
            spinner.join()
        sys.setswitchinterval(previous)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gil_wait_bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=400, help="blocking calls per measurement (1..20000)")
    args = parser.parse_args(argv)
    if not 1 <= args.calls <= 20000:
        parser.error("--calls must be 1..20000")
    serving_ms = load_limits().switch_interval_ms
    calls: dict[str, Callable[[], None]] = {"sleep 0.2 ms": lambda: time.sleep(0.0002)}
    conn = None
    url = os.environ.get("GRACE_TEST_POSTGRES_URL", "")
    if url:
        import psycopg

        conn = psycopg.connect(url, autocommit=True)
        pg = conn

        def select_one() -> None:
            pg.execute("SELECT 1").fetchone()

        calls["PostgreSQL SELECT 1"] = select_one
    print(f"load average {os.getloadavg()[0]:.2f}; {args.calls} calls each; CPython default switch interval 5 ms,"
          f" serving processes {serving_ms:g} ms (limits.json)")
    print(f"{'blocking call':22} {'interval':>8} {'other thread':>12} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8}")
    try:
        for name, call in calls.items():
            for interval_ms in (5.0, serving_ms):
                for busy in (False, True):
                    ms = measure(call, args.calls, interval_ms / 1000, busy)
                    print(f"{name:22} {interval_ms:6g} ms {'computing' if busy else 'none':>12} "
                          f"{_pct(ms, 50):8.2f} {_pct(ms, 90):8.2f} {_pct(ms, 99):8.2f}")
    finally:
        if conn is not None:
            conn.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
