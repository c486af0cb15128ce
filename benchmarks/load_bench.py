"""Open-loop load benchmark of the HTTP service (``grace bench load``), against local ``grace serve --demo``
servers on loopback only.

    grace bench load                                   # 1,000 conversations; steps 25,50,100,200 turns/s;
                                                       # sqlite:1, postgres:1, postgres:2 (PostgreSQL from
                                                       # GRACE_TEST_POSTGRES_URL or --postgres-url)
    grace bench load --conversations 8 --steps 4,8 --step-seconds 2 --configs sqlite:1   # a smoke run

Open loop: turn arrivals are scheduled by the clock (a seeded Poisson process at the step's offered rate), not
by completions, and each turn's latency runs from its scheduled time, so a slow server cannot slow the
offered load down and hide its own queueing. Each arrival goes to the conversation that has been idle longest
(its previous turn answered and its think time over); when none is, the arrival is counted as unserved.
Conversations are created before the first step (untimed) and each is one scripted real-estate lead (EN or ES),
every turn with its own Idempotency-Key. Rate limits are lifted for the run: this measures the engine.

Per configuration (backend:workers) and step it prints achieved throughput, p50/p95/p99 latency, errors, the
load average, how late the client itself sent its turns (``late99``: p99 ms after the scheduled time; a starved
client, not a slow server, when high), and ratios against the in-process run (the same scripts through
``TurnRuntime.handle`` on the same backend, one thread, no HTTP) made by this command; then the saturation
point, whether every conversation's audit chain verifies with exactly its acknowledged turns, each worker's
resident memory
after warm-up and after the run, and the workers' CPU time per turn during the steps beside the in-process
run's (on a shared machine latency says how busy the machine was; CPU per turn says what a turn costs).
Everything is bounded: conversations, steps, seconds per step, total seconds. ``--trace DIR`` adds where the
slow turns came from (``benchmarks/load_trace.py``).
PostgreSQL runs in throw-away schemas that are dropped afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import gc
import json
import math
import os
import random
import secrets
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import deque
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from benchmarks import load_trace
from benchmarks.load_client import REUSE, Pool
from benchmarks.watchdog import bounded_run
from engine.service.native_threads import limit_native_threads

ROOT = Path(__file__).resolve().parent.parent
LIMITS = ROOT / "engine" / "service" / "limits.json"
MAX_CONVERSATIONS = 5000
MAX_WORKERS = 8
MAX_STEPS = 10
MAX_RATE = 2000.0
MAX_STEP_SECONDS = 120.0
# Beyond --max-seconds: one last step (at most MAX_STEP_SECONDS), the chain checks of every conversation and the
# servers' stop fit well within this; a run still going then is stuck (see benchmarks/watchdog.py).
STUCK_AFTER_BUDGET_S = 600.0

SCRIPTS: list[tuple[str, str, list[str]]] = [
    (
        "real-estate",
        "en",
        [
            "Hello! Do you help foreign buyers with the paperwork?",
            "My budget is around 350,000 euros.",
            "I'd like something in Mojácar, close to the beach.",
            "I need three bedrooms and a parking space.",
            "You can reach me at lead{n}@example.com",
        ],
    ),
    (
        "real-estate",
        "es",
        [
            "Hola, ¿qué documentos necesito para comprar una casa en España?",
            "Mi presupuesto es de unos 280.000 euros.",
            "Busco algo en Vera Playa.",
            "Necesito dos dormitorios y terraza.",
            "Mi correo es cliente{n}@example.es",
        ],
    ),
]


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)  # nearest rank: the smallest value with at least q% of the values at or below it
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))]


def load_average() -> float:
    return round(os.getloadavg()[0], 2)


# -- results ------------------------------------------------------------------------------------------


@dataclass
class Step:
    offered: float
    seconds: float
    issued: int = 0
    unserved: int = 0  # arrivals that found no idle conversation (the client population was the limit)
    ok_ms: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    wall_s: float = 0.0
    load: tuple[float, float] = (0.0, 0.0)
    trace: list[load_trace.TurnEvent] | None = None  # every turn's timing, with --trace
    # How late the client sent each turn after its scheduled time: the client's own CPU starvation, which
    # counts in the latency (open loop) but is not the servers' doing.
    late_ms: list[float] = field(default_factory=list)

    @property
    def achieved(self) -> float:
        return len(self.ok_ms) / self.wall_s if self.wall_s else 0.0

    def saturated(self, slo_ms: float) -> bool:
        return (self.achieved < 0.9 * self.offered or bool(self.errors) or self.unserved > 0
                or pct(self.ok_ms, 99) > slo_ms)


@dataclass
class InProcess:
    backend: str
    turns: int
    wall_s: float
    ms: list[float]
    cpu_s: float = 0.0  # this process's CPU time over the same turns

    @property
    def throughput(self) -> float:
        return self.turns / self.wall_s if self.wall_s else 0.0

    @property
    def cpu_ms_per_turn(self) -> float:
        return 1000 * self.cpu_s / self.turns if self.turns else 0.0


@dataclass
class Run:
    backend: str
    workers: int
    conversations: int
    created_per_s: float = 0.0
    create_errors: dict[str, int] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)
    verified: int = 0
    chain_failures: int = 0
    mismatched: int = 0  # chain verifies but holds another number of turns than were acknowledged
    rss_start_mb: list[float] = field(default_factory=list)
    rss_end_mb: list[float] = field(default_factory=list)
    skipped_steps: list[float] = field(default_factory=list)
    trace: load_trace.Sampler | None = None  # with --trace: the samples taken during the steps
    server_log: Path | None = None
    # CPU seconds the workers used during the steps (conversation creation and verification left out), per
    # worker: unlike latency on a shared machine, CPU time per turn hardly depends on what else runs.
    cpu_s: list[float] = field(default_factory=list)

    @property
    def cpu_ms_per_turn(self) -> float:
        turns = sum(len(step.ok_ms) for step in self.steps)
        return 1000 * sum(self.cpu_s) / turns if turns else 0.0


# -- servers ------------------------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (0.0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime (fields 14, 15)


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return 0.0


def stop_process(proc: subprocess.Popen[Any]) -> None:
    """SIGTERM (graceful: a server finishes its in-flight turns), then SIGKILL after 60 s."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class Server:
    """``grace serve --demo --workers N`` on a free loopback port; waits until every worker is ready."""

    def __init__(self, database_url: str, data_dir: Path, env: dict[str, str], log: Path, workers: int) -> None:
        cmd = [
            sys.executable, "-m", "engine.cli", "serve", "--demo", "--host", "127.0.0.1", "--port", "0",
            "--data-dir", str(data_dir), "--database-url", database_url, "--workers", str(workers),
        ]  # fmt: skip
        self._log = log.open("a", encoding="utf-8")
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=self._log, text=True)
        self.url = ""
        self.database_url = database_url
        self.pids: list[int] = []
        assert self.proc.stdout is not None
        deadline = time.monotonic() + 300
        while len(self.pids) < workers and time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            if "GRACE service on " in line:
                self.url = line.split("GRACE service on ", 1)[1].split()[0]
            if line.startswith("GRACE worker ") and line.rstrip().endswith(" ready"):
                self.pids.append(int(line.split(" pid ")[1].split()[0]))
        if not self.url or len(self.pids) < workers:
            self.stop()
            raise RuntimeError(f"server did not start (see {log})")
        if not self.url.startswith("http://127.0.0.1:"):
            self.stop()
            raise RuntimeError("refusing to benchmark a non-loopback server")
        self.port = int(self.url.rsplit(":", 1)[1])
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()  # drain the rest

    def stop(self) -> None:
        stop_process(self.proc)
        self._log.close()


def bench_env(tmp: Path, token: str, query_cache: int | None = None, heap_freeze: bool = True,
              log_commits: bool = False, switch_interval_ms: float | None = None,
              turn_workers: int | None = None) -> dict[str, str]:
    limits = json.loads(LIMITS.read_text(encoding="utf-8"))
    if switch_interval_ms is not None:
        limits["switch_interval_ms"] = switch_interval_ms
    if turn_workers is not None:
        limits["turn_workers"] = turn_workers
    if log_commits:  # --trace: every turn commit's phases go to the server log (storage.commit.slow)
        limits["slow_commit_log_ms"] = 0
    limits["freeze_heap_after_warm_up"] = limits["freeze_heap_after_warm_up"] and heap_freeze
    for bucket in limits["rate_limits"].values():
        bucket["capacity"], bucket["refill_per_second"] = 1_000_000, 1_000_000.0
    limits["rate_limit_max_clients"] = max(limits["rate_limit_max_clients"], 1000)
    limits["description"] = "load benchmark: rate limits lifted"
    limits_path = tmp / "limits.json"
    limits_path.write_text(json.dumps(limits), encoding="utf-8")
    env = dict(os.environ)
    path = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env.update({"GRACE_SERVICE_LIMITS": str(limits_path), "GRACE_OPERATOR_TOKEN": token, "PYTHONPATH": path})
    if query_cache is not None:
        env["GRACE_QUERY_CACHE_ENTRIES"] = str(query_cache)
    # One native thread per engine process, as ``grace serve`` sets by default (engine/service/native_threads).
    limit_native_threads(env)
    return env


# -- the open-loop driver -----------------------------------------------------------------------------


@dataclass
class Conversation:
    index: int
    cid: str
    token: str
    script: list[str]
    sent: int = 0
    acked: int = 0
    ready_at: float = 0.0


async def _create(pool: Pool, count: int, run: Run, limit: int = 16) -> list[Conversation]:
    gate = asyncio.Semaphore(limit)
    out: list[Conversation | None] = [None] * count

    async def one(i: int) -> None:
        goal, lang, script = SCRIPTS[i % len(SCRIPTS)]
        async with gate:
            try:
                reply = await pool.request("POST", "/v1/conversations", {"goal": goal, "language": lang})
            except (OSError, asyncio.IncompleteReadError) as exc:
                run.create_errors[type(exc).__name__] = run.create_errors.get(type(exc).__name__, 0) + 1
                return
        if reply.status != 201:
            code = reply.error_code()
            run.create_errors[code] = run.create_errors.get(code, 0) + 1
            return
        data = reply.json()
        out[i] = Conversation(i, data["conversation_id"], data["visitor_token"],
                              [m.format(n=i) for m in script])

    started = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(count)))
    run.created_per_s = count / max(time.perf_counter() - started, 1e-9)
    return [c for c in out if c is not None]


async def _step(pool: Pool, idle: deque[Conversation], step: Step, rng: random.Random, think_s: float,
                timeout_s: float) -> None:
    loop = asyncio.get_running_loop()
    pending: set[asyncio.Task[None]] = set()
    last_done = [0.0]

    async def turn(conv: Conversation, scheduled: float) -> None:
        started = loop.time()
        step.late_ms.append((started - scheduled) * 1000)
        port = 0
        message = conv.script[conv.sent]
        conv.sent += 1
        headers = {"Idempotency-Key": uuid.uuid4().hex, "X-Visitor-Token": conv.token}
        code = None
        try:
            reply = await asyncio.wait_for(
                pool.request("POST", f"/v1/conversations/{conv.cid}/turns", {"message": message}, headers,
                             key=conv.cid),
                timeout_s,
            )
            port = reply.port
            if reply.status != 200:
                code = reply.error_code()
        except TimeoutError:
            code = "client.timeout"
        except (OSError, asyncio.IncompleteReadError) as exc:
            code = f"client.{type(exc).__name__}"
        now = loop.time()
        last_done[0] = max(last_done[0], now)
        if code is None:
            conv.acked += 1
            step.ok_ms.append((now - scheduled) * 1000)
        else:
            step.errors[code] = step.errors.get(code, 0) + 1
        if step.trace is not None:
            step.trace.append(load_trace.TurnEvent(
                step.offered, wall0 + scheduled - start, (started - scheduled) * 1000, (now - scheduled) * 1000,
                port, code))
        if conv.sent < len(conv.script):
            conv.ready_at = now + think_s
            idle.append(conv)

    step.load = (load_average(), 0.0)
    start = loop.time()
    wall0 = time.time()
    arrival = start
    while True:
        arrival += rng.expovariate(step.offered)
        if arrival - start > step.seconds:
            break
        delay = arrival - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        step.issued += 1
        if not idle or idle[0].ready_at > loop.time():
            step.unserved += 1
            continue
        task = asyncio.create_task(turn(idle.popleft(), arrival))
        pending.add(task)
        task.add_done_callback(pending.discard)
    if pending:
        await asyncio.wait(set(pending))
    step.wall_s = max(last_done[0], start + step.seconds) - start
    step.load = (step.load[0], load_average())


async def _verify(pool: Pool, token: str, conversations: list[Conversation], run: Run) -> None:
    gate = asyncio.Semaphore(8)
    headers = {"Authorization": f"Bearer {token}"}

    async def one(conv: Conversation) -> None:
        async with gate:
            status = (await pool.request("GET", f"/v1/operator/conversations/{conv.cid}/audit/verify",
                                         headers=headers)).json()
        if not status.get("ok"):
            run.chain_failures += 1
        elif status.get("records") != conv.acked:
            run.mismatched += 1
        else:
            run.verified += 1

    await asyncio.gather(*(one(c) for c in conversations))


async def _drive(server: Server, args: argparse.Namespace, token: str, run: Run, deadline: float) -> None:
    pool = Pool("127.0.0.1", server.port, args.connections, args.reuse)
    try:
        conversations = await _create(pool, args.conversations, run)
        if args.reuse == "fifo":
            await pool.fill()
        rng = random.Random(args.seed)
        order = list(conversations)
        rng.shuffle(order)
        idle: deque[Conversation] = deque(order)
        sampler = None
        if args.trace is not None:
            sampler = load_trace.Sampler(server.pids, server.port, server.database_url if run.backend == "postgres"
                                         else None)
            sampler.start()
        cpu_before = [cpu_seconds(pid) for pid in server.pids]
        try:
            for rate in args.steps:
                if time.monotonic() + args.step_seconds > deadline:
                    run.skipped_steps.append(rate)
                    continue
                step = Step(offered=rate, seconds=args.step_seconds, trace=[] if sampler is not None else None)
                await _step(pool, idle, step, rng, args.think_s, args.request_timeout)
                run.steps.append(step)
        finally:
            if sampler is not None:
                sampler.stop()
                run.trace = sampler
        run.cpu_s = [round(cpu_seconds(pid) - before, 2) for pid, before in zip(server.pids, cpu_before, strict=True)]
        await _verify(pool, token, conversations, run)
    finally:
        pool.close()


def _run_async(coroutine: Coroutine[Any, Any, None]) -> None:
    """Run the client's event loop; in a thread of its own when the caller's thread already runs one (a test
    runner or a notebook), since asyncio allows one running loop per thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(coroutine)
        return
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, coroutine).result()


def run_config(backend: str, workers: int, url: str, args: argparse.Namespace, deadline: float) -> Run:
    token = secrets.token_urlsafe(24)
    run = Run(backend, workers, args.conversations)
    with tempfile.TemporaryDirectory(prefix="grace-load-") as tmp_name:
        env = bench_env(Path(tmp_name), token, args.query_cache, args.heap_freeze, log_commits=args.trace is not None,
                        switch_interval_ms=args.switch_interval_ms, turn_workers=args.turn_workers)
        run.server_log = args.data_dir / f"server-{backend}-{workers}.log"
        server = Server(url, args.data_dir, env, run.server_log, workers)
        try:
            run.rss_start_mb = [rss_mb(pid) for pid in server.pids]
            _run_async(_drive(server, args, token, run, deadline))
            run.rss_end_mb = [rss_mb(pid) for pid in server.pids]
        finally:
            server.stop()
    return run


# -- the in-process reference -------------------------------------------------------------------------


def in_process(backend: str, url: str, args: argparse.Namespace) -> InProcess:
    """The same scripts through ``TurnRuntime.handle`` in this process, one thread, no HTTP, same backend."""
    import logging

    import structlog

    from engine.service.heap import settle_heap
    from engine.service.limits import load_limits
    from engine.service.runner import build_from_args

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    ns = argparse.Namespace(demo=True, goals=[], corpus=[], rules=None, webhooks=None, cors_origin=[],
                            database_url=url, data_dir=args.data_dir, sqlite_synchronous=None)
    os.environ.setdefault("GRACE_OPERATOR_TOKEN", secrets.token_urlsafe(24))
    built = build_from_args(ns)  # warms every goal up, as a worker does
    settle_heap(freeze=load_limits(LIMITS).freeze_heap_after_warm_up and args.heap_freeze)  # as a worker does
    try:
        ms: list[float] = []
        cpu = 0.0
        conversations = max(1, -(-args.in_process_turns // len(SCRIPTS[0][2])))
        for i in range(conversations):
            goal, lang, script = SCRIPTS[i % len(SCRIPTS)]
            runtime = built.catalog.resolve(goal).runtime
            state = runtime.start(language=lang)
            for message in script:
                if len(ms) >= args.in_process_turns:
                    break
                t0, c0 = time.perf_counter(), time.process_time()
                runtime.handle(state.conversation_id, message.format(n=i))
                ms.append((time.perf_counter() - t0) * 1000)
                cpu += time.process_time() - c0
        # Turn time only, as in the HTTP steps (conversations are created before them, untimed).
        return InProcess(backend, len(ms), sum(ms) / 1000, ms, cpu)
    finally:
        built.close()
        gc.unfreeze()  # this process builds one service per backend: let the last one be reclaimed
        gc.collect()


# -- PostgreSQL schemas -------------------------------------------------------------------------------


def schema_url(url: str, schema: str) -> str:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"'.encode())
    separator = "&" if "?" in url else "?"
    return f"{url}{separator}options={quote(f'-csearch_path={schema}')}"


def drop_schema(url: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'.encode())


_postgres_schema_url = schema_url  # the names the crash benchmark and its test import
_drop_schema = drop_schema


class Database:
    """A fresh database for one run: a temporary SQLite file, or a throw-away PostgreSQL schema."""

    def __init__(self, backend: str, postgres_url: str) -> None:
        self.backend = backend
        self.postgres_url = postgres_url
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._schema: str | None = None

    def __enter__(self) -> str:
        if self.backend == "sqlite":
            self._tmp = tempfile.TemporaryDirectory(prefix="grace-load-db-")
            return f"sqlite:///{Path(self._tmp.name) / 'bench.db'}"
        self._schema = f"bench_{secrets.token_hex(6)}"
        return schema_url(self.postgres_url, self._schema)

    def __exit__(self, *_: object) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()
        if self._schema is not None:
            drop_schema(self.postgres_url, self._schema)


# -- report -------------------------------------------------------------------------------------------


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b else "-"


def report(runs: list[Run], references: dict[str, InProcess], slo_ms: float) -> list[str]:
    lines = []
    for backend, inproc in references.items():
        lines.append(
            f"in-process {backend:8} {inproc.turns} turns, one thread: {inproc.throughput:.1f} turns/s (1 / mean turn"
            f" time)  p50 {pct(inproc.ms, 50):.1f} ms  p95 {pct(inproc.ms, 95):.1f} ms  p99 {pct(inproc.ms, 99):.1f} ms"
            f"  CPU {inproc.cpu_ms_per_turn:.1f} ms per turn"
        )
    header = (f"{'config':12} {'offered/s':>9} {'achieved/s':>10} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} "
              f"{'errors':>6} {'unserved':>8} {'x thr':>6} {'x p50':>6} {'x p99':>6} {'load':>11} {'late99':>6}")
    lines += ["", header, "-" * len(header)]
    for run in runs:
        ref = references.get(run.backend)
        name = f"{run.backend}:{run.workers}"
        for step in run.steps:
            p50, p95, p99 = pct(step.ok_ms, 50), pct(step.ok_ms, 95), pct(step.ok_ms, 99)
            lines.append(
                f"{name:12} {step.offered:9.0f} {step.achieved:10.1f} {p50:8.1f} {p95:8.1f} {p99:8.1f} "
                f"{sum(step.errors.values()):6d} {step.unserved:8d} "
                f"{_ratio(step.achieved, ref.throughput) if ref else '-':>6} "
                f"{_ratio(p50, pct(ref.ms, 50)) if ref else '-':>6} {_ratio(p99, pct(ref.ms, 99)) if ref else '-':>6} "
                f"{step.load[0]:5.2f}-{step.load[1]:<5.2f} {pct(step.late_ms, 99):6.1f}"
            )
    lines.append("")
    for run in runs:
        name = f"{run.backend}:{run.workers}"
        saturated = next((s for s in run.steps if s.saturated(slo_ms)), None)
        sustained = [s for s in run.steps if not s.saturated(slo_ms)]
        best = max((s.achieved for s in run.steps), default=0.0)
        ref = references.get(run.backend)
        errors: dict[str, int] = {}
        for step in run.steps:
            for code, n in step.errors.items():
                errors[code] = errors.get(code, 0) + n
        lines.append(
            f"{name:12} saturation: "
            + (f"at offered {saturated.offered:.0f}/s (achieved {saturated.achieved:.1f}/s, p99 "
               f"{pct(saturated.ok_ms, 99):.0f} ms)" if saturated else "not reached")
            + f"; highest sustained step {max((s.offered for s in sustained), default=0):.0f}/s"
            f" (achieved <90% of offered, an error, an unserved arrival or p99 > {slo_ms:.0f} ms saturates)"
        )
        lines.append(
            f"{'':12} max achieved {best:.1f} turns/s = {best / run.workers:.1f} per worker"
            + (f" = {_ratio(best / run.workers, ref.throughput)} x in-process" if ref else "")
            + f"; created {run.conversations} conversations at {run.created_per_s:.0f}/s"
            + (f" (create errors {run.create_errors})" if run.create_errors else "")
            + (f"; errors {errors}" if errors else "")
        )
        lines.append(
            f"{'':12} audit chains verified {run.verified}/{run.conversations - sum(run.create_errors.values())}"
            f" (failures {run.chain_failures}, turn count mismatches {run.mismatched}); RSS per worker MB start "
            f"{run.rss_start_mb} after {run.rss_end_mb}; worker CPU during the steps {run.cpu_ms_per_turn:.1f} ms"
            f" per turn (s per worker {run.cpu_s})"
            + (f" = {_ratio(run.cpu_ms_per_turn, ref.cpu_ms_per_turn)} x in-process" if ref else "")
            + (f"; steps skipped (time budget): {run.skipped_steps}" if run.skipped_steps else "")
        )
    by_key = {(r.backend, r.workers): r for r in runs}
    one, two = by_key.get(("postgres", 1)), by_key.get(("postgres", 2))
    if one and two:
        best1 = max((s.achieved for s in one.steps), default=0.0)
        best2 = max((s.achieved for s in two.steps), default=0.0)
        lines.append(f"postgres throughput 2 workers / 1 worker: {_ratio(best2, best1)} (max achieved)")
    lines.append(f"machine: {os.cpu_count()} CPUs, load average now {load_average()} (client and servers share it)")
    return lines


# -- command line -------------------------------------------------------------------------------------


def _configs(text: str) -> list[tuple[str, int]]:
    out = []
    for item in text.split(","):
        backend, _, workers = item.strip().partition(":")
        if backend not in ("sqlite", "postgres") or not workers.isdigit() or not 1 <= int(workers) <= MAX_WORKERS:
            raise argparse.ArgumentTypeError(f"config {item!r}: expected sqlite:1 or postgres:N (N 1..{MAX_WORKERS})")
        if backend == "sqlite" and int(workers) != 1:
            raise argparse.ArgumentTypeError("sqlite serves one worker only")
        out.append((backend, int(workers)))
    return out


def _steps(text: str) -> list[float]:
    try:
        steps = [float(x) for x in text.split(",") if x.strip()]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"steps: {exc}") from exc
    if not 1 <= len(steps) <= MAX_STEPS or not all(0 < s <= MAX_RATE for s in steps):
        raise argparse.ArgumentTypeError(f"steps: 1..{MAX_STEPS} rates in (0, {MAX_RATE:.0f}] turns/s")
    return steps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="grace bench load", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conversations", type=int, default=1000,
                        help=f"concurrent conversations (1..{MAX_CONVERSATIONS})")
    parser.add_argument("--steps", type=_steps, default=_steps("25,50,100,200"), help="offered turns/s per step")
    parser.add_argument("--step-seconds", type=float, default=15.0,
                        help=f"length of each step (<= {MAX_STEP_SECONDS:.0f})")
    parser.add_argument("--think-s", type=float, default=1.0, help="a conversation's pause after each answer")
    parser.add_argument("--configs", type=_configs, default=_configs("sqlite:1,postgres:1,postgres:2"),
                        help="backend:workers list")
    parser.add_argument("--connections", type=int, default=64,
                        help="requests in flight at most, and with --reuse fifo|lifo the keep-alive connections"
                        " per server (1..1024)")
    parser.add_argument("--reuse", choices=REUSE, default="visitor",
                        help="which keep-alive connection a turn goes out on: visitor (default) the"
                        " conversation's own, as each visitor's browser keeps one (reopened after the keep-alive"
                        " timeout), so the kernel spreads conversations over the workers; fifo spreads turns over"
                        " --connections shared connections; lifo reuses the one used last")
    parser.add_argument("--request-timeout", type=float, default=30.0, help="seconds before a turn counts as failed")
    parser.add_argument("--in-process-turns", type=int, default=200, help="turns of the in-process reference run")
    parser.add_argument("--slo-p99-ms", type=float, default=150.0, help="p99 above this marks a step saturated")
    parser.add_argument("--max-seconds", type=float, default=1800.0, help="overall budget: later steps are skipped")
    parser.add_argument("--query-cache", type=int, default=None,
                        help="query embedding cache entries in the servers and the in-process run (0: off, every"
                        " question embedded afresh, as for unseen questions; default: the built-in size)")
    parser.add_argument("--no-heap-freeze", dest="heap_freeze", action="store_false",
                        help="servers and the in-process run keep their start-up heap in the garbage collector's"
                        " scans (freeze_heap_after_warm_up off), to measure what freezing it changes")
    parser.add_argument("--switch-interval-ms", type=float, default=None,
                        help="the servers' GIL switch interval (default: switch_interval_ms in limits.json; 5 is"
                        " CPython's own), to measure what it changes")
    parser.add_argument("--turn-workers", type=int, default=None,
                        help="turns a server answers and proposes at once (default: turn_workers in limits.json),"
                        " to measure what it changes")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--postgres-url", default=os.environ.get("GRACE_TEST_POSTGRES_URL", ""))
    parser.add_argument("--data-dir", type=Path, default=ROOT / ".grace" / "bench", help="audit key, embedding cache")
    parser.add_argument("--json", type=Path, default=None, help="also write the results to this JSON file")
    parser.add_argument("--trace", type=Path, default=None,
                        help="sample the machine, the workers and PostgreSQL during the steps, record every turn,"
                        " print where the slow turns (p99 over --slo-p99-ms) were and what ran beside them, and"
                        " keep the raw turns and samples in this folder (benchmarks/load_trace.py)")
    args = parser.parse_args(argv)
    if not 1 <= args.conversations <= MAX_CONVERSATIONS:
        parser.error(f"--conversations must be 1..{MAX_CONVERSATIONS}")
    if not 0 < args.step_seconds <= MAX_STEP_SECONDS or not 0 <= args.think_s <= 60:
        parser.error(f"--step-seconds must be in (0, {MAX_STEP_SECONDS:.0f}] and --think-s in [0, 60]")
    if not 1 <= args.connections <= 1024 or not 1 <= args.in_process_turns <= 5000:
        parser.error("--connections must be 1..1024 and --in-process-turns 1..5000")
    if args.turn_workers is not None and not 1 <= args.turn_workers <= 64:
        parser.error("--turn-workers must be 1..64")
    args.data_dir = args.data_dir.resolve()
    args.data_dir.mkdir(parents=True, exist_ok=True)
    # Past its budget a run finishes its step, verifies every chain and stops its servers; far past it, it is stuck.
    with bounded_run(args.max_seconds + STUCK_AFTER_BUDGET_S, "grace bench load"):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    deadline = time.monotonic() + args.max_seconds
    configs = [c for c in args.configs if c[0] == "sqlite" or args.postgres_url]
    if len(configs) < len(args.configs):
        print("postgres: skipped (set GRACE_TEST_POSTGRES_URL or --postgres-url)", file=sys.stderr)

    # The in-process reference runs with the servers' native-thread setting, or the ratios would compare two
    # configurations (before any native library loads in this process).
    limit_native_threads(os.environ)
    cache = "default" if args.query_cache is None else str(args.query_cache)
    print(f"load average at start {load_average()}; {args.conversations} conversations, steps {args.steps} "
          f"turns/s x {args.step_seconds:.0f} s, think {args.think_s} s, query cache {cache}, "
          f"heap freeze {'on' if args.heap_freeze else 'off'}, switch interval "
          f"{args.switch_interval_ms if args.switch_interval_ms is not None else 'default'} ms, turn workers "
          f"{args.turn_workers or 'default'}, connections"
          f" {args.reuse} (at most {args.connections} requests in flight)",
          flush=True)
    if args.query_cache is not None:
        os.environ["GRACE_QUERY_CACHE_ENTRIES"] = str(args.query_cache)  # the in-process run's embedder
    references: dict[str, InProcess] = {}
    for backend in dict.fromkeys(b for b, _ in configs):  # in-process first: no server competes for the CPU
        with Database(backend, args.postgres_url) as url:
            references[backend] = in_process(backend, url, args)
    # The client's own full collections would stall its event loop and count as server latency: the in-process
    # runs left their caches (the packaged ZIP table, models) in this process, so exempt them from the scans.
    gc.collect()
    gc.freeze()
    runs: list[Run] = []
    for backend, workers in configs:
        with Database(backend, args.postgres_url) as url:
            runs.append(run_config(backend, workers, url, args, deadline))
        print(f"  done {backend}:{workers} (load average {load_average()})", flush=True)
    for line in report(runs, references, args.slo_p99_ms):
        print(line)
    if args.trace is not None:
        for run in runs:
            if run.trace is None:
                continue
            turns = [t for step in run.steps for t in (step.trace or [])]
            commits = (load_trace.commit_events(run.server_log, min(t.scheduled for t in turns))
                       if run.server_log is not None and run.backend == "postgres" and turns else None)
            name = f"{run.backend}-{run.workers}"
            load_trace.save(args.trace, name, turns, run.trace.samples, run.trace.owners, run.trace.pids)
            print(f"\ntrace {run.backend}:{run.workers} (raw: {args.trace / name}.*.jsonl)")
            for line in load_trace.analyse(turns, run.trace.samples, run.trace.owners, run.trace.pids,
                                           args.slo_p99_ms, commits):
                print(line)
    if args.json is not None:
        args.json.write_text(json.dumps({
            "in_process": {b: {"turns": r.turns, "turns_per_s": r.throughput, "p50_ms": pct(r.ms, 50),
                               "p99_ms": pct(r.ms, 99), "cpu_ms_per_turn": r.cpu_ms_per_turn}
                           for b, r in references.items()},
            "runs": [{"backend": r.backend, "workers": r.workers, "verified": r.verified,
                      "chain_failures": r.chain_failures, "mismatched": r.mismatched,
                      "rss_start_mb": r.rss_start_mb, "rss_end_mb": r.rss_end_mb,
                      "cpu_s": r.cpu_s, "cpu_ms_per_turn": r.cpu_ms_per_turn,
                      "steps": [{"offered": s.offered, "achieved": s.achieved, "p50_ms": pct(s.ok_ms, 50),
                                 "p95_ms": pct(s.ok_ms, 95), "p99_ms": pct(s.ok_ms, 99), "errors": s.errors,
                                 "unserved": s.unserved, "load": list(s.load),
                                 "client_late_p99_ms": pct(s.late_ms, 99)} for s in r.steps]}
                     for r in runs],
        }, indent=2), encoding="utf-8")
    return 1 if any(r.chain_failures or r.mismatched for r in runs) else 0


if __name__ == "__main__":
    raise SystemExit(main())

