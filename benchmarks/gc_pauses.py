"""Summarise a ``benchmarks/gc_probe`` folder: per serving process, the garbage collections after it was ready
(count, total, median and longest pause per generation; every full collection) and its turns' time inside the
server.

    python -m benchmarks.gc_pauses /tmp/gc
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from benchmarks.load_bench import pct


def summary(path: Path) -> list[str]:
    data = json.loads(path.read_text(encoding="utf-8"))
    ready = data.get("marks", {}).get("ready")
    if ready is None:
        return []  # not a worker that served (the bench client, the supervisor)
    events = [e for e in data["events"] if e[0] >= ready]
    end = max([e[0] for e in data["events"]] + [t for t, _ in data["turns"]] + [ready])
    lines = [f"{path.name}: served {end - ready:.1f} s, {data['frozen']} objects frozen, thresholds "
             f"{data['threshold']}"]
    for gen in (0, 1, 2):
        ms = [e[2] for e in events if e[1] == gen]
        if ms:
            lines.append(f"  gen{gen}: {len(ms)} collections, {sum(ms):.0f} ms in all, median "
                         f"{statistics.median(ms):.2f} ms, longest {max(ms):.1f} ms")
        else:
            lines.append(f"  gen{gen}: none")
    full = [f"{e[0] - ready:.1f} s: {e[2]:.0f} ms" for e in events if e[1] == 2]
    if full:
        lines.append(f"  full collections (time after ready: pause): {', '.join(full)}")
    ms = [m for _, m in data["turns"]]
    if ms:
        lines.append(f"  turns {len(ms)}: inside the server p50 {pct(ms, 50):.1f} ms, p95 {pct(ms, 95):.1f} ms, "
                     f"p99 {pct(ms, 99):.1f} ms, longest {max(ms):.1f} ms")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gc_pauses", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path)
    args = parser.parse_args(argv)
    for path in sorted(args.folder.glob("gc-*.json")):
        for line in summary(path):
            print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
