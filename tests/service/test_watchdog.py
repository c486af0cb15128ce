"""The benchmarks' bound on a whole run: a stuck run prints every thread's stack, is interrupted so that its
clean-up runs, and exits hard if the clean-up itself hangs. Run with SIGINT ignored, as a process started in the
background by a non-interactive shell (CI) is."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

STUCK = """
import time
from benchmarks.watchdog import bounded_run
with bounded_run({bound}, "stuck bench", hard_exit_after_s={hard}):
    try:
        time.sleep({sleep})  # a blocking call: the interrupt must break it
    finally:
        print("cleaned up", flush=True)
        {cleanup}
print("after the run", flush=True)
"""


def _run(*, bound: float = 0.5, hard: float = 30.0, sleep: float = 60.0,
         cleanup: str = "pass") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", STUCK.format(bound=bound, hard=hard, sleep=sleep, cleanup=cleanup)], cwd=ROOT,
        capture_output=True, text=True, timeout=60, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))


def test_a_stuck_run_prints_its_stacks_and_its_clean_up_runs() -> None:
    done = _run()
    assert "stuck bench: still running 0 s after it started" in done.stderr
    assert "Thread 0x" in done.stderr and 'File "<string>", line 6' in done.stderr  # where the main thread was
    assert "StuckRun" in done.stderr and done.stdout.strip() == "cleaned up"
    assert done.returncode == 1  # the exception's exit, not the hard one


def test_a_clean_up_that_hangs_too_ends_with_a_hard_exit() -> None:
    done = _run(hard=0.5, cleanup="time.sleep(60)")
    assert done.stdout.strip() == "cleaned up"
    assert "clean-up did not finish within 0 s; exiting" in done.stderr
    assert done.returncode == 3


def test_a_finished_run_cancels_its_bound_and_restores_the_signal() -> None:
    script = ("import signal, time\nfrom benchmarks.watchdog import bounded_run\n"
              "with bounded_run(0.3, 'quick'):\n    pass\n"
              "assert signal.getsignal(signal.SIGUSR2) is signal.SIG_DFL\n"
              "time.sleep(0.8)\nprint('done')")  # past the bound: a bound still armed would kill the process
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done" and done.stderr == ""
