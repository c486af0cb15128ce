"""The load benchmark's GC probe (benchmarks/gc_probe) records collections in a real process, and
``benchmarks.gc_pauses`` summarises a worker's serving window only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from benchmarks.gc_pauses import summary

ROOT = Path(__file__).resolve().parents[2]


def test_probe_records_every_collection_of_a_process(tmp_path: Path) -> None:
    env = dict(os.environ, GRACE_GC_PROBE_DIR=str(tmp_path),
               PYTHONPATH=os.pathsep.join([str(ROOT / "benchmarks" / "gc_probe"), str(ROOT)]))
    code = "import gc\nfor _ in range(3):\n    gc.collect()\nprint('done')"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "done"
    (written,) = tmp_path.glob("gc-*.json")
    data = json.loads(written.read_text())
    assert sum(1 for e in data["events"] if e[1] == 2) >= 3  # the three explicit full collections at least
    assert all(e[2] >= 0 for e in data["events"])


def test_summary_counts_only_what_happened_after_the_worker_was_ready(tmp_path: Path) -> None:
    path = tmp_path / "gc-1.json"
    path.write_text(json.dumps({
        "argv": ["-c"], "marks": {"ready": 100.0}, "frozen": 5, "threshold": [700, 10, 10],
        "events": [[90.0, 2, 400.0, 0], [101.0, 0, 0.5, 0], [102.0, 2, 300.0, 1], [103.0, 0, 1.5, 0]],
        "turns": [[101.5, 10.0], [102.5, 30.0]],
    }))
    text = "\n".join(summary(path))
    assert "gen0: 2 collections, 2 ms in all, median 1.00 ms, longest 1.5 ms" in text
    assert "full collections (time after ready: pause): 2.0 s: 300 ms" in text and "400" not in text
    assert "turns 2: inside the server p50 10.0 ms" in text
    client = tmp_path / "gc-2.json"
    client.write_text(json.dumps({"argv": ["bench"], "marks": {}, "frozen": 0, "threshold": [700, 10, 10],
                                  "events": [], "turns": []}))
    assert summary(client) == []
