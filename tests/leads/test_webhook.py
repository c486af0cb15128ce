"""Signed webhooks against a real HTTP receiver on loopback: signature, retries with backoff, dead letters."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.cli import main
from engine.leads.errors import LeadExportError
from engine.leads.export import Lead
from engine.leads.outbox import Outbox
from engine.leads.webhook import (
    DeliverySettings,
    WebhookDispatcher,
    WebhookTarget,
    completion_event,
    sign,
    verify_signature,
)

SECRET = b"s" * 32
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
SETTINGS = DeliverySettings(backoff_seconds=(10.0, 60.0), timeout_seconds=5.0, signature_tolerance_seconds=300)


class Receiver:
    """A loopback HTTP server answering with scripted statuses and keeping every request."""

    def __init__(self, statuses: list[int]) -> None:
        self.statuses = statuses
        self.requests: list[tuple[dict[str, str], bytes]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.requests.append(({k.lower(): v for k, v in self.headers.items()}, body))
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                self.send_response(status)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                return

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def receiver_factory() -> Iterator[Any]:
    made: list[Receiver] = []

    def make(statuses: list[int]) -> Receiver:
        made.append(Receiver(statuses))
        return made[-1]

    yield make
    for receiver in made:
        receiver.server.shutdown()


def _event(conversation: str = "c1") -> dict[str, Any]:
    lead = Lead(conversation, "real-estate/v3", "en", "t0", "t1", "1111", True, False,
                {"contact": "ana@example.org", "budget": "450000 EUR"})
    return completion_event(lead, 4, "all_complete", NOW)


def _dispatcher(tmp_path: Path, url: str) -> WebhookDispatcher:
    # a frozen clock: each attempt takes no time, so retries fall due exactly one backoff after the pass
    return WebhookDispatcher(Outbox(tmp_path / "outbox.db"), {"real-estate": WebhookTarget("real-estate", url, SECRET)},
                             SETTINGS, clock=lambda: NOW)


def test_delivery_is_signed_and_retried_with_backoff(tmp_path: Path, receiver_factory: Any) -> None:
    receiver = receiver_factory([500])
    dispatcher = _dispatcher(tmp_path, receiver.url)
    event = _event()
    assert dispatcher.enqueue(event, NOW)
    assert not dispatcher.enqueue(event, NOW)  # the same completion twice: still one delivery
    [first] = dispatcher.run_due(NOW)
    assert first.status == "pending" and first.attempts == 1 and first.last_error == "HTTP 500"
    assert dispatcher.run_due(NOW + timedelta(seconds=9)) == []  # not due before its backoff
    [second] = dispatcher.run_due(NOW + timedelta(seconds=10))
    assert second.status == "delivered"
    assert len(receiver.requests) == 2
    headers, body = receiver.requests[-1]
    assert headers["x-grace-delivery"] == event["delivery_id"] == receiver.requests[0][0]["x-grace-delivery"]
    assert json.loads(body) == event
    stamp = int((NOW + timedelta(seconds=10)).timestamp())
    assert verify_signature(body, headers["x-grace-signature"], SECRET, now=stamp, tolerance=300)
    assert not verify_signature(body, headers["x-grace-signature"], b"x" * 32, now=stamp, tolerance=300)


def test_exhausted_retries_become_a_dead_letter_an_operator_can_requeue(
    tmp_path: Path, receiver_factory: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    receiver = receiver_factory([503, 503, 503])
    dispatcher = _dispatcher(tmp_path, receiver.url)
    dispatcher.enqueue(_event(), NOW)
    moments = [NOW, NOW + timedelta(seconds=10), NOW + timedelta(seconds=70)]
    statuses = [d.status for moment in moments for d in dispatcher.run_due(moment)]
    assert statuses == ["pending", "pending", "dead"]  # 1 + len(backoff) attempts
    outbox_path = tmp_path / "outbox.db"
    assert main(["leads", "dead-letters", "--outbox", str(outbox_path)]) == 0
    assert "1 dead letter(s)" in capsys.readouterr().out
    delivery_id = _event()["delivery_id"]
    assert main(["leads", "requeue", delivery_id, "--outbox", str(outbox_path), "--by", "Ana"]) == 0
    [again] = dispatcher.run_due(datetime.now(UTC))
    assert again.status == "delivered" and len(receiver.requests) == 4


def test_unreachable_receiver_is_retried_not_raised(tmp_path: Path) -> None:
    dispatcher = _dispatcher(tmp_path, "http://127.0.0.1:9/hook")  # discard port: connection refused
    dispatcher.enqueue(_event(), NOW)
    [attempt] = dispatcher.run_due(NOW)
    assert attempt.status == "pending" and attempt.attempts == 1 and attempt.last_error


def test_goal_without_webhook_is_not_queued(tmp_path: Path) -> None:
    dispatcher = WebhookDispatcher(Outbox(tmp_path / "o.db"), {}, SETTINGS)
    assert not dispatcher.enqueue(_event(), NOW)


@pytest.mark.parametrize(("url", "secret", "code"), [
    ("ftp://example.org/x", SECRET, "leads.webhook_url"),
    ("https://example.org/x", b"short", "leads.webhook_secret"),
])
def test_bad_target_is_a_coded_error(url: str, secret: bytes, code: str) -> None:
    with pytest.raises(LeadExportError) as err:
        WebhookTarget("g", url, secret)
    assert err.value.code == code


def test_settings_file_is_valid() -> None:
    settings = DeliverySettings.load()
    assert settings.attempts == 1 + len(settings.backoff_seconds) >= 2


@given(body=st.binary(min_size=1, max_size=200), flip=st.integers(min_value=0), stamp=st.integers(0, 2**31))
def test_signature_binds_body_secret_and_time(body: bytes, flip: int, stamp: int) -> None:
    header = sign(body, SECRET, stamp)
    assert verify_signature(body, header, SECRET, now=stamp, tolerance=300)
    index = flip % len(body)
    tampered = body[:index] + bytes([body[index] ^ 1]) + body[index + 1:]
    assert not verify_signature(tampered, header, SECRET, now=stamp, tolerance=300)
    assert not verify_signature(body, header, SECRET, now=stamp + 301, tolerance=300)


def test_webhooks_file_takes_secrets_from_the_environment(tmp_path: Path) -> None:
    from engine.leads.webhook import webhooks_from_file

    path = tmp_path / "webhooks.json"
    path.write_text(json.dumps({"version": "1.0.0", "webhooks": [
        {"goal": "real-estate", "url": "https://crm.example.org/hook", "secret_env": "CRM_SECRET"}]}))
    targets = webhooks_from_file(path, {"CRM_SECRET": "x" * 20})
    assert targets["real-estate"].secret == b"x" * 20
    with pytest.raises(LeadExportError) as missing:
        webhooks_from_file(path, {})
    assert missing.value.code == "leads.webhook_secret"
    path.write_text(json.dumps({"version": "1.0.0", "webhooks": [{"goal": "x", "url": "https://a", "secret": "s"}]}))
    with pytest.raises(LeadExportError) as invalid:
        webhooks_from_file(path, {})
    assert invalid.value.code == "leads.webhooks_invalid"
