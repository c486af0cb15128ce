"""A sampling profile (py-spy) of in-process offline turns, of this checkout or of another code tree:

    python -m benchmarks.profile_inprocess_spy --turns 2000 --out benchmarks/profiles/turn_inprocess_after.txt
    python -m benchmarks.profile_inprocess_spy --tree /tmp/before --out benchmarks/profiles/turn_inprocess_before.txt

py-spy records ``load_bench.in_process`` (the demo service built as a worker builds it, then ``--turns`` turns
through ``TurnRuntime.handle`` on one thread, as ``grace bench load`` runs its in-process reference) in a
child process running ``--tree``'s code; only the samples inside ``TurnRuntime.handle`` are folded (the build
and warm-up are left out), as own / GRACE-inclusive / inclusive tables like ``benchmarks.profile_service``'s.
Unlike cProfile it adds no cost per call, so cheap functions called often are not inflated.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.load_bench import ROOT, load_average
from benchmarks.profile_service import _pyspy, fold, write_report

# The child: only names that every tree's load_bench has (so an older checkout can be profiled the same way).
_CHILD = """
import argparse, os, sys, tempfile
from pathlib import Path
from benchmarks import load_bench
ns = argparse.Namespace(data_dir=Path(tempfile.mkdtemp(prefix="grace-spy-")), in_process_turns={turns},
                        heap_freeze=True, query_cache=None)
with load_bench.Database({backend!r}, os.environ.get("GRACE_TEST_POSTGRES_URL", "")) as url:
    run = load_bench.in_process({backend!r}, url, ns)
print(f"turns {{run.turns}} p50 {{load_bench.pct(run.ms, 50):.2f}} ms p99 {{load_bench.pct(run.ms, 99):.2f}} ms "
      f"max {{max(run.ms):.1f}} ms, process CPU {{run.cpu_ms_per_turn:.2f}} ms/turn")
"""

INSIDE = ";TurnRuntime.handle ("


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, default=ROOT, help="code tree to profile (default: this checkout)")
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--rate", type=int, default=250, help="py-spy samples per second")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--label", default="", help="what the tree is, for the header (e.g. the commit it holds)")
    args = parser.parse_args(argv)
    tree = args.tree.resolve()
    with tempfile.TemporaryDirectory(prefix="grace-spy-") as tmp:
        raw_path = Path(tmp) / "raw.txt"
        load_before = load_average()
        # cwd and PYTHONPATH are the tree: ``python -c`` puts the working directory first on sys.path.
        # --nonblocking: stopping the process for each sample waits for every thread to stop, and one in an
        # fsync (SQLite's checkpoint thread) cannot until the disk answers: the turns would wait with it.
        done = subprocess.run(
            [_pyspy(), "record", "--nonblocking", "--rate", str(args.rate), "--format", "raw", "--output",
             str(raw_path), "--", sys.executable, "-c", _CHILD.format(turns=args.turns, backend=args.backend)],
            cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)}, capture_output=True, text=True, check=True,
        )
        raw = raw_path.read_text(encoding="utf-8")
    measured = next((line for line in done.stdout.splitlines() if line.startswith("turns ")), "")
    inside = "\n".join(line for line in raw.splitlines() if INSIDE in line)
    folded = fold(inside, args.top)
    command = " ".join(sys.argv[1:] if argv is None else argv)
    lines = [
        f"# py-spy profile of in-process offline turns ({args.backend}), samples inside TurnRuntime.handle only",
        f"# command: python -m benchmarks.profile_inprocess_spy {command}",
        f"# code tree: {'this checkout' if tree == ROOT.resolve() else tree}; git {_head(tree)} {args.label}".rstrip(),
        f"# {measured} (under the profiler); load average {load_before}-{load_average()} on {os.cpu_count()} CPUs",
        f"# samples {folded[0]} at {args.rate}/s of working threads",
    ]
    write_report(lines, folded, args.top, args.out)
    return 0


def _head(tree: Path) -> str:
    done = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return done.stdout.strip() or "(not a checkout)"


if __name__ == "__main__":
    raise SystemExit(main())
