"""Server CPU per sequential HTTP turn of two code trees, side by side, turns alternating between them:

    git archive <commit> | tar -x -C /tmp/before   # plus .grace/bench/audit.key and embeddings for --demo
    python -m benchmarks.service_cpu_ab --rounds 6 --turns 150 /tmp/before .

On a shared machine the CPU time of one turn moves by 15-20 % from one minute to the next with what else runs;
run one after the other, two trees compare that drift more than the code. Here both servers (``grace serve
--demo``, one worker, SQLite each) run at once, each turn goes to one and then the same turn to the other, and
every round of ``--turns`` turns per server prints both servers' CPU per turn (/proc, user + system), then the
median and minimum per tree. The first round is a warm-up and is not counted. Each tree runs with its own
code (``PYTHONPATH``) and this interpreter.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from contextlib import ExitStack
from pathlib import Path

from benchmarks.load_bench import Database, bench_env, cpu_seconds, stop_process
from benchmarks.load_client import Pool
from benchmarks.service_cpu import plan_turns


class TreeServer:
    """``grace serve --demo`` from the code in ``tree`` on a loopback port, with its own SQLite file (or the
    PostgreSQL schema ``database_url`` names)."""

    def __init__(self, tree: Path, tmp: Path, name: str, database_url: str | None = None) -> None:
        env = bench_env(tmp, secrets.token_urlsafe(24))
        env["PYTHONPATH"] = str(tree)
        cmd = [sys.executable, "-m", "engine.cli", "serve", "--demo", "--host", "127.0.0.1", "--port", "0",
               "--data-dir", str(tree / ".grace" / "bench"),
               "--database-url", database_url or f"sqlite:///{tmp / name}.db", "--workers", "1"]
        self._log = (tmp / f"{name}.log").open("w", encoding="utf-8")
        self.proc = subprocess.Popen(cmd, cwd=tree, env=env, stdout=subprocess.PIPE, stderr=self._log, text=True)
        assert self.proc.stdout is not None
        self.port = self.pid = 0
        deadline = time.monotonic() + 300
        while not self.pid and time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            if "GRACE service on " in line:
                self.port = int(line.split("GRACE service on ", 1)[1].split()[0].rsplit(":", 1)[1])
            if line.startswith("GRACE worker ") and line.rstrip().endswith(" ready"):
                self.pid = int(line.split(" pid ")[1].split()[0])
        if not self.pid or not self.port:
            self.stop()
            raise RuntimeError(f"the server of {tree} did not start (see {tmp / name}.log)")
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()

    def stop(self) -> None:
        stop_process(self.proc)
        self._log.close()


async def _rounds(servers: list[TreeServer], names: list[str], rounds: int, turns: int) -> list[list[float]]:
    pools = [Pool("127.0.0.1", s.port, 1) for s in servers]
    per_turn: list[list[float]] = [[] for _ in servers]
    try:
        for number in range(rounds + 1):
            plans = [await plan_turns(pool, turns) for pool in pools]  # conversations are created outside the window
            before = [cpu_seconds(s.pid) for s in servers]
            for i in range(turns):
                for pool, plan in zip(pools, plans, strict=True):
                    cid, token, message = plan[i]
                    reply = await pool.request("POST", f"/v1/conversations/{cid}/turns", {"message": message},
                                               {"Idempotency-Key": uuid.uuid4().hex, "X-Visitor-Token": token})
                    if reply.status != 200:
                        raise RuntimeError(f"turn answered {reply.status}")
            after = [cpu_seconds(s.pid) for s in servers]
            if number == 0:
                continue
            for k in range(len(servers)):
                per_turn[k].append(1000 * (after[k] - before[k]) / turns)
            row = "  ".join(f"{name} {values[-1]:5.2f}" for name, values in zip(names, per_turn, strict=True))
            print(f"round {number}: {row} ms/turn  load average {os.getloadavg()[0]:.2f}", flush=True)
    finally:
        for pool in pools:
            pool.close()
    return per_turn


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trees", type=Path, nargs=2, help="two checkouts (each with .grace/bench for --demo)")
    parser.add_argument("--rounds", type=int, default=6, help="measured rounds (1..50)")
    parser.add_argument("--turns", type=int, default=150, help="turns per server per round (1..2000)")
    parser.add_argument("--postgres", action="store_true",
                        help="each server on its own throw-away PostgreSQL schema (GRACE_TEST_POSTGRES_URL)")
    args = parser.parse_args(argv)
    if not 1 <= args.rounds <= 50 or not 1 <= args.turns <= 2000:
        parser.error("--rounds must be 1..50 and --turns 1..2000")
    trees = [t.resolve() for t in args.trees]
    names = [t.name for t in trees]
    postgres_url = os.environ.get("GRACE_TEST_POSTGRES_URL", "")
    if args.postgres and not postgres_url:
        raise SystemExit("--postgres needs GRACE_TEST_POSTGRES_URL")
    with tempfile.TemporaryDirectory(prefix="grace-svc-ab-") as tmp_name, ExitStack() as databases:
        servers: list[TreeServer] = []
        try:
            for k, tree in enumerate(trees):
                url = databases.enter_context(Database("postgres", postgres_url)) if args.postgres else None
                servers.append(TreeServer(tree, Path(tmp_name), f"s{k}", url))
            per_turn = asyncio.run(_rounds(servers, names, args.rounds, args.turns))
        finally:
            for server in servers:
                server.stop()
    print(f"# benchmarks.service_cpu_ab ({'postgres' if args.postgres else 'sqlite'}): {args.rounds} rounds x"
          f" {args.turns} sequential HTTP turns per server, alternating; {os.cpu_count()} CPUs shared (upper bounds)")
    for tree, values in zip(trees, per_turn, strict=True):
        ordered = sorted(values)
        print(f"{tree}: median {ordered[len(ordered) // 2]:.2f}  min {ordered[0]:.2f} ms server CPU per turn")
    return 0


if __name__ == "__main__":
    sys.exit(main())
