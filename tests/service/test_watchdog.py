"""The benchmarks' bound on a whole run: a stuck run prints every thread's stack, is interrupted so that its
clean-up runs, and exits hard if the clean-up itself hangs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

STUCK = """
import sys, time
from benchmarks.watchdog import start_watchdog
start_watchdog(0.5, "stuck bench", hard_exit_after_s={hard})
try:
    time.sleep(60)  # a blocking call: the signal must break it
finally:
    print("cleaned up", flush=True)
    {cleanup}
"""


def _run(hard: float, cleanup: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", STUCK.format(hard=hard, cleanup=cleanup)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def test_a_stuck_run_prints_its_stacks_and_its_clean_up_runs() -> None:
    done = _run(30.0, "pass")
    assert "stuck bench: still running 0 s after it started" in done.stderr
    assert "Thread 0x" in done.stderr and 'File "<string>", line 6' in done.stderr  # where the main thread was
    assert "KeyboardInterrupt" in done.stderr and done.stdout.strip() == "cleaned up"
    assert done.returncode != 0


def test_a_clean_up_that_hangs_too_ends_with_a_hard_exit() -> None:
    done = _run(0.5, "time.sleep(60)")
    assert done.stdout.strip() == "cleaned up"
    assert "clean-up did not finish within 0 s; exiting" in done.stderr
    assert done.returncode == 3


def test_a_finished_run_cancels_its_bound() -> None:
    done = subprocess.run([sys.executable, "-c", "import time\nfrom benchmarks.watchdog import start_watchdog\n"
                           "start_watchdog(0.3, 'quick').cancel()\ntime.sleep(0.8)\nprint('done')"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "done" and done.stderr == ""
