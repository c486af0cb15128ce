"""Where a turn's time goes inside ``grace serve``: a sampling profile (py-spy) of one server process while
turns arrive over HTTP, written as a short text artefact (top functions by own time and by inclusive time).

    python -m benchmarks.profile_service --turns 400 --out benchmarks/profiles/turn_service_after.txt

It starts ``grace serve --demo`` (one worker; SQLite, or PostgreSQL in a throw-away schema with ``--postgres``)
on loopback, attaches ``py-spy record`` to it, runs
``--conversations`` scripted conversations concurrently (closed loop) for ``--turns`` turns in all, stops the
profiler and folds its raw stacks. py-spy samples every thread that is on the CPU; "own" counts the samples
whose innermost frame is the function, "inclusive" the samples with the function anywhere on the stack.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path

from benchmarks.load_bench import ROOT, SCRIPTS, Database, Server, bench_env, load_average, pct
from benchmarks.load_client import Pool


def _pyspy() -> str:
    found = shutil.which("py-spy", path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    if found is None:
        raise SystemExit("py-spy is not installed: pip install py-spy (a binary wheel from PyPI)")
    return found


async def _drive(port: int, conversations: int, turns: int) -> list[float]:
    pool = Pool("127.0.0.1", port, conversations)
    latencies: list[float] = []
    budget = [turns]

    async def one(i: int) -> None:
        goal, lang, script = SCRIPTS[i % len(SCRIPTS)]
        while budget[0] > 0:
            created = (await pool.request("POST", "/v1/conversations", {"goal": goal, "language": lang})).json()
            for message in script:
                if budget[0] <= 0:
                    return
                budget[0] -= 1
                headers = {"Idempotency-Key": uuid.uuid4().hex, "X-Visitor-Token": created["visitor_token"]}
                t0 = time.perf_counter()
                reply = await pool.request("POST", f"/v1/conversations/{created['conversation_id']}/turns",
                                           {"message": message.format(n=i)}, headers)
                if reply.status == 200:
                    latencies.append((time.perf_counter() - t0) * 1000)

    try:
        await asyncio.gather(*(one(i) for i in range(conversations)))
    finally:
        pool.close()
    return latencies


# Innermost frames that are a thread waiting, not working: py-spy's idle detection misses some of them.
WAITING = ("Condition.wait ", "Event.wait ", "Queue.get ", "EpollSelector.select ", "Thread.join ", "sleep ",
           "_worker (concurrent/futures/thread.py:81)",
           # Waking another thread (the event loop's self-pipe, the engine thread's queue) hands it the GIL: a
           # sample here is the waker waiting to take the GIL back, not working.
           "BaseSelectorEventLoop._write_to_self ", "ThreadPoolExecutor.submit ", "Condition.notify ")


OURS = ("(engine/", "(audit/", "(llm_adapters/", "(spec/")


def fold(raw: str, top: int) -> tuple[int, list[tuple[str, int]], list[tuple[str, int]], list[tuple[str, int]]]:
    """Own and inclusive sample counts per frame (and inclusive for GRACE's own code), over the samples of
    threads that were working."""
    own: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    ours: Counter[str] = Counter()
    total = 0
    for line in raw.splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = [f for f in stack.split(";") if f]
        if frames[-1].startswith(WAITING) or frames[-1] in WAITING:
            continue
        total += count
        own[frames[-1]] += count
        for frame in set(frames):
            inclusive[frame] += count
            if any(part in frame for part in OURS) and "site-packages" not in frame:
                ours[frame] += count
    return total, own.most_common(top), inclusive.most_common(top), ours.most_common(top)


def _short(frame: str) -> str:
    """``fn (path/to/file.py:12)`` with the site-packages / checkout prefix cut."""
    for marker in ("site-packages/", str(ROOT) + "/", "lib/python3."):
        if marker in frame:
            head, _, tail = frame.partition("(")
            return f"{head}({tail.split(marker, 1)[1]}" if marker != "lib/python3." else f"{head}(stdlib:"\
                f"{tail.split('/', 1)[1] if '/' in tail else tail}"
    return frame


def write_report(
    header: list[str],
    folded: tuple[int, list[tuple[str, int]], list[tuple[str, int]], list[tuple[str, int]]],
    top: int,
    out: Path,
) -> None:
    """The profile file: ``header`` lines, then the three top-``top`` tables of ``fold``'s result."""
    total, own, inclusive, ours = folded

    def rows(entries: list[tuple[str, int]]) -> list[str]:
        return [f"{n:7d} {100 * n / max(total, 1):5.1f}%  {_short(f)}" for f, n in entries]

    lines = [
        *header,
        "",
        f"## top {top} by own samples (innermost frame)",
        *rows(own),
        "",
        f"## top {top} GRACE functions by inclusive samples",
        *rows(ours),
        "",
        f"## top {top} by inclusive samples (anywhere on the stack)",
        *rows(inclusive),
    ]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines[:4]))
    print(f"written to {out}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=400, help="turns to profile (1..5000)")
    parser.add_argument("--conversations", type=int, default=8, help="concurrent conversations (1..64)")
    parser.add_argument("--rate", type=int, default=200, help="py-spy samples per second")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "profiles" / "turn_service.txt")
    parser.add_argument("--data-dir", type=Path, default=ROOT / ".grace" / "bench")
    parser.add_argument("--raw", type=Path, default=None, help="also keep py-spy's raw folded stacks here")
    parser.add_argument("--postgres", action="store_true",
                        help="profile on PostgreSQL (GRACE_TEST_POSTGRES_URL, a throw-away schema) instead of SQLite")
    parser.add_argument("--gil", action="store_true",
                        help="sample only the thread holding the GIL: the process's Python CPU, without waits")
    args = parser.parse_args(argv)
    if not 1 <= args.turns <= 5000 or not 1 <= args.conversations <= 64:
        parser.error("--turns must be 1..5000 and --conversations 1..64")
    args.data_dir = args.data_dir.resolve()
    args.data_dir.mkdir(parents=True, exist_ok=True)
    pyspy = _pyspy()
    postgres_url = os.environ.get("GRACE_TEST_POSTGRES_URL", "")
    if args.postgres and not postgres_url:
        raise SystemExit("--postgres needs GRACE_TEST_POSTGRES_URL")
    backend = "postgres" if args.postgres else "sqlite"
    with tempfile.TemporaryDirectory(prefix="grace-profile-") as tmp_name, Database(backend, postgres_url) as url:
        tmp = Path(tmp_name)
        env = bench_env(tmp, secrets.token_urlsafe(24))
        server = Server(url, args.data_dir, env, tmp / "server.log", 1)
        raw_path = tmp / "raw.txt"
        try:
            asyncio.run(_drive(server.port, 2, 8))  # first requests (connection setup) are not profiled
            # --nonblocking: py-spy reads the stacks without stopping the process; stopping it at every sample
            # cut a PostgreSQL worker from 63 to 20 turns/s, so the profile showed a different load than it measured
            spy = subprocess.Popen([pyspy, "record", "--nonblocking", "--pid", str(server.pids[0]),
                                    "--rate", str(args.rate), "--format", "raw", "--output", str(raw_path),
                                    *(["--gil"] if args.gil else [])],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(1.0)  # py-spy attaches
            load_before = load_average()
            started = time.perf_counter()
            latencies = asyncio.run(_drive(server.port, args.conversations, args.turns))
            wall = time.perf_counter() - started
            spy.send_signal(signal.SIGINT)
            spy.wait(timeout=60)
        finally:
            server.stop()
        raw = raw_path.read_text(encoding="utf-8") if raw_path.exists() else ""
    total, own, inclusive, ours = fold(raw, args.top)
    if args.raw is not None:
        args.raw.write_text(raw, encoding="utf-8")
    lines = [
        f"# py-spy profile of one `grace serve --demo` worker ({'PostgreSQL' if args.postgres else 'SQLite'}) under"
        f" {args.conversations} concurrent conversations, closed loop",
        f"# command: python -m benchmarks.profile_service --turns {args.turns} --conversations {args.conversations}"
        + (" --postgres" if args.postgres else "") + (" --gil" if args.gil else ""),
        f"# turns {len(latencies)} in {wall:.1f} s = {len(latencies) / wall:.1f} turns/s; latency p50 "
        f"{pct(latencies, 50):.1f} ms p99 {pct(latencies, 99):.1f} ms; load average {load_before}-{load_average()}"
        f" on {os.cpu_count()} CPUs",
        f"# samples {total} at {args.rate}/s of "
        + ("the thread holding the GIL" if args.gil else
           "working threads (threads waiting on a lock, queue or socket are left out)"),
    ]
    write_report(lines, (total, own, inclusive, ours), args.top, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
