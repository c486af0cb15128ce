"""Where a load run's slow turns come from (``grace bench load --trace DIR``).

The load benchmark says *that* a step's p99 is high; this says *when* and *next to what*. During the steps a
sampler thread records, every ``SAMPLE_S``:

* the machine: CPU and I/O pressure (``/proc/pressure``: the share of time some task waited for a CPU or for
  I/O), so other jobs on a shared host show up as what they are;
* each worker's and the client's own CPU use, and which worker owns each client connection (``/proc/net/tcp``
  and the workers' socket descriptors: the kernel assigns a connection to a worker, ``SO_REUSEPORT``);
* PostgreSQL: backends waiting on a lock or on the WAL, the WAL flushes and their time (``pg_stat_wal``,
  with ``track_wal_io_timing``) and checkpoints (``pg_stat_bgwriter``).

Every turn is recorded with its scheduled time, the time the client actually sent it (a late send is the
client's own starvation, not the server's), its latency and its connection. Afterwards ``analyse`` groups the
slow turns into episodes (overlapping slow turns) and prints, per episode, what the samples and the PostgreSQL
log (``log_min_duration_statement``, ``log_lock_waits``, ``log_checkpoints``) show in that window. The raw
turns and samples go to ``DIR`` as JSON lines, so another analysis can be run later.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import threading
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

SAMPLE_S = 0.1
OWNERS_EVERY = 5  # resolve connection owners every 5th sample
PG_LOG = Path(os.environ.get("GRACE_PG_LOG", "/var/log/postgresql/postgresql-15-main.log"))
_PG_LOG_TIME = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) UTC")


@dataclass
class TurnEvent:
    step: float
    scheduled: float  # wall clock (epoch seconds)
    sent_late_ms: float  # how long after its scheduled time the client got to send it
    latency_ms: float  # from the scheduled time to the reply, as the benchmark counts it
    port: int  # the client's local port: which connection, so which worker
    code: str | None  # None: answered 200


@dataclass
class Sample:
    t: float  # wall clock
    psi_cpu_us: int  # /proc/pressure/cpu "some" total (microseconds, cumulative)
    psi_io_us: int  # /proc/pressure/io "some" total
    psi_io_full_us: int
    worker_cpu_s: list[float]
    client_cpu_s: float
    pg: dict[str, float] = field(default_factory=dict)


def _psi(kind: str) -> tuple[int, int]:
    try:
        lines = Path(f"/proc/pressure/{kind}").read_text().splitlines()
    except OSError:
        return 0, 0
    totals = [int(line.rsplit("total=", 1)[1]) for line in lines]
    return totals[0], totals[1] if len(totals) > 1 else 0


def _cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def connection_owners(server_port: int, pids: Iterable[int]) -> dict[int, int]:
    """Client port -> worker pid for every established loopback connection to ``server_port``."""
    inode_pid: dict[str, int] = {}
    for pid in pids:
        try:
            for fd in os.scandir(f"/proc/{pid}/fd"):
                try:
                    target = os.readlink(fd.path)
                except OSError:
                    continue
                if target.startswith("socket:["):
                    inode_pid[target[8:-1]] = pid
        except OSError:
            continue
    owners: dict[int, int] = {}
    try:
        rows = Path("/proc/net/tcp").read_text().splitlines()[1:]
    except OSError:
        return owners
    for row in rows:
        cols = row.split()
        local_port = int(cols[1].rsplit(":", 1)[1], 16)
        if local_port != server_port or cols[3] != "01":  # 01: ESTABLISHED
            continue
        owner = inode_pid.get(cols[9])
        if owner is not None:
            owners[int(cols[2].rsplit(":", 1)[1], 16)] = owner
    return owners


_PG_SAMPLE = """
SELECT
  (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'),
  (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
     AND wait_event IN ('WALSync', 'WALWrite', 'WALInsert', 'WALBufMapping', 'WalSync', 'WalWrite')),
  (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state = 'active'
     AND pid <> pg_backend_pid()),
  (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'),
  w.wal_sync, w.wal_sync_time, w.wal_write, w.wal_write_time, w.wal_fpi, w.wal_bytes,
  b.checkpoints_timed + b.checkpoints_req, b.buffers_checkpoint, b.buffers_backend
FROM pg_stat_wal w, pg_stat_bgwriter b
"""
_PG_FIELDS = ("lock_waiters", "wal_waiters", "active", "idle_in_tx", "wal_sync", "wal_sync_ms", "wal_write",
              "wal_write_ms", "wal_fpi", "wal_bytes", "checkpoints", "buffers_checkpoint", "buffers_backend")


class Sampler(threading.Thread):
    """Samples the machine, the workers, the client and PostgreSQL until ``stop``."""

    def __init__(self, pids: list[int], server_port: int, pg_url: str | None) -> None:
        super().__init__(name="load-trace-sampler", daemon=True)
        self.pids = pids
        self.server_port = server_port
        self.pg_url = pg_url
        self.samples: list[Sample] = []
        self.owners: dict[int, int] = {}
        self._halt = threading.Event()

    def run(self) -> None:
        conn = None
        if self.pg_url:
            import psycopg

            try:
                conn = psycopg.connect(self.pg_url, autocommit=True)
            except psycopg.Error:
                conn = None
        me = os.getpid()
        tick = 0
        try:
            while not self._halt.wait(SAMPLE_S):
                cpu, _ = _psi("cpu")
                io, io_full = _psi("io")
                sample = Sample(time.time(), cpu, io, io_full, [_cpu_seconds(p) for p in self.pids],
                                _cpu_seconds(me))
                if conn is not None:
                    try:
                        row = conn.execute(_PG_SAMPLE).fetchone()
                        if row is not None:
                            sample.pg = {k: float(v or 0) for k, v in zip(_PG_FIELDS, row, strict=True)}
                    except Exception:  # a failed sample is a gap, never a failed run
                        pass
                self.samples.append(sample)
                if tick % OWNERS_EVERY == 0:
                    self.owners.update(connection_owners(self.server_port, self.pids))
                tick += 1
        finally:
            if conn is not None:
                conn.close()

    def stop(self) -> None:
        self._halt.set()
        self.join(timeout=5)
        self.owners.update(connection_owners(self.server_port, self.pids))


# -- analysis -----------------------------------------------------------------------------------------


def _clock(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%H:%M:%S.%f")[:-3]


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))]


def _window(samples: list[Sample], start: float, end: float) -> list[Sample]:
    """The samples spanning [start, end], with the one just before as the baseline for rates."""
    inside = [i for i, s in enumerate(samples) if start <= s.t <= end + SAMPLE_S]
    if not inside:
        return []
    first = max(0, inside[0] - 1)
    return samples[first : inside[-1] + 1]


def _rates(window: list[Sample], pids: list[int]) -> dict[str, Any]:
    if len(window) < 2:
        return {}
    dt = window[-1].t - window[0].t
    out: dict[str, Any] = {
        "cpu_pressure_pct": 100 * (window[-1].psi_cpu_us - window[0].psi_cpu_us) / 1e6 / dt,
        "io_pressure_pct": 100 * (window[-1].psi_io_us - window[0].psi_io_us) / 1e6 / dt,
        "io_full_pct": 100 * (window[-1].psi_io_full_us - window[0].psi_io_full_us) / 1e6 / dt,
        "worker_cpu_pct": [round(100 * (b - a) / dt) for a, b in
                           zip(window[0].worker_cpu_s, window[-1].worker_cpu_s, strict=True)],
        "client_cpu_pct": 100 * (window[-1].client_cpu_s - window[0].client_cpu_s) / dt,
        # the busiest SAMPLE_S slice of each worker: a worker pinned at 100% queues turns
        "worker_peak_pct": [
            round(max(100 * (b.worker_cpu_s[i] - a.worker_cpu_s[i]) / max(b.t - a.t, 1e-6)
                      for a, b in itertools.pairwise(window)))
            for i in range(len(pids))
        ],
    }
    pg0, pg1 = window[0].pg, window[-1].pg
    if pg0 and pg1:
        syncs = pg1["wal_sync"] - pg0["wal_sync"]
        out.update(
            lock_waiters_max=max(s.pg.get("lock_waiters", 0) for s in window),
            wal_waiters_max=max(s.pg.get("wal_waiters", 0) for s in window),
            idle_in_tx_max=max(s.pg.get("idle_in_tx", 0) for s in window),
            wal_syncs=syncs,
            wal_sync_ms_avg=(pg1["wal_sync_ms"] - pg0["wal_sync_ms"]) / syncs if syncs else 0.0,
            wal_mb=(pg1["wal_bytes"] - pg0["wal_bytes"]) / 1e6,
            wal_fpi=pg1["wal_fpi"] - pg0["wal_fpi"],
            checkpoints=pg1["checkpoints"] - pg0["checkpoints"],
            buffers_checkpoint=pg1["buffers_checkpoint"] - pg0["buffers_checkpoint"],
        )
    return out


def pg_log_lines(start: float, end: float, path: Path = PG_LOG, limit: int = 8) -> list[str]:
    """PostgreSQL log lines stamped within [start, end] (the cluster's log_line_prefix starts with %m, UTC)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    out = []
    for line in text.splitlines():
        m = _PG_LOG_TIME.match(line)
        if not m:
            continue
        t = datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=UTC).timestamp()
        if start <= t <= end:
            out.append(line[:200])
    return out[:limit] + ([f"... {len(out) - limit} more"] if len(out) > limit else [])


def commit_events(server_log: Path, start: float) -> list[dict[str, Any]]:
    """The workers' ``storage.commit.slow`` events (every turn commit when the servers' ``slow_commit_log_ms`` is
    0, as the benchmark sets it with --trace) logged after ``start``: each with ``t`` (epoch) and its phases."""
    out: list[dict[str, Any]] = []
    try:
        lines = server_log.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return out
    for line in lines:
        if '"storage.commit.slow"' not in line:
            continue
        try:
            event = json.loads(line)
            t = datetime.fromisoformat(event["timestamp"].replace("Z", "+00:00")).timestamp()
        except (ValueError, KeyError, TypeError):
            continue
        if t >= start:
            event["t"] = t
            out.append(event)
    return out


_PHASES = ("total_ms", "pool_wait_ms", "lock_ms", "held_ms", "commit_ms")


def _commit_summary(events: list[dict[str, Any]]) -> str:
    if not events:
        return "no commit timings"
    parts = [f"{phase[:-3]} p50 {_pct([e[phase] for e in events], 50):.1f} p99 "
             f"{_pct([e[phase] for e in events], 99):.1f} max {max(e[phase] for e in events):.0f}"
             for phase in _PHASES]
    return f"commit_turn ({len(events)} commits, ms): " + "; ".join(parts)


def episodes(turns: list[TurnEvent], slow_ms: float) -> list[list[TurnEvent]]:
    """Slow turns grouped into episodes: a turn joins the episode whose time span it overlaps."""
    slow = sorted((t for t in turns if t.code is None and t.latency_ms > slow_ms), key=lambda t: t.scheduled)
    groups: list[list[TurnEvent]] = []
    end = 0.0
    for turn in slow:
        turn_end = turn.scheduled + turn.latency_ms / 1000
        if groups and turn.scheduled <= end:
            groups[-1].append(turn)
            end = max(end, turn_end)
        else:
            groups.append([turn])
            end = turn_end
    return groups


def analyse(turns: list[TurnEvent], samples: list[Sample], owners: dict[int, int], pids: list[int],
            slow_ms: float, commits: list[dict[str, Any]] | None = None, max_episodes: int = 12) -> list[str]:
    worker_of = {pid: i for i, pid in enumerate(pids)}
    lines: list[str] = []
    for step in sorted({t.step for t in turns}):
        mine = [t for t in turns if t.step == step and t.code is None]
        if not mine:
            continue
        start, end = min(t.scheduled for t in mine), max(t.scheduled + t.latency_ms / 1000 for t in mine)
        whole = _rates(_window(samples, start, end), pids)
        per_worker: dict[str, list[float]] = {}
        for t in mine:
            w = worker_of.get(owners.get(t.port, -1))
            per_worker.setdefault("?" if w is None else str(w), []).append(t.latency_ms)
        split = ", ".join(f"w{w}: {len(v)} turns p50 {_pct(v, 50):.0f} p99 {_pct(v, 99):.0f} ms"
                          for w, v in sorted(per_worker.items()))
        late = [t.sent_late_ms for t in mine]
        lines.append(f"step {step:.0f}/s {_clock(start)}-{_clock(end)}: {len(mine)} turns; {split}")
        lines.append(f"  client send lateness p50 {_pct(late, 50):.1f} p99 {_pct(late, 99):.1f} max {max(late):.1f} ms;"
                     f" whole step: {_fmt(whole)}")
        if commits is not None:
            lines.append("  " + _commit_summary([e for e in commits if start <= e["t"] <= end]))
        groups = episodes(mine, slow_ms)
        slow_total = sum(len(g) for g in groups)
        lines.append(f"  {slow_total} turns over {slow_ms:.0f} ms in {len(groups)} episodes"
                     + (f" (the {max_episodes} with most slow turns shown)" if len(groups) > max_episodes else ""))
        for group in sorted(groups, key=len, reverse=True)[:max_episodes]:
            g0 = min(t.scheduled for t in group)
            g1 = max(t.scheduled + t.latency_ms / 1000 for t in group)
            workers: dict[str, int] = {}
            for t in group:
                w = worker_of.get(owners.get(t.port, -1))
                workers["?" if w is None else f"w{w}"] = workers.get("?" if w is None else f"w{w}", 0) + 1
            worst = max(t.latency_ms for t in group)
            lines.append(
                f"  - {_clock(g0)} +{(g1 - g0) * 1000:.0f} ms: {len(group)} slow, max {worst:.0f} ms,"
                f" by worker {workers},"
                f" client late max {max(t.sent_late_ms for t in group):.0f} ms;"
                f" {_fmt(_rates(_window(samples, g0, g1), pids))}"
            )
            if commits is not None:
                lines.append("      " + _commit_summary([e for e in commits if g0 <= e["t"] <= g1]))
            for log_line in pg_log_lines(g0 - 0.05, g1):
                lines.append(f"      pg: {log_line}")
    return lines


def _fmt(rates: dict[str, Any]) -> str:
    if not rates:
        return "no samples"
    parts = [
        f"cpu pressure {rates['cpu_pressure_pct']:.0f}%", f"io pressure {rates['io_pressure_pct']:.0f}%"
        f" (full {rates['io_full_pct']:.0f}%)", f"workers cpu {rates['worker_cpu_pct']}% (peak 0.1 s"
        f" {rates['worker_peak_pct']}%)", f"client cpu {rates['client_cpu_pct']:.0f}%",
    ]
    if "wal_syncs" in rates:
        parts += [
            f"pg lock waiters max {rates['lock_waiters_max']:.0f}", f"wal waiters max {rates['wal_waiters_max']:.0f}",
            f"idle-in-tx max {rates['idle_in_tx_max']:.0f}",
            f"{rates['wal_syncs']:.0f} wal fsyncs avg {rates['wal_sync_ms_avg']:.2f} ms",
            f"wal {rates['wal_mb']:.1f} MB ({rates['wal_fpi']:.0f} full pages)",
            f"checkpoints {rates['checkpoints']:.0f} (buffers {rates['buffers_checkpoint']:.0f})",
        ]
    return "; ".join(parts)


def save(directory: Path, name: str, turns: list[TurnEvent], samples: list[Sample], owners: dict[int, int],
         pids: list[int]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / f"{name}.turns.jsonl").open("w", encoding="utf-8") as fh:
        for t in turns:
            fh.write(json.dumps(asdict(t)) + "\n")
    with (directory / f"{name}.samples.jsonl").open("w", encoding="utf-8") as fh:
        fh.write(json.dumps({"pids": pids, "owners": owners}) + "\n")
        for s in samples:
            fh.write(json.dumps(asdict(s)) + "\n")
