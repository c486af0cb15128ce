"""How cost grows with directory size: a real directory scaled to N synthetic records, each size measured in a
fresh process (load time, resident memory added by the loaded retriever, parse+retrieve latency p50/p99).

Synthetic records are copies of the real ones (same towns, counties, ZIPs, hours and notes, so the place and hours
distributions stay realistic) with a numbered name; they are written to a temporary folder, never kept.
"""

from __future__ import annotations

import json
import logging
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import structlog

from engine.directory.errors import DirectoryUsageError
from engine.directory.mapping import load_mapping
from engine.progress import progress
from engine.rules.loader import DEFAULT_RULES_DIR


def _rss_kib() -> int:
    """Resident set size of this process in KiB (Linux /proc; 0 elsewhere)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def write_scaled(directory: Path, mapping_path: Path, size: int, out: Path) -> tuple[Path, Path]:
    """Copies of the directory's records up to ``size`` (names numbered), plus a mapping pointing at them."""
    mapping = load_mapping(mapping_path)
    if mapping.format != "json" or mapping.records_path:
        raise DirectoryUsageError("scaling needs a JSON directory whose file is the record list",
                                  code="directory.usage_scale")
    records = json.loads(directory.read_text(encoding="utf-8-sig"))
    extra = (json.loads((directory.parent / mapping.secondary.file).read_text(encoding="utf-8-sig"))
             if mapping.secondary is not None else None)
    name_key = mapping.scalars["name"] or ""
    if "." in name_key:
        raise DirectoryUsageError("scaling needs a top-level name field", code="directory.usage_scale")
    scaled, scaled_extra = [], []
    for i in range(size):
        source = records[i % len(records)]
        copy = dict(source)
        copy[name_key] = f"{source.get(name_key) or 'Pantry'} {i // len(records) + 1}" if i >= len(records) else \
            source.get(name_key)
        scaled.append(copy)
        if extra is not None and mapping.secondary is not None:
            side = dict(extra[i % len(records)])
            if mapping.secondary.verify_field:
                side[mapping.secondary.verify_field] = copy[name_key]
            scaled_extra.append(side)
    out.mkdir(parents=True, exist_ok=True)
    data_path = out / "scaled.json"
    data_path.write_text(json.dumps(scaled), encoding="utf-8")
    raw_mapping = json.loads(mapping_path.read_text(encoding="utf-8"))
    if extra is not None:
        (out / "scaled_secondary.json").write_text(json.dumps(scaled_extra), encoding="utf-8")
        raw_mapping["secondary"]["file"] = "scaled_secondary.json"
    new_mapping = out / "mapping.json"
    new_mapping.write_text(json.dumps(raw_mapping), encoding="utf-8")
    return data_path, new_mapping


def measure_one(directory: Path, mapping: Path, rules_root: Path, queries: int, seed: int) -> dict[str, Any]:
    """Runs in the child process: load, build, then time ``queries`` generated queries."""
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    from benchmarks.directory.generator import generate
    from engine.directory.directory_rules import directory_rules
    from engine.directory.retriever import TraceRetriever
    from engine.kernel.decision.bundle_proofs import load_verified_bundle

    rules = directory_rules(load_verified_bundle(rules_root, require_published=False))
    from engine.directory.geo_cache import us_places

    us_places()  # the packaged ZIP table is shared by every directory: not counted against this one
    before = _rss_kib()
    started = time.perf_counter()
    retriever = TraceRetriever.from_files(directory, mapping, rules=rules)
    load_s = time.perf_counter() - started
    after = _rss_kib()
    bench = generate(retriever.directory, rules, seed)
    samples = []
    for i in range(queries):
        query = bench[(i * 7) % len(bench)]
        t0 = time.perf_counter()
        retriever.answer(query.text, query.reference)
        samples.append((time.perf_counter() - t0) * 1000)
    samples.sort()
    p99 = samples[min(len(samples) - 1, max(0, round(0.99 * len(samples)) - 1))]
    return {"records": len(retriever.directory.records), "load_s": round(load_s, 2),
            "memory_mib": round((after - before) / 1024, 1), "p50_ms": round(statistics.median(samples), 2),
            "p99_ms": round(p99, 2), "max_ms": round(samples[-1], 2), "queries": queries}


def run_scale(directory: Path, mapping: Path, sizes: list[int], queries: int, seed: int = 0,
              rules_root: Path = DEFAULT_RULES_DIR) -> list[dict[str, Any]]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="grace-trace-scale-") as tmp:
        for size in progress(sizes, "TRACE scale"):
            data, scaled_mapping = write_scaled(directory, mapping, size, Path(tmp) / str(size))
            cmd = [sys.executable, "-m", "benchmarks.directory.scale", str(data), str(scaled_mapping),
                   str(rules_root), str(queries), str(seed)]
            done = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                raise DirectoryUsageError(f"scale run for {size} records failed: {done.stderr.strip()[-300:]}",
                                          code="directory.scale_failed")
            rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return rows


def format_scale(rows: list[dict[str, Any]]) -> str:
    lines = ["TRACE scale: parse+retrieve latency and resident memory against directory size (KG-3)",
             f"{'records':>8} {'load s':>7} {'memory MiB':>10} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'n':>5}"]
    for r in rows:
        lines.append(f"{r['records']:>8} {r['load_s']:>7.2f} {r['memory_mib']:>10.1f} {r['p50_ms']:>8.2f} "
                     f"{r['p99_ms']:>8.2f} {r['max_ms']:>8.2f} {r['queries']:>5}")
    return "\n".join(lines)


if __name__ == "__main__":
    _data, _mapping, _rules, _queries, _seed = sys.argv[1:6]
    print(json.dumps(measure_one(Path(_data), Path(_mapping), Path(_rules), int(_queries), int(_seed))))
