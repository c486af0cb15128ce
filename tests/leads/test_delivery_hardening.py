"""Webhook delivery against real loopback receivers (issue 30, defects 1, 2, 6, 7).

Each test here was seen failing before the fix: a 302 was followed (a bodiless GET to the new address, signature
headers included) and the lead marked delivered; one goal's stuck receiver held up every other goal's deliveries;
the retry wait counted from the start of the pass; requeuing an unknown id said "not a dead letter"; an erased
conversation's pending lead was still sent and delivered payloads stayed in the outbox forever, readable by all.
"""

from __future__ import annotations

import json
import stat
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from engine.leads.errors import DeliveryError
from engine.leads.export import Lead
from engine.leads.outbox import Outbox
from engine.leads.webhook import DeliverySettings, WebhookDispatcher, WebhookTarget, completion_event

SECRET = b"s" * 32
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
SETTINGS = DeliverySettings(backoff_seconds=(10.0, 60.0), timeout_seconds=5.0, signature_tolerance_seconds=300,
                            lanes_per_goal=2, delivered_retention_seconds=3600)
EMAIL = "ana.visitor@example.org"


class Receiver:
    """A loopback receiver: scripted answers (status, extra headers), an optional gate it waits on."""

    def __init__(self, answers: list[tuple[int, dict[str, str]]], gate: threading.Event | None = None) -> None:
        self.answers = answers
        self.gate = gate
        self.requests: list[tuple[str, dict[str, str], bytes]] = []
        self.arrived = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                receiver.requests.append((self.command, {k.lower(): v for k, v in self.headers.items()}, body))
                receiver.arrived.set()
                if receiver.gate is not None:
                    receiver.gate.wait(10)
                status, headers = receiver.answers.pop(0) if receiver.answers else (200, {})
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_POST = _handle
            do_GET = _handle

            def log_message(self, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def receivers() -> Iterator[Any]:
    made: list[Receiver] = []

    def make(answers: list[tuple[int, dict[str, str]]], gate: threading.Event | None = None) -> Receiver:
        made.append(Receiver(answers, gate))
        return made[-1]

    yield make
    for receiver in made:
        if receiver.gate is not None:
            receiver.gate.set()
        receiver.server.shutdown()


def _event(conversation: str = "c1", goal: str = "real-estate") -> dict[str, Any]:
    lead = Lead(conversation, f"{goal}/v3", "en", "t0", "t1", "1111", True, False,
                {"contact": EMAIL, "budget": "450000 EUR"})
    return completion_event(lead, 4, "all_complete", NOW)


def test_a_redirect_is_a_failure_and_is_never_followed(tmp_path: Path, receivers: Any) -> None:
    elsewhere = receivers([])
    receiver = receivers([(302, {"Location": elsewhere.url})])
    dispatcher = WebhookDispatcher(Outbox(tmp_path / "o.db"),
                                   {"real-estate": WebhookTarget("real-estate", receiver.url, SECRET)}, SETTINGS)
    dispatcher.enqueue(_event(), NOW)
    [attempt] = dispatcher.run_due(NOW)
    assert (attempt.status, attempt.attempts, attempt.last_error) == ("pending", 1, "HTTP 302")
    assert elsewhere.requests == []  # neither the body nor the signature went to the new address
    [(method, headers, _)] = receiver.requests
    assert method == "POST" and "x-grace-signature" in headers


@pytest.mark.parametrize("status", [204, 304, 404, 410, 503])
def test_only_2xx_is_delivered(tmp_path: Path, receivers: Any, status: int) -> None:
    receiver = receivers([(status, {})])
    dispatcher = WebhookDispatcher(Outbox(tmp_path / "o.db"),
                                   {"real-estate": WebhookTarget("real-estate", receiver.url, SECRET)}, SETTINGS)
    dispatcher.enqueue(_event(), NOW)
    [attempt] = dispatcher.run_due(NOW)
    if 200 <= status < 300:
        assert attempt.status == "delivered"
    else:
        assert attempt.status == "pending" and attempt.last_error == f"HTTP {status}"


def test_a_stuck_receiver_does_not_hold_up_another_goal(tmp_path: Path, receivers: Any) -> None:
    gate = threading.Event()
    stuck = receivers([], gate=gate)
    fast = receivers([])
    targets = {"slow": WebhookTarget("slow", stuck.url, SECRET), "fast": WebhookTarget("fast", fast.url, SECRET)}
    dispatcher = WebhookDispatcher(Outbox(tmp_path / "o.db"), targets, SETTINGS)
    dispatcher.enqueue(_event("c1", "slow"), NOW)  # queued first: a one-at-a-time pass would send it first
    dispatcher.enqueue(_event("c2", "fast"), NOW + timedelta(microseconds=1))
    done: list[Any] = []
    runner = threading.Thread(target=lambda: done.extend(dispatcher.run_due(NOW + timedelta(seconds=1))))
    runner.start()
    assert stuck.arrived.wait(10)
    assert fast.arrived.wait(10), "the fast goal's lead waited for the stuck receiver"
    gate.set()
    runner.join(10)
    assert sorted(d.status for d in done) == ["delivered", "delivered"]


def test_one_goal_uses_bounded_parallel_lanes(tmp_path: Path, receivers: Any) -> None:
    gate = threading.Event()
    receiver = receivers([], gate=gate)
    dispatcher = WebhookDispatcher(Outbox(tmp_path / "o.db"),
                                   {"real-estate": WebhookTarget("real-estate", receiver.url, SECRET)}, SETTINGS)
    for index in range(5):
        dispatcher.enqueue(_event(f"c{index}"), NOW)
    runner = threading.Thread(target=dispatcher.run_due, args=(NOW,))
    runner.start()
    deadline = datetime.now(UTC) + timedelta(seconds=10)
    while len(receiver.requests) < SETTINGS.lanes_per_goal and datetime.now(UTC) < deadline:
        threading.Event().wait(0.02)
    threading.Event().wait(0.3)  # room for a third request, if the lanes were not bounded
    assert len(receiver.requests) == SETTINGS.lanes_per_goal
    gate.set()
    runner.join(10)
    assert len(receiver.requests) == 5


def test_backoff_counts_from_the_failure(tmp_path: Path) -> None:
    clock = [NOW]

    def slow_failure(url: str, body: bytes, headers: dict[str, str], timeout: float) -> int:
        clock[0] += timedelta(seconds=8)  # the receiver took 8 s to fail
        return 500

    dispatcher = WebhookDispatcher(Outbox(tmp_path / "o.db"),
                                   {"real-estate": WebhookTarget("real-estate", "http://127.0.0.1:9/h", SECRET)},
                                   SETTINGS, slow_failure, clock=lambda: clock[0])
    dispatcher.enqueue(_event(), NOW)
    [attempt] = dispatcher.run_due(NOW)
    assert attempt.next_at == (NOW + timedelta(seconds=18)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert dispatcher.run_due(NOW + timedelta(seconds=17)) == []


def test_requeue_tells_unknown_from_not_dead(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "o.db")
    with pytest.raises(DeliveryError) as unknown:
        outbox.requeue("0" * 32, NOW)
    assert unknown.value.code == "leads.delivery_unknown"
    outbox.enqueue("a" * 32, "g", b"{}", NOW, "c1")
    outbox.delivered("a" * 32, NOW)
    with pytest.raises(DeliveryError) as delivered:
        outbox.requeue("a" * 32, NOW)
    assert delivered.value.code == "leads.not_dead_letter"


def test_an_erased_conversation_is_never_sent_and_leaves_no_payload(tmp_path: Path, receivers: Any) -> None:
    receiver = receivers([])
    erased: set[str] = set()
    outbox = Outbox(tmp_path / "o.db")
    dispatcher = WebhookDispatcher(outbox, {"real-estate": WebhookTarget("real-estate", receiver.url, SECRET)},
                                   SETTINGS, is_erased=erased.__contains__)
    dispatcher.enqueue(_event("c1"), NOW)
    dispatcher.enqueue(_event("c2"), NOW)
    erased.add("c1")  # erased by another process (the CLI) while the lead waited
    [first, second] = sorted(dispatcher.run_due(NOW), key=lambda d: d.conversation_id)
    assert (first.status, second.status) == ("erased", "delivered")
    assert len(receiver.requests) == 1 and json.loads(receiver.requests[0][2])["conversation_id"] == "c2"
    assert dispatcher.forget_conversation("c2") == 1  # erasing after delivery purges the kept payload
    outbox.close()
    for path in tmp_path.iterdir():
        assert EMAIL.encode() not in path.read_bytes(), path.name


def test_delivered_payloads_are_purged_after_the_retention(tmp_path: Path, receivers: Any) -> None:
    receiver = receivers([])
    clock = [NOW]
    outbox = Outbox(tmp_path / "o.db")
    dispatcher = WebhookDispatcher(outbox, {"real-estate": WebhookTarget("real-estate", receiver.url, SECRET)},
                                   SETTINGS, clock=lambda: clock[0])
    dispatcher.enqueue(_event(), NOW)
    [done] = dispatcher.run_due(NOW)
    assert done.status == "delivered" and EMAIL.encode() in outbox.get(done.delivery_id).body
    clock[0] = NOW + timedelta(seconds=SETTINGS.delivered_retention_seconds - 1)
    assert dispatcher.purge_delivered() == 0
    clock[0] = NOW + timedelta(seconds=SETTINGS.delivered_retention_seconds + 1)
    assert dispatcher.purge_delivered() == 1
    assert outbox.get(done.delivery_id).status == "delivered"
    outbox.close()
    for path in tmp_path.iterdir():
        assert EMAIL.encode() not in path.read_bytes(), path.name


def test_outbox_files_are_private(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    outbox = Outbox(folder / "outbox.db")
    outbox.enqueue("a" * 32, "g", b"{}", NOW, "c1")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for path in folder.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path.name
    outbox.close()


def test_an_old_outbox_is_migrated_in_place(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "o.db"
    old = sqlite3.connect(path)
    old.executescript(
        "CREATE TABLE lead_deliveries (delivery_id TEXT PRIMARY KEY, goal TEXT NOT NULL, body BLOB NOT NULL,"
        " status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'dead')), attempts INTEGER NOT NULL"
        " DEFAULT 0, next_at TEXT NOT NULL, last_error TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);")
    old.execute("INSERT INTO lead_deliveries VALUES ('d1', 'g', ?, 'pending', 0, 'x', NULL, 'x', 'x')",
                (json.dumps({"conversation_id": "c9"}).encode(),))
    old.commit()
    old.close()
    outbox = Outbox(path)
    assert outbox.get("d1").conversation_id == "c9"
    assert outbox.erase_conversation("c9", NOW) == 1 and outbox.get("d1").status == "erased"
