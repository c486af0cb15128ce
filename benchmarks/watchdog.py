"""A bound on a benchmark's whole run: past it the run is stuck (a lock wait, a reply that never comes), so
every thread's stack is printed and the main thread is interrupted, which lets its ``with`` and ``finally``
blocks stop the servers it started and drop its database; if even that does not end the process, it exits hard.

Benchmarks bound their steps by a deadline, but a deadline is only checked between steps: a call blocked inside
one (PostgreSQL waits for a lock without limit by default) would hold a CI run until the job's own timeout.
"""

from __future__ import annotations

import faulthandler
import os
import signal
import sys
import threading
import time

HARD_EXIT_AFTER_S = 60.0  # after the interrupt: time for clean-up before the process exits with HARD_EXIT_CODE
HARD_EXIT_CODE = 3


def start_watchdog(seconds: float, name: str, *, hard_exit_after_s: float = HARD_EXIT_AFTER_S) -> threading.Timer:
    """Arm the bound; ``cancel()`` the returned timer when the run ends normally."""

    def fire() -> None:
        print(f"{name}: still running {seconds:.0f} s after it started (stuck); every thread's stack follows, then "
              "the run is interrupted", file=sys.stderr, flush=True)
        faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
        os.kill(os.getpid(), signal.SIGINT)  # a real signal: it also breaks a blocking system call
        time.sleep(hard_exit_after_s)
        print(f"{name}: clean-up did not finish within {hard_exit_after_s:.0f} s; exiting", file=sys.stderr,
              flush=True)
        os._exit(HARD_EXIT_CODE)

    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()
    return timer
