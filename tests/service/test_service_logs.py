"""Issue 11 item 6: no personal data on any log path. A real uvicorn server runs the service with the offline
proposer; visitors send e-mail addresses, phone numbers and names, one turn's proposer raises a pydantic
ValidationError quoting the message, one turn crashes the store (a traceback through uvicorn's error log),
the access log is on, and a third-party logger logs an address. Everything written to stdout and stderr and
to every log handler is then searched for the personal data."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import structlog

from audit.logging import configure_logging
from engine.kernel.commands import Complete, Span
from engine.kernel.ports import Proposal, ProposerInput
from engine.service.app import create_app
from engine.service.catalog_build import GoalSource, build_catalog
from engine.service.config import ServiceConfig
from engine.storage.sqlite import SQLiteStore
from tests.browser.live import LiveServer
from tests.proposer.helpers import demo_spec, project_bundle, proposer
from tests.service.helpers import AUDIT_KEY, TOKEN, generous_limits

EMAIL, PHONE, NAME = "zebulon.quixote@example.org", "+34 612 345 678", "Zebulon Quixote"
SECRETS = (EMAIL, "zebulon.quixote", PHONE, "612 345 678", "612345678", NAME, "Zebulon", "Quixote")


class _Proposer:
    """The offline proposer, except that 'schema please' builds an invalid command (a ValidationError whose
    text quotes the message) and 'explode please' raises an error carrying the message."""

    name, version = "offline-wrapped", "1"

    def propose(self, request: ProposerInput) -> Proposal:
        text = request.message.text
        if "schema please" in text:
            span = Span(turn=request.turn, start=0, end=len(text), quote=text)
            Complete(objective="contact", span=span, value=text * 20)
        if "explode please" in text:
            raise RuntimeError(f"cannot parse {text}")
        return proposer().propose(request)


class _CrashingStore(SQLiteStore):
    def commit_turn(self, state: Any, record: Any, expected_turn: int, **kwargs: Any) -> None:
        last = state.messages[-2].text if len(state.messages) >= 2 else ""
        if "crash the store" in last:
            raise ValueError(f"cannot store {last}")
        super().commit_turn(state, record, expected_turn, **kwargs)


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    config = structlog.get_config()
    try:
        yield
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in handlers:
            root.addHandler(handler)
        root.setLevel(level)
        structlog.configure(**config)


def test_no_personal_data_in_any_output(tmp_path: Path, capfd: pytest.CaptureFixture[str],
                                        restore_logging: None) -> None:
    configure_logging(redaction_key=None, level="debug", stream=sys.stderr)
    store = _CrashingStore(tmp_path / "logs.db")
    catalog = build_catalog(store=store, bundle=project_bundle(), proposer=_Proposer(),
                            goals=[GoalSource(demo_spec("re"), None, aliases=("re",))], audit_key=AUDIT_KEY)
    app = create_app(config=ServiceConfig(operator_token=TOKEN, limits=generous_limits()), store=store,
                     catalog=catalog, audit_key=AUDIT_KEY)
    statuses: list[int] = []
    with LiveServer(app, access_log=True, log_level="debug") as server, \
            httpx.Client(base_url=server.url, timeout=60,
                         # uvicorn drops the connection after an application error (the 500 turn); a fresh
                         # connection per request keeps the next request from racing that close
                         limits=httpx.Limits(max_keepalive_connections=0)) as client:
        created = client.post("/v1/conversations", json={"goal": "re", "language": "en"}).json()
        cid, visitor = created["conversation_id"], {"X-Visitor-Token": created["visitor_token"]}
        for message in (f"Hi, I am {NAME}. Write to {EMAIL} or call {PHONE}.",
                        f"schema please: {NAME} {EMAIL} {PHONE}",
                        f"explode please: {NAME} {EMAIL} {PHONE}",
                        f"crash the store: {NAME} {EMAIL} {PHONE}"):
            statuses.append(client.post(f"/v1/conversations/{cid}/turns", json={"message": message},
                                        headers=visitor).status_code)
        statuses.append(client.get(f"/v1/conversations/{cid}", params={"who": NAME, "mail": EMAIL},
                                   headers=visitor).status_code)
        logging.getLogger("some.library").warning("retrying for %s (%s) at %s", NAME.split()[0] and EMAIL, PHONE,
                                                  EMAIL)
    store.close()
    out, err = capfd.readouterr()
    output = out + err
    assert statuses == [200, 200, 200, 500, 200]
    # the paths that could leak did run and were logged
    for expected in ("turn.propose.crashed", "service.request.crashed", "Exception in ASGI application",
                     "ValueError", "message withheld", "email:redacted", "phone:redacted", f"/v1/conversations/{cid}"):
        assert expected in output, expected
    for secret in SECRETS:
        assert secret not in output, secret
