"""``/health`` (liveness) and ``/ready`` (store reachable, rules verified, models loaded, not draining), the
warm-up that makes a worker ready, and ``--workers`` refusing what the store cannot serve."""

from __future__ import annotations

import asyncio
import signal
import socket
from pathlib import Path

import pytest

from engine.cli import main
from engine.errors import StoreError
from engine.service.readiness import warm_up
from engine.service.server import GracefulServer, uvicorn_config
from tests.service.helpers import Service

ROOT = Path(__file__).resolve().parents[2]


def test_health_is_liveness_only(service: Service) -> None:
    response = service.client.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_ready_only_after_warm_up_and_until_draining(service: Service) -> None:
    before = service.client.get("/ready")
    assert before.status_code == 503
    assert before.json()["code"] == "service.warming"
    assert before.json()["checks"]["models_loaded"] is False
    assert before.json()["checks"]["store_reachable"] is True

    warm_up(service.catalog)
    service.app.state.warmed = True
    ready = service.client.get("/ready")
    assert ready.status_code == 200, ready.text
    assert ready.json()["ready"] is True
    assert all(ready.json()["checks"].values())
    assert service.store.list_conversations() == []  # the warm-up turns never reach the durable store

    service.app.state.draining = True
    draining = service.client.get("/ready")
    assert draining.status_code == 503
    assert draining.json()["code"] == "service.draining"
    assert service.client.get("/health").status_code == 200  # alive while it finishes in-flight turns


def test_ready_fails_when_the_store_does_not_answer(service: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    service.app.state.warmed = True

    def down() -> None:
        raise StoreError("connection refused", code="store.failed")

    monkeypatch.setattr(service.store, "ping", down)
    response = service.client.get("/ready")
    assert response.status_code == 503
    assert response.json()["code"] == "service.store_unreachable"
    assert response.json()["checks"]["store_reachable"] is False
    assert "refused" not in response.text  # no database details


def test_shutdown_signal_marks_the_app_draining(service: Service) -> None:
    server = GracefulServer(uvicorn_config(service.app))
    assert service.app.state.draining is False
    server.handle_exit(signal.SIGTERM, None)
    assert service.app.state.draining is True
    assert server.should_exit


def _listening_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    return sock


def test_the_ready_banner_comes_once_the_server_listens_with_its_stop_handlers(service: Service) -> None:
    announced: list[bool] = []

    def announce() -> None:  # what ``grace serve`` prints; a supervisor may send SIGTERM right after reading it
        announced.append(signal.getsignal(signal.SIGTERM) == server.handle_exit)
        server.should_exit = True

    server = GracefulServer(uvicorn_config(service.app), on_started=announce)
    with _listening_socket() as sock:
        asyncio.run(asyncio.wait_for(server.serve(sockets=[sock]), timeout=30))
    assert announced == [True]  # once, with uvicorn's graceful stop handler in place


def test_a_stop_signal_before_start_up_stops_the_server_once_started(service: Service) -> None:
    announced: list[str] = []
    server = GracefulServer(uvicorn_config(service.app), on_started=lambda: announced.append("ready"))
    server.request_stop(signal.SIGTERM, None)  # the handler ``grace serve`` installs before uvicorn's
    with _listening_socket() as sock:
        asyncio.run(asyncio.wait_for(server.serve(sockets=[sock]), timeout=30))
    assert announced == []  # never announced as ready
    assert server.should_exit and service.app.state.draining is True


def test_several_workers_need_postgres(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["serve", "--demo", "--workers", "2", "--data-dir", str(tmp_path),
                 "--database-url", f"sqlite:///{tmp_path / 'g.db'}", "--port", "0"])
    assert code == 2
    assert "service.workers_need_postgres" in capsys.readouterr().err
    assert main(["serve", "--demo", "--workers", "0", "--data-dir", str(tmp_path), "--port", "0"]) == 2
    assert "service.workers_invalid" in capsys.readouterr().err
    assert not (tmp_path / "g.db").exists()  # refused before anything was opened




def test_warm_up_asks_the_proposer_to_build_its_first_use_resources(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []
    monkeypatch.setattr(service.proposer, "warm_up", lambda spec: asked.append(spec.spec.id), raising=False)
    warm_up(service.catalog)
    assert asked == [g.published.spec.id for g in service.catalog.goals]


def test_offline_proposer_warm_up_builds_the_gazetteer_and_each_languages_patterns() -> None:
    # A fresh worker's first turns were the load benchmark's tail: the gazetteer and each language's currency
    # patterns were built while a visitor waited (engine/service/readiness.py).
    from engine.goals.publication import load_published
    from engine.kernel.goal_models import CriterionKind
    from llm_adapters.offline import gazetteer
    from llm_adapters.offline.proposer import OfflineProposer

    spec = load_published(max(ROOT.glob("demos/real_estate/published/real-estate/v*.json"),
                               key=lambda p: int(p.stem[1:])))
    assert any(o.criterion.kind is CriterionKind.PLACE for o in spec.spec.objectives)
    gazetteer._names.cache_clear()
    gazetteer._big_cities.cache_clear()
    proposer = OfflineProposer.from_rules_dir()  # the shipped rules: the spec's vocabularies live there
    proposer.warm_up(spec)
    assert gazetteer._names.cache_info().currsize == 1
    assert gazetteer._big_cities.cache_info().currsize == 1
    for language in spec.spec.languages:
        scoped = proposer._scoped_rules(frozenset({language}))
        assert "currency_patterns" in scoped.__dict__.get("_grace_memo", {}), language
