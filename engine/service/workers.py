"""``grace serve --workers N``: N engine processes serving one port, sharing PostgreSQL.

Why processes: Z3 and durable-rules are process-wide and not thread-safe, so each process runs its decisions
on one engine thread (``engine_thread``); throughput comes from more processes. The supervisor (this module's
``supervise``) reserves the port once and starts each worker as a fresh interpreter; on Linux each worker, once
warm, listens on a ``SO_REUSEPORT`` socket of its own on that port so the kernel spreads connections over the
workers (elsewhere they inherit one shared listening socket; see ``listeners``). The supervisor

* forwards SIGTERM/SIGINT to every worker, each of which stops accepting, finishes its in-flight turns
  (uvicorn's graceful shutdown) and exits; the supervisor exits when all have;
* restarts a worker that died on its own (a bounded number of times per minute), so one crash does not
  halve capacity for good.

Per-conversation ordering across processes is the store's: ``commit_turn`` locks the conversation row and
compares the turn number, so a turn computed on a stale state is refused and re-run (``engine.service.turns``).
SQLite is one file on one host with one writer, so more than one worker needs PostgreSQL.
"""

from __future__ import annotations

import argparse
import base64
import os
import pickle
import signal
import socket
import subprocess
import sys
import time
from types import FrameType

import structlog

from engine.errors import InputError

log = structlog.get_logger("engine.service.workers")

MAX_WORKERS = 64
ENV_ARGS = "GRACE_WORKER_ARGS"  # the parsed ``grace serve`` arguments, pickled (parent -> its own children)
ENV_FD = "GRACE_WORKER_FD"  # the shared listening socket (fallback where SO_REUSEPORT does not balance)
ENV_PORT = "GRACE_WORKER_PORT"  # the reserved port each worker listens on with a socket of its own
ENV_INDEX = "GRACE_WORKER_INDEX"
RESTARTS_PER_MINUTE = 5
POLL_S = 0.2


def is_postgres(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


def check_workers(workers: int, database_url: str) -> None:
    """Refuse a worker count the store cannot serve, before anything slow is loaded."""
    if not 1 <= workers <= MAX_WORKERS:
        raise InputError(f"--workers must be 1..{MAX_WORKERS}, got {workers}", code="service.workers_invalid")
    if workers > 1 and not is_postgres(database_url):
        raise InputError(
            "--workers > 1 needs PostgreSQL (--database-url postgresql://...): SQLite serves one process",
            code="service.workers_need_postgres",
        )


class Supervisor:
    def __init__(
        self, args: argparse.Namespace, sock: socket.socket, env: dict[str, str], *, per_worker: bool
    ) -> None:
        self.args = args
        self.sock = sock
        self.per_worker = per_worker
        self.env = env
        self.procs: dict[int, subprocess.Popen[bytes]] = {}
        self.stopping = False
        self.restarts: list[float] = []

    def _spawn(self, index: int) -> None:
        env = dict(self.env)
        env[ENV_ARGS] = base64.b64encode(pickle.dumps(self.args)).decode()
        env[ENV_INDEX] = str(index)
        env.pop(ENV_FD, None)
        env.pop(ENV_PORT, None)
        if self.per_worker:
            env[ENV_PORT] = str(self.sock.getsockname()[1])
        else:
            env[ENV_FD] = str(self.sock.fileno())
        # A session of its own: a terminal's Ctrl-C reaches the supervisor only, which forwards one SIGTERM.
        self.procs[index] = subprocess.Popen(
            [sys.executable, "-c", "from engine.service.workers import worker_main; raise SystemExit(worker_main())"],
            env=env, pass_fds=() if self.per_worker else (self.sock.fileno(),), start_new_session=True,
        )
        log.info("service.worker.started", index=index, pid=self.procs[index].pid)

    def _on_signal(self, signum: int, _: FrameType | None) -> None:
        if not self.stopping:
            log.warning("service.workers.stopping", signal=signal.Signals(signum).name, workers=len(self.procs))
        self.stopping = True
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)

    def run(self) -> int:
        previous = {sig: signal.signal(sig, self._on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
        try:
            for index in range(self.args.workers):
                self._spawn(index)
            return self._watch()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _watch(self) -> int:
        worst = 0
        while True:
            alive = 0
            for index, proc in list(self.procs.items()):
                code = proc.poll()
                if code is None:
                    alive += 1
                    continue
                if self.stopping:
                    # Killed by our own SIGTERM while still starting up (nothing in flight yet) is a clean stop.
                    worst = max(worst, 0 if code in (0, -signal.SIGTERM) else abs(code))
                    continue
                if not self._may_restart():
                    log.error("service.worker.crash_loop", index=index, code=code)
                    self._on_signal(signal.SIGTERM, None)
                    worst = max(worst, 1)
                    continue
                log.error("service.worker.died", index=index, code=code)
                self._spawn(index)
                alive += 1
            if alive == 0:
                return worst
            time.sleep(POLL_S)

    def _may_restart(self) -> bool:
        now = time.monotonic()
        self.restarts = [t for t in self.restarts if now - t < 60.0] + [now]
        return len(self.restarts) <= RESTARTS_PER_MINUTE


def supervise(args: argparse.Namespace, sock: socket.socket, env: dict[str, str], *, per_worker: bool) -> int:
    """Run ``args.workers`` workers; ``sock`` is the reserved port (``per_worker``) or the shared listening
    socket."""
    return Supervisor(args, sock, env, per_worker=per_worker).run()


def worker_main() -> int:
    """Entry point of one worker process: rebuild the service from the supervisor's arguments, serve the
    port until SIGTERM."""
    from engine.cli import _configure_logging
    from engine.errors import GraceError
    from engine.service import listeners
    from engine.service.serving import run_server

    _configure_logging()
    args = pickle.loads(base64.b64decode(os.environ[ENV_ARGS]))  # written by our own supervisor, never input
    index = int(os.environ[ENV_INDEX])

    def listener() -> socket.socket:
        if ENV_PORT in os.environ:
            return listeners.listen_shared_port(args.host, int(os.environ[ENV_PORT]))
        return socket.socket(fileno=int(os.environ[ENV_FD]))

    try:
        return run_server(args, listener, index=index, print_banner=index == 0)
    except GraceError as exc:
        print(f"error {exc.code}: {exc.message}", file=sys.stderr)
        return 2
