"""Crash consistency of the HTTP service: kill -9 at random points while several clients post turns.

    grace bench crash [--kills 10] [--clients 6] [--seed 1] [--backend sqlite|postgres|both]

A `grace serve` subprocess (the published demo specs, offline proposer, no answerer so that each run is about the
store) is SIGKILLed at random moments and restarted on the same database and audit key. Clients keep posting;
a request that got no answer is retried with the same Idempotency-Key on the restarted server. Afterwards every
conversation is checked: every acknowledged turn is stored with its message, the audit chain verifies, the
stored state, the messages and the records agree on the turn count (no half-written turn). PostgreSQL runs in a
throw-away schema when GRACE_TEST_POSTGRES_URL (or --postgres-url) is set.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
# httpx.post/get build a client per call, and with it a TLS context that loads the CA bundle (tens of ms, most of a
# request's client-side cost here): the clients make one, once. The loopback URLs are plain HTTP either way.
TLS = httpx.create_ssl_context()
GOALS = [ROOT / "demos/real_estate/published", ROOT / "demos/cleaning/published"]
SCRIPTS = [
    ("real-estate", "en", ["My budget is around {n}000 euros.", "Something in Mojácar, near the beach.",
                           "Three bedrooms and parking.", "You can reach me at lead{n}@example.com"]),
    ("cleaning", "es", ["Somos una comunidad de vecinos en Almería.", "Queremos limpieza semanal.",
                        "Mi correo es cliente{n}@example.es", "Gracias."]),
]


class Service:
    """`grace serve --goals …` on a free loopback port; the same data dir (audit key) and database every start."""

    def __init__(self, database_url: str, data_dir: Path, env: dict[str, str]) -> None:
        self.database_url, self.data_dir, self.env = database_url, data_dir, env
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""
        self.starts = 0

    def start(self) -> None:
        cmd = [sys.executable, "-m", "engine.cli", "serve", "--host", "127.0.0.1", "--port", "0",
               "--data-dir", str(self.data_dir), "--database-url", self.database_url]
        for goal in GOALS:
            cmd += ["--goals", str(goal)]
        log = (self.data_dir / "server.log").open("a", encoding="utf-8")
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=self.env, stdout=subprocess.PIPE, stderr=log, text=True)
        log.close()
        assert self.proc.stdout is not None
        line = ""
        for _ in range(200):
            line = self.proc.stdout.readline()
            if not line or "GRACE service on " in line:
                break
        if "GRACE service on " not in line:
            self.kill()
            raise RuntimeError(f"server did not start (see {self.data_dir / 'server.log'})")
        url = line.split("GRACE service on ", 1)[1].split()[0]
        if not url.startswith("http://127.0.0.1:"):
            self.kill()
            raise RuntimeError("refusing a non-loopback server")
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/healthz", timeout=2, verify=TLS).status_code == 200:
                    self._warm(url)
                    self.url = url
                    self.starts += 1
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        self.kill()
        raise RuntimeError("server never became healthy")

    @staticmethod
    def _warm(url: str) -> None:
        """One turn per script language before clients come back, so that kills land among real commits rather
        than always inside the first turn's lazy loading."""
        for goal, language, script in SCRIPTS:
            created = httpx.post(f"{url}/v1/conversations", json={"goal": goal, "language": language}, timeout=60,
                                 verify=TLS)
            if created.status_code == 201:
                body = created.json()
                httpx.post(f"{url}/v1/conversations/{body['conversation_id']}/turns",
                           json={"message": script[0].format(n=0)}, headers=_visitor_headers(body), timeout=60,
                           verify=TLS)

    def kill(self) -> None:
        """SIGKILL: no shutdown handler, no flush, no goodbye."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.url = ""

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()


@dataclass
class Outcome:
    backend: str
    kills: int = 0
    acknowledged: int = 0
    unacknowledged_attempts: int = 0
    replayed: int = 0
    conversations: int = 0
    missing_turns: list[str] = field(default_factory=list)
    chain_failures: list[str] = field(default_factory=list)
    half_written: list[str] = field(default_factory=list)
    duplicated: list[str] = field(default_factory=list)  # a retried turn stored twice (idempotency lost)
    errors: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def consistent(self) -> bool:
        return not (self.missing_turns or self.chain_failures or self.half_written or self.duplicated)

    def render(self) -> str:
        return (f"{self.backend}: kills {self.kills}, conversations {self.conversations}, acknowledged turns "
                f"{self.acknowledged}, retried after no answer {self.unacknowledged_attempts} (idempotent replays "
                f"{self.replayed}); lost acknowledged turns {len(self.missing_turns)}, chain failures "
                f"{len(self.chain_failures)}, half-written turns {len(self.half_written)}, duplicated turns "
                f"{len(self.duplicated)}; http errors "
                f"{self.errors or '{}'}; {self.seconds:.1f} s")


def _visitor_headers(created: dict[str, Any]) -> dict[str, str]:
    """A visitor capability token, when the create response carries one (sent the usual ways)."""
    token = created.get("visitor_token") or created.get("token")
    return {"Authorization": f"Bearer {token}", "X-Visitor-Token": str(token)} if token else {}


class _Client(threading.Thread):
    """Drives conversations turn by turn; a turn counts as acknowledged only on a 200 answer."""

    def __init__(self, index: int, service: Service, stop: threading.Event, outcome: Outcome,
                 acknowledged: dict[str, dict[int, str]], lock: threading.Lock, turns: int) -> None:
        super().__init__(daemon=True)
        self.index, self.service, self.stop_event, self.outcome = index, service, stop, outcome
        self.acknowledged, self.lock, self.turns = acknowledged, lock, turns

    def _post(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> httpx.Response | None:
        """POST until some server answers (the server may be dead or restarting); None once stopped."""
        first = True
        while not self.stop_event.is_set():
            url = self.service.url
            if not url:
                time.sleep(0.05)
                continue
            try:
                response = httpx.post(url + path, json=body, headers=headers, timeout=30, verify=TLS)
            except httpx.HTTPError:
                if first:
                    with self.lock:
                        self.outcome.unacknowledged_attempts += 1
                first = False
                time.sleep(0.05)
                continue
            return response
        return None

    def run(self) -> None:
        n = 0
        while not self.stop_event.is_set():
            goal, language, script = SCRIPTS[(self.index + n) % len(SCRIPTS)]
            created = self._post("/v1/conversations", {"goal": goal, "language": language}, {})
            if created is None:
                return
            if created.status_code != 201:
                self._error(created)
                continue
            body = created.json()
            cid, headers = body["conversation_id"], _visitor_headers(body)
            with self.lock:
                self.acknowledged[cid] = {}
            for turn in range(1, self.turns + 1):
                message = script[(turn - 1) % len(script)].format(n=self.index * 1000 + n)
                key = uuid.uuid4().hex  # one key per turn: retries after a crash are the same request
                response = self._post(f"/v1/conversations/{cid}/turns", {"message": message},
                                      {**headers, "Idempotency-Key": key})
                if response is None:
                    return
                if response.status_code != 200:
                    self._error(response)
                    break
                with self.lock:
                    self.acknowledged[cid][int(response.json()["turn"])] = message
                    self.outcome.acknowledged += 1
                    self.outcome.replayed += response.headers.get("Idempotent-Replayed") == "true"
            n += 1

    def _error(self, response: httpx.Response) -> None:
        try:
            code = str(response.json()["error"]["code"])
        except (ValueError, KeyError, TypeError):
            code = str(response.status_code)
        with self.lock:
            self.outcome.errors[code] = self.outcome.errors.get(code, 0) + 1


def check(client: httpx.Client, acknowledged: dict[str, dict[int, str]], outcome: Outcome) -> None:
    """Every acknowledged turn present with its message; chain verifies; state, messages and records agree.
    ``client`` talks to the restarted service with the operator token."""
    for cid, turns in sorted(acknowledged.items()):
        state = client.get(f"/v1/operator/conversations/{cid}").json()["state"]
        status = client.get(f"/v1/operator/conversations/{cid}/audit/verify").json()
        records = client.get(f"/v1/operator/conversations/{cid}/audit").json()["records"]
        messages = state["messages"]
        visitor = {m["turn"]: m["text"] for m in messages if m["role"] == "visitor"}
        for turn, message in turns.items():
            if visitor.get(turn) != message:
                outcome.missing_turns.append(f"{cid} turn {turn}")
        if len(set(visitor.values())) != len(visitor):  # every scripted turn of a conversation differs
            outcome.duplicated.append(cid)
        if not status.get("ok"):
            outcome.chain_failures.append(f"{cid}: {status.get('code')}")
        assistant = [m for m in messages if m["role"] == "assistant"]
        if not (state["turn"] == len(records) == len(visitor) == len(assistant)
                and sorted(visitor) == list(range(1, state["turn"] + 1))):
            outcome.half_written.append(f"{cid}: turn {state['turn']}, records {len(records)}, "
                                        f"visitor {len(visitor)}, assistant {len(assistant)}")


def environment(tmp: Path, token: str) -> dict[str, str]:
    limits = json.loads((ROOT / "engine/service/limits.json").read_text(encoding="utf-8"))
    for bucket in limits["rate_limits"].values():
        bucket["capacity"], bucket["refill_per_second"] = 1_000_000, 1_000_000.0
    limits["description"] = "crash test: rate limits lifted"
    (tmp / "limits.json").write_text(json.dumps(limits), encoding="utf-8")
    env = dict(os.environ)
    env.update({"GRACE_SERVICE_LIMITS": str(tmp / "limits.json"), "GRACE_OPERATOR_TOKEN": token,
                "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p),
                "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"})
    return env


def crash_run(backend: str, database_url: str, data_dir: Path, *, kills: int, clients: int, seed: int,
              turns: int = 4, min_gap: float = 0.3, max_gap: float = 2.0) -> Outcome:
    rng = random.Random(seed)
    token = secrets.token_urlsafe(24)
    outcome = Outcome(backend)
    acknowledged: dict[str, dict[int, str]] = {}
    lock = threading.Lock()
    stop = threading.Event()
    service = Service(database_url, data_dir, environment(data_dir, token))
    started = time.perf_counter()
    service.start()
    workers = [_Client(i, service, stop, outcome, acknowledged, lock, turns) for i in range(clients)]
    try:
        for worker in workers:
            worker.start()
        for _ in range(kills):
            time.sleep(rng.uniform(min_gap, max_gap))  # a random point: mid-request, mid-commit or idle
            service.kill()
            outcome.kills += 1
            service.start()
        time.sleep(rng.uniform(min_gap, max_gap))
        stop.set()
        for worker in workers:
            worker.join(timeout=60)
        with lock:
            # a conversation whose create was acknowledged but whose first turn never was is still checked
            snapshot = {cid: dict(turns) for cid, turns in acknowledged.items()}
        outcome.conversations = len(snapshot)
        with httpx.Client(base_url=service.url, timeout=60, headers={"Authorization": f"Bearer {token}"}) as client:
            check(client, snapshot, outcome)
    finally:
        stop.set()
        service.stop()
    outcome.seconds = time.perf_counter() - started
    return outcome


def _postgres(url: str) -> tuple[str, str]:
    from benchmarks.load_bench import _postgres_schema_url

    schema = f"grace_crash_{uuid.uuid4().hex[:12]}"
    return _postgres_schema_url(url, schema), schema


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--clients", type=int, default=6)
    parser.add_argument("--turns", type=int, default=4, help="turns per conversation")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--min-gap", type=float, default=1.5, help="shortest uptime before a kill (s)")
    parser.add_argument("--max-gap", type=float, default=4.0, help="longest uptime before a kill (s)")
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--postgres-url", default=os.environ.get("GRACE_TEST_POSTGRES_URL", ""))
    args = parser.parse_args(argv)
    ok = True
    if args.backend in ("sqlite", "both"):
        with tempfile.TemporaryDirectory(prefix="grace-crash-") as tmp:
            outcome = crash_run("sqlite", f"sqlite:///{Path(tmp) / 'grace.db'}", Path(tmp), kills=args.kills,
                                clients=args.clients, seed=args.seed, turns=args.turns, min_gap=args.min_gap,
                                max_gap=args.max_gap)
        print(outcome.render())
        ok = ok and outcome.consistent
    if args.backend in ("postgres", "both"):
        if not args.postgres_url:
            print("postgres: skipped (set GRACE_TEST_POSTGRES_URL or --postgres-url)")
        else:
            from benchmarks.load_bench import _drop_schema

            url, schema = _postgres(args.postgres_url)
            try:
                with tempfile.TemporaryDirectory(prefix="grace-crash-") as tmp:
                    outcome = crash_run("postgres", url, Path(tmp), kills=args.kills, clients=args.clients,
                                        seed=args.seed, turns=args.turns, min_gap=args.min_gap,
                                        max_gap=args.max_gap)
                print(outcome.render())
                ok = ok and outcome.consistent
            finally:
                _drop_schema(args.postgres_url, schema)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
