"""Load benchmark of the HTTP service: N concurrent conversations against local `grace serve --demo`
processes (loopback only), on SQLite and on PostgreSQL. Reports turns/s and p50/p99 turn latency, then checks
every conversation afterwards (turn count and audit-chain verification) so speed never hides a lost update.

    python -m benchmarks.load_bench                                  # SQLite, plus PostgreSQL if configured
    python -m benchmarks.load_bench --conversations 32 --turns 5 --processes 2 --backend postgres \\
        --postgres-url "$GRACE_TEST_POSTGRES_URL"

Each conversation is one real-estate or cleaning lead (EN or ES) driven turn by turn, every turn with its
own Idempotency-Key. Rate limits are lifted for the run (a copy of limits.json with large buckets): the
benchmark measures the engine, not the limiter. Server processes share one database; conversations are
spread over them round-robin. PostgreSQL runs inside a throw-away schema that is dropped afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

ROOT = Path(__file__).resolve().parent.parent
LIMITS = ROOT / "engine" / "service" / "limits.json"
MAX_CONVERSATIONS = 256  # bounded: this is a local benchmark, not a load generator for other hosts
MAX_PROCESSES = 8

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


@dataclass
class Result:
    backend: str
    processes: int
    conversations: int
    turns: int
    wall_s: float
    latencies_ms: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    verified: int = 0
    chain_failures: int = 0

    def summary(self) -> dict[str, Any]:
        lat = sorted(self.latencies_ms)
        return {
            "backend": self.backend,
            "processes": self.processes,
            "conversations": self.conversations,
            "turns": self.turns,
            "wall_s": round(self.wall_s, 3),
            "turns_per_s": round(self.turns / self.wall_s, 1) if self.wall_s else 0.0,
            "p50_ms": round(_pct(lat, 50), 1),
            "p99_ms": round(_pct(lat, 99), 1),
            "max_ms": round(lat[-1], 1) if lat else 0.0,
            "errors": self.errors,
            "verified_conversations": self.verified,
            "chain_failures": self.chain_failures,
        }


def _pct(sorted_values: list[float], pct: float) -> float:
    if not sorted_values:
        return 0.0
    index = min(len(sorted_values) - 1, max(0, round(pct / 100 * len(sorted_values) + 0.5) - 1))
    return sorted_values[index]


class Server:
    """One `grace serve --demo` process on a free loopback port."""

    def __init__(self, database_url: str, data_dir: Path, env: dict[str, str], log: Path) -> None:
        cmd = [
            sys.executable, "-m", "engine.cli", "serve", "--demo", "--host", "127.0.0.1", "--port", "0",
            "--data-dir", str(data_dir), "--database-url", database_url,
        ]  # fmt: skip
        self._log = log.open("a", encoding="utf-8")
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=self._log, text=True)
        assert self.proc.stdout is not None
        first = ""
        for _ in range(200):  # the banner: "GRACE service on http://127.0.0.1:PORT  (store: ...)"
            first = self.proc.stdout.readline()
            if not first or "GRACE service on " in first:
                break
        if "GRACE service on " not in first:
            self.stop()
            raise RuntimeError(f"server did not start: {first!r}")
        self.url = first.split("GRACE service on ", 1)[1].split()[0]
        if not self.url.startswith("http://127.0.0.1:"):
            self.stop()
            raise RuntimeError("refusing to benchmark a non-loopback server")
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()  # drain the rest of the banner
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError("server never became healthy")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()


def _bench_env(tmp: Path, token: str) -> dict[str, str]:
    limits = json.loads(LIMITS.read_text(encoding="utf-8"))
    for bucket in limits["rate_limits"].values():
        bucket["capacity"], bucket["refill_per_second"] = 1_000_000, 1_000_000.0
    limits["description"] = "load benchmark: rate limits lifted"
    limits_path = tmp / "limits.json"
    limits_path.write_text(json.dumps(limits), encoding="utf-8")
    env = dict(os.environ)
    path = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env.update({"GRACE_SERVICE_LIMITS": str(limits_path), "GRACE_OPERATOR_TOKEN": token, "PYTHONPATH": path})
    # One BLAS thread per engine process: several processes each spinning a BLAS pool per core on a small
    # machine produced multi-second stalls (the engine runs one turn at a time anyway).
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(name, "1")
    return env


def _conversation(base: str, index: int, turns: int, result: Result, lock: threading.Lock) -> str | None:
    goal, lang, script = SCRIPTS[index % len(SCRIPTS)]
    with httpx.Client(base_url=base, timeout=60) as client:
        created = client.post("/v1/conversations", json={"goal": goal, "language": lang})
        if created.status_code != 201:
            with lock:
                code = f"create.{created.status_code}"
                result.errors[code] = result.errors.get(code, 0) + 1
            return None
        cid: str = created.json()["conversation_id"]
        visitor_token: str = created.json()["visitor_token"]
        for turn in range(turns):
            message = script[turn % len(script)].format(n=index)
            started = time.perf_counter()
            response = client.post(
                f"/v1/conversations/{cid}/turns",
                json={"message": message},
                headers={"Idempotency-Key": uuid.uuid4().hex, "X-Visitor-Token": visitor_token},
            )
            elapsed = (time.perf_counter() - started) * 1000
            with lock:
                if response.status_code == 200:
                    result.latencies_ms.append(elapsed)
                else:
                    code = response.json().get("error", {}).get("code", str(response.status_code))
                    result.errors[code] = result.errors.get(code, 0) + 1
        return cid


def _verify(base: str, token: str, cids: list[str], turns: int, result: Result) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=base, timeout=60, headers=headers) as client:
        for cid in cids:
            status = client.get(f"/v1/operator/conversations/{cid}/audit/verify").json()
            state = client.get(f"/v1/operator/conversations/{cid}").json()["state"]
            if status.get("ok") and status.get("records") == turns and state["turn"] == turns:
                result.verified += 1
            else:
                result.chain_failures += 1


def run(backend: str, database_url: str, args: argparse.Namespace, data_dir: Path) -> Result:
    token = secrets.token_urlsafe(24)
    with tempfile.TemporaryDirectory(prefix="grace-load-") as tmp_name:
        env = _bench_env(Path(tmp_name), token)
        servers: list[Server] = []
        try:
            for index in range(args.processes):
                servers.append(Server(database_url, data_dir, env, data_dir / f"server-{backend}-{index}.log"))
            # Warm-up, untimed: one conversation per script and process (each language's first answer loads
            # its analyzers lazily, which would otherwise stall the queue behind it).
            warm = Result(backend, args.processes, 0, 0, 0.0)
            for server in servers:
                for index in range(len(SCRIPTS)):
                    _conversation(server.url, index, 2, warm, threading.Lock())
            result = Result(backend, args.processes, args.conversations, 0, 0.0)
            lock = threading.Lock()
            started = time.perf_counter()
            with ThreadPoolExecutor(max_workers=args.conversations) as pool:
                futures = [
                    pool.submit(_conversation, servers[i % len(servers)].url, i, args.turns, result, lock)
                    for i in range(args.conversations)
                ]
                cids = [cid for cid in (f.result() for f in futures) if cid is not None]
            result.wall_s = time.perf_counter() - started
            result.turns = len(result.latencies_ms)
            _verify(servers[0].url, token, cids, args.turns, result)
            return result
        finally:
            for server in servers:
                server.stop()


def _postgres_schema_url(url: str, schema: str) -> str:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"'.encode())
    separator = "&" if "?" in url else "?"
    return f"{url}{separator}options={quote(f'-csearch_path={schema}')}"


def _drop_schema(url: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'.encode())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--conversations", type=int, default=16, help=f"concurrent conversations (<= {MAX_CONVERSATIONS})"
    )
    parser.add_argument("--turns", type=int, default=5, help="turns per conversation (<= 50)")
    parser.add_argument(
        "--processes", type=int, default=1, help=f"server processes on one database (<= {MAX_PROCESSES})"
    )
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--postgres-url", default=os.environ.get("GRACE_TEST_POSTGRES_URL", ""))
    parser.add_argument("--data-dir", type=Path, default=ROOT / ".grace" / "bench", help="audit key, embedding cache")
    parser.add_argument("--json", action="store_true", help="print one JSON object per backend")
    args = parser.parse_args(argv)
    if not 1 <= args.conversations <= MAX_CONVERSATIONS or not 1 <= args.turns <= 50:
        parser.error("conversations must be 1..256 and turns 1..50")
    if not 1 <= args.processes <= MAX_PROCESSES:
        parser.error(f"processes must be 1..{MAX_PROCESSES}")
    args.data_dir.mkdir(parents=True, exist_ok=True)

    backends = ["sqlite", "postgres"] if args.backend == "both" else [args.backend]
    results: list[Result] = []
    for backend in backends:
        if backend == "sqlite":
            with tempfile.TemporaryDirectory(prefix="grace-load-db-") as db_dir:
                results.append(run("sqlite", f"sqlite:///{Path(db_dir) / 'bench.db'}", args, args.data_dir))
            continue
        if not args.postgres_url:
            print("postgres: skipped (set GRACE_TEST_POSTGRES_URL or --postgres-url)", file=sys.stderr)
            continue
        schema = f"bench_{secrets.token_hex(6)}"
        url = _postgres_schema_url(args.postgres_url, schema)
        try:
            results.append(run("postgres", url, args, args.data_dir))
        finally:
            _drop_schema(args.postgres_url, schema)

    for result in results:
        summary = result.summary()
        if args.json:
            print(json.dumps(summary))
        else:
            print(
                f"{summary['backend']:8} processes={summary['processes']} conversations={summary['conversations']} "
                f"turns={summary['turns']} wall={summary['wall_s']}s turns/s={summary['turns_per_s']} "
                f"p50={summary['p50_ms']}ms p99={summary['p99_ms']}ms max={summary['max_ms']}ms "
                f"errors={summary['errors'] or 0} verified={summary['verified_conversations']}/"
                f"{summary['conversations']} chain_failures={summary['chain_failures']}"
            )
    return 1 if any(r.chain_failures or r.errors for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
