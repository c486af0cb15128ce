"""Server CPU per turn over HTTP, one turn at a time, against the same turns in-process:

    python -m benchmarks.service_cpu --turns 300            # SQLite
    python -m benchmarks.service_cpu --turns 300 --postgres # PostgreSQL (GRACE_TEST_POSTGRES_URL, throw-away schema)

It starts ``grace serve --demo`` (one worker) on loopback, creates the conversations first (not measured), then
sends ``--turns`` turns of the load-bench scripts strictly one after another over one keep-alive connection and
reads the server process's CPU time (user + system, /proc) before and after. With no concurrency there is no
queueing, so the difference from the in-process figure is the service layer's own cost: HTTP parsing,
middleware, routing, validation, the access check and the JSON reply. The in-process run (``TurnRuntime.handle``
on the same scripts, same backend, in this process) follows, and the ratio of the two is printed. CPU times on a
shared machine are upper bounds.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import sys
import tempfile
import time
import uuid
from pathlib import Path

from benchmarks.load_bench import (
    ROOT,
    SCRIPTS,
    Database,
    Server,
    bench_env,
    cpu_seconds,
    in_process,
    load_average,
    pct,
)
from benchmarks.load_client import Pool
from engine.service.native_threads import limit_native_threads


async def plan_turns(pool: Pool, turns: int) -> list[tuple[str, str, str]]:
    """(conversation id, visitor token, message) for ``turns`` turns of the demo scripts, conversations created
    now. Turns of one conversation go in order; interleaving conversations would not change the CPU."""
    plan: list[tuple[str, str, str]] = []
    index = 0
    while len(plan) < turns:
        goal, lang, script = SCRIPTS[index % len(SCRIPTS)]
        created = (await pool.request("POST", "/v1/conversations", {"goal": goal, "language": lang})).json()
        plan.extend((created["conversation_id"], created["visitor_token"], m.format(n=index)) for m in script)
        index += 1
    return plan[:turns]


async def _turns(port: int, pid: int, turns: int, concurrency: int = 1) -> tuple[float, list[float], int]:
    """(server CPU seconds over the turns, their latencies in ms, failed turns); ``concurrency`` requests in
    flight, each lane a set of whole conversations sent in order."""
    pool = Pool("127.0.0.1", port, concurrency)
    try:
        return await _send(pool, pid, await plan_turns(pool, turns), concurrency)
    finally:
        pool.close()


def lanes(plan: list[tuple[str, str, str]], count: int) -> list[list[tuple[str, str, str]]]:
    """``plan`` dealt into ``count`` lanes by conversation, so each conversation's turns stay in one lane, in
    order (a conversation takes one turn at a time, as a visitor does)."""
    lane_of: dict[str, int] = {}
    dealt: list[list[tuple[str, str, str]]] = [[] for _ in range(count)]
    for turn in plan:
        index = lane_of.setdefault(turn[0], len(lane_of) % count)
        dealt[index].append(turn)
    return dealt


def loop_thread_seconds(pid: int) -> float:
    """CPU time of the server's main thread, which runs the event loop (HTTP parsing, middleware, routing)."""
    return cpu_seconds_of(Path(f"/proc/{pid}/task/{pid}/stat"))


def cpu_seconds_of(stat: Path) -> float:
    try:
        fields = stat.read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _send(pool: Pool, pid: int, plan: list[tuple[str, str, str]],
                concurrency: int = 1) -> tuple[float, list[float], int]:
    latencies: list[float] = []
    failed = [0]

    async def lane(turns: list[tuple[str, str, str]]) -> None:
        for cid, token, message in turns:
            headers = {"Idempotency-Key": uuid.uuid4().hex, "X-Visitor-Token": token}
            t0 = time.perf_counter()
            reply = await pool.request("POST", f"/v1/conversations/{cid}/turns", {"message": message}, headers)
            latencies.append((time.perf_counter() - t0) * 1000)
            failed[0] += reply.status != 200

    before, loop_before = cpu_seconds(pid), loop_thread_seconds(pid)
    await asyncio.gather(*(lane(turns) for turns in lanes(plan, concurrency)))
    LOOP_CPU.append(loop_thread_seconds(pid) - loop_before)
    return cpu_seconds(pid) - before, latencies, failed[0]


LOOP_CPU: list[float] = []  # the event-loop thread's share of each measured run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=300, help="measured turns (1..5000)")
    parser.add_argument("--warm-up", type=int, default=20, help="turns sent first and not measured")
    parser.add_argument("--postgres", action="store_true", help="PostgreSQL (GRACE_TEST_POSTGRES_URL) not SQLite")
    parser.add_argument("--concurrency", type=int, default=1,
                        help="requests in flight (closed loop, 1..64): CPU per turn under concurrency")
    parser.add_argument("--no-in-process", dest="in_process", action="store_false",
                        help="skip the in-process reference run")
    parser.add_argument("--data-dir", type=Path, default=ROOT / ".grace" / "bench")
    args = parser.parse_args(argv)
    if not 1 <= args.turns <= 5000 or not 0 <= args.warm_up <= 1000 or not 1 <= args.concurrency <= 64:
        parser.error("--turns must be 1..5000, --warm-up 0..1000 and --concurrency 1..64")
    args.data_dir = args.data_dir.resolve()
    args.data_dir.mkdir(parents=True, exist_ok=True)
    postgres_url = os.environ.get("GRACE_TEST_POSTGRES_URL", "")
    if args.postgres and not postgres_url:
        raise SystemExit("--postgres needs GRACE_TEST_POSTGRES_URL")
    backend = "postgres" if args.postgres else "sqlite"
    limit_native_threads(os.environ)  # the in-process run with the server's native-thread setting
    load_start = load_average()
    with tempfile.TemporaryDirectory(prefix="grace-svc-cpu-") as tmp_name, Database(backend, postgres_url) as url:
        tmp = Path(tmp_name)
        server = Server(url, args.data_dir, bench_env(tmp, secrets.token_urlsafe(24)), tmp / "server.log", 1)
        try:
            if args.warm_up:
                asyncio.run(_turns(server.port, server.pids[0], args.warm_up))
            cpu_s, latencies, failed = asyncio.run(_turns(server.port, server.pids[0], args.turns, args.concurrency))
        finally:
            server.stop()
    http_ms = 1000 * cpu_s / args.turns
    flight = "sequential" if args.concurrency == 1 else f"closed-loop ({args.concurrency} in flight)"
    print(f"# benchmarks.service_cpu {backend}: {args.turns} {flight} HTTP turns to one `grace serve --demo`"
          f" worker; load average {load_start}-{load_average()} on {os.cpu_count()} CPUs (upper bounds)")
    print(f"http       server CPU {http_ms:6.2f} ms/turn   latency p50 {pct(latencies, 50):6.2f} ms"
          f" p99 {pct(latencies, 99):6.2f} ms   failed {failed}")
    print(f"           of which the event-loop thread {1000 * LOOP_CPU[-1] / args.turns:6.2f} ms/turn, request and"
          f" engine threads {http_ms - 1000 * LOOP_CPU[-1] / args.turns:6.2f} ms/turn")
    if args.in_process:
        ns = argparse.Namespace(in_process_turns=args.turns, data_dir=args.data_dir, heap_freeze=True)
        with Database(backend, postgres_url) as url:
            ref = in_process(backend, url, ns)
        print(f"in-process CPU        {ref.cpu_ms_per_turn:6.2f} ms/turn   latency p50 {pct(ref.ms, 50):6.2f} ms"
              f" p99 {pct(ref.ms, 99):6.2f} ms")
        ratio = http_ms / ref.cpu_ms_per_turn if ref.cpu_ms_per_turn else 0.0
        print(f"ratio http/in-process {ratio:5.2f}x   service layer {http_ms - ref.cpu_ms_per_turn:6.2f} ms/turn")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
