"""Scale latency of this tree against a baseline commit, measured side by side in the same run.

On a shared machine a latency figure alone mostly measures the other jobs; the ratio of two trees measured at the
same time on the same scaled directory and the same queries does not. The baseline's engine, benchmarks and rules
are exported with ``git archive`` into a temporary folder; both children (``benchmarks.directory.scale``) run
concurrently, each from its own tree, and the machine's load average is printed before and after.

    .venv/bin/python -m benchmarks.directory.scale_ab --baseline main --size 100000
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from benchmarks.directory.scale import write_scaled

PROJECT = Path(__file__).resolve().parents[2]
KANSAS = Path("/work/shared/data/directories/kansas/pantry_data.json")
MAPPING = PROJECT / "demos" / "directories" / "mappings" / "kansas.json"


def export(ref: str, into: Path) -> Path:
    """The baseline's source tree (engine, benchmarks, rules, the packaged data they read) from git."""
    folders = ["engine", "benchmarks", "rules", "llm_adapters", "audit", "spec", "demos/directories"]
    archive = subprocess.run(["git", "-C", str(PROJECT), "archive", ref, *folders],
                             capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def child(tree: Path, data: Path, mapping: Path, queries: int) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    cmd = [sys.executable, "-m", "benchmarks.directory.scale", str(data), str(mapping), str(tree / "rules"),
           str(queries), "0"]
    return subprocess.Popen(cmd, cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--baseline", default="main", help="git ref measured beside this tree")
    parser.add_argument("--size", type=int, default=100000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--directory", default=str(KANSAS))
    parser.add_argument("--mapping", default=str(MAPPING))
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="grace-scale-ab-") as tmp:
        base = export(args.baseline, Path(tmp) / "baseline")
        data, mapping = write_scaled(Path(args.directory), Path(args.mapping), args.size, Path(tmp) / "data")
        runs = {"baseline": child(base, data, mapping, args.queries),
                "this tree": child(PROJECT, data, mapping, args.queries)}
        rows = {}
        for name, process in runs.items():
            out, err = process.communicate()
            if process.returncode != 0:
                print(f"{name} failed: {err.strip()[-400:]}", file=sys.stderr)
                return 1
            rows[name] = json.loads(out.strip().splitlines()[-1])
    print(f"load average after: {os.getloadavg()}")
    print(f"{'tree':<10} {'records':>8} {'load s':>8} {'MiB':>7} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for name, r in rows.items():
        print(f"{name:<10} {r['records']:>8} {r['load_s']:>8.1f} {r['memory_mib']:>7.1f} {r['p50_ms']:>8.2f} "
              f"{r['p99_ms']:>8.2f} {r['max_ms']:>8.2f}")
    b, t = rows["baseline"], rows["this tree"]
    print("ratio this/baseline: " + ", ".join(f"{k} {t[k] / b[k]:.2f}" for k in ("load_s", "memory_mib", "p50_ms",
                                                                                  "p99_ms", "max_ms") if b[k]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
