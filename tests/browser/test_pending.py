"""No silent stall in the widget (SPEC D-11): when the visitor skips the last open question the reply names what
is still needed as optional instead of "Thank you, noted."; checked with axe-core, screenshot at 390 px."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.rules.loader import DEFAULT_RULES_DIR, load_bundle
from engine.storage.sqlite import SQLiteStore
from tests.browser.a11y import axe_check
from tests.browser.live import LiveServer
from tests.browser.widget import send, sized_page
from tests.conftest import copy_core_rules
from tests.service.helpers import AUDIT_KEY, Service, make_service
from tests.service.test_service_webhooks import _spec

TIMEOUT_MS = 20_000


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Service, str]]:
    root = copy_core_rules(tmp_path / "rules")
    shutil.copytree(DEFAULT_RULES_DIR / "arc", root / "arc")
    shutil.copy(DEFAULT_RULES_DIR / "schemas" / "arc.schema.json", root / "schemas")
    service = make_service(SQLiteStore(tmp_path / "p.db", audit_key=AUDIT_KEY),
                           load_bundle(root, require_published=False), _spec())
    with LiveServer(service.app) as server:
        yield service, server.url
    service.store.close()


def test_widget_says_what_is_still_needed_instead_of_noted(served: tuple[Service, str], browser: Any,
                                                           shots: Path) -> None:
    with sized_page(browser, 390, 844) as page:
        page.goto(f"{served[1]}/demo/test?lang=en")
        page.locator("#grace-widget[data-configured=true]").wait_for(state="attached", timeout=TIMEOUT_MS)
        page.locator("[data-testid=grace-launcher]").click()
        send(page, "budget 90000 EUR", 1, TIMEOUT_MS)
        reply = send(page, "hmm, maybe later", 2, TIMEOUT_MS)
        pending = reply.locator("[data-testid=grace-pending]")
        assert "you can still share: contact" in pending.inner_text() and "optional" in pending.inner_text()
        assert reply.locator("[data-testid=grace-ack]").count() == 0  # never the bare "Thank you, noted."
        assert reply.locator("[data-testid=grace-question]").count() == 0  # a statement, not a question
        axe_check(page, shots, "widget-pending-390")
        page.screenshot(path=str(shots / "widget-pending-390.png"))
