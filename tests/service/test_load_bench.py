"""``grace bench load`` end to end with tiny numbers (CI size): servers start, the open-loop steps run, every
conversation's chain verifies with exactly its acknowledged turns, and the table is printed."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from benchmarks.load_bench import bench_env, cpu_seconds, main, pct
from engine.service.limits import load_limits
from tests.support.embeddings import link_embeddings

POSTGRES_URL = os.environ.get("GRACE_TEST_POSTGRES_URL", "")


def _run(tmp_path: Path, configs: str, capsys: pytest.CaptureFixture[str],
         embeddings: Path) -> tuple[str, dict[str, object]]:
    out = tmp_path / "load.json"
    link_embeddings(tmp_path / "data", embeddings)  # the run's warm embedding cache
    code = main(["--conversations", "6", "--steps", "3,6", "--step-seconds", "1.5", "--think-s", "0.1",
                 "--configs", configs, "--in-process-turns", "6", "--max-seconds", "300",
                 "--data-dir", str(tmp_path / "data"), "--json", str(out)])
    text = capsys.readouterr().out
    assert code == 0, text
    return text, json.loads(out.read_text(encoding="utf-8"))


def test_load_bench_smoke_sqlite(tmp_path: Path, capsys: pytest.CaptureFixture[str], shared_embeddings: Path) -> None:
    text, result = _run(tmp_path, "sqlite:1", capsys, shared_embeddings)
    assert "offered/s" in text and "saturation" in text and "in-process sqlite" in text
    (run,) = result["runs"]  # type: ignore[misc]
    assert run["verified"] == 6 and run["chain_failures"] == 0 and run["mismatched"] == 0
    assert [s["offered"] for s in run["steps"]] == [3.0, 6.0]
    assert sum(len(s["errors"]) for s in run["steps"]) == 0
    assert len(run["rss_start_mb"]) == 1 and run["rss_end_mb"][0] > 0
    assert len(run["cpu_s"]) == 1 and run["cpu_s"][0] > 0 and run["cpu_ms_per_turn"] > 0
    assert result["in_process"]["sqlite"]["cpu_ms_per_turn"] > 0
    assert "per turn" in text and "heap freeze on" in text


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES_URL, reason="GRACE_TEST_POSTGRES_URL is not set")
def test_load_bench_smoke_postgres_two_workers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shared_embeddings: Path
) -> None:
    _, result = _run(tmp_path, "postgres:2", capsys, shared_embeddings)
    (run,) = result["runs"]  # type: ignore[misc]
    assert run["workers"] == 2 and len(run["rss_start_mb"]) == 2 and len(run["cpu_s"]) == 2
    assert run["verified"] == 6 and run["chain_failures"] == 0 and run["mismatched"] == 0


def test_percentiles_are_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert (pct(values, 50), pct(values, 95), pct(values, 99), pct(values, 100)) == (50.0, 95.0, 99.0, 100.0)
    assert pct([], 99) == 0.0


def test_cpu_seconds_counts_this_process_and_nothing_for_a_missing_one() -> None:
    before = cpu_seconds(os.getpid())
    deadline = time.process_time() + 0.2
    while time.process_time() < deadline:
        pass
    assert cpu_seconds(os.getpid()) - before >= 0.1
    assert cpu_seconds(2**22 + 12345) == 0.0  # above pid_max's default: never a live process


def test_fifo_pool_spreads_requests_over_every_connection_lifo_reuses_the_last() -> None:
    import asyncio

    from benchmarks.load_client import Pool

    async def serve_and_count(reuse: str, keys: list[str] | None = None) -> list[int]:
        seen: list[int] = []
        peers: dict[int, int] = {}

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            peer = writer.get_extra_info("peername")[1]
            peers.setdefault(peer, len(peers))
            while True:
                try:
                    await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    break
                seen.append(peers[peer])
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")
                await writer.drain()
            writer.close()

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        pool = Pool("127.0.0.1", port, 4, reuse)
        try:
            if keys is None:
                await pool.fill()
            for i in range(8):  # one at a time: what a lightly loaded open-loop step looks like
                reply = await pool.request("GET", "/", key=keys[i % len(keys)] if keys else None)
                assert reply.status == 200 and reply.port > 0
        finally:
            pool.close()
            server.close()
            await server.wait_closed()
        return seen

    fifo = asyncio.run(serve_and_count("fifo"))
    assert sorted(set(fifo)) == [0, 1, 2, 3] and all(fifo.count(c) == 2 for c in range(4))
    lifo = asyncio.run(serve_and_count("lifo"))
    assert len(set(lifo)) == 1  # every request on the connection used last
    # visitor: each conversation keeps a connection of its own (a, b, c, a, b, c, a, b)
    visitor = asyncio.run(serve_and_count("visitor", ["a", "b", "c"]))
    assert visitor == [0, 1, 2, 0, 1, 2, 0, 1]
    with pytest.raises(ValueError):
        Pool("127.0.0.1", 1, 1, "random")


def test_bench_env_sets_the_servers_turn_workers_and_lifts_rate_limits(tmp_path: Path) -> None:
    env = bench_env(tmp_path, "token", turn_workers=2, switch_interval_ms=1.0)
    limits = load_limits(Path(env["GRACE_SERVICE_LIMITS"]))
    assert limits.turn_workers == 2 and limits.switch_interval_ms == 1.0
    assert env["OMP_NUM_THREADS"] == "1" and env["GRACE_OPERATOR_TOKEN"] == "token"
    default = load_limits(Path(bench_env(tmp_path, "token")["GRACE_SERVICE_LIMITS"]))
    assert default.turn_workers == load_limits().turn_workers
