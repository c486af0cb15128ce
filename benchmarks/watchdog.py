"""A bound on a benchmark's whole run: past it the run is stuck (a lock wait, a reply that never comes), so
every thread's stack is printed and ``StuckRun`` is raised in the main thread, which lets its ``with`` and
``finally`` blocks stop the servers it started and drop its database; if even that does not end the process, it
exits hard.

Benchmarks bound their steps by a deadline, but a deadline is only checked between steps: a call blocked inside
one (PostgreSQL waits for a lock without limit by default) would hold a CI run until the job's own timeout.

The interrupt is a signal of its own (SIGUSR2) sent to the main thread, not SIGINT: a process started in the
background by a non-interactive shell ignores SIGINT, and Python then never raises ``KeyboardInterrupt``.
"""

from __future__ import annotations

import faulthandler
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

HARD_EXIT_AFTER_S = 60.0  # after the interrupt: time for clean-up before the process exits with HARD_EXIT_CODE
HARD_EXIT_CODE = 3
_SIGNAL = signal.SIGUSR2


class StuckRun(BaseException):
    """The run outlived its bound. A BaseException, so that no ``except Exception`` on the way swallows it."""


def _raise_stuck(signum: int, frame: FrameType | None) -> None:
    raise StuckRun("the run outlived its bound (see the stacks printed before)")


@contextmanager
def bounded_run(seconds: float, name: str, *, hard_exit_after_s: float = HARD_EXIT_AFTER_S) -> Iterator[None]:
    """Run the ``with`` body under the bound. Call it from the main thread (signal handlers live there)."""
    main = threading.main_thread().ident
    assert main is not None

    def fire() -> None:
        print(f"{name}: still running {seconds:.0f} s after it started (stuck); every thread's stack follows, then "
              "the run is interrupted", file=sys.stderr, flush=True)
        faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
        signal.pthread_kill(main, _SIGNAL)  # to the main thread: it also breaks the system call it is blocked in
        time.sleep(hard_exit_after_s)
        print(f"{name}: clean-up did not finish within {hard_exit_after_s:.0f} s; exiting", file=sys.stderr,
              flush=True)
        os._exit(HARD_EXIT_CODE)

    previous = signal.signal(_SIGNAL, _raise_stuck)
    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        signal.signal(_SIGNAL, previous)
