"""The widget shows the human handoff: the visitor asks for a person and sees how the company's people take over
(e-mail and phone links, opening hours); checked with axe-core and saved as screenshots at 1440 and 390 px."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import time
from pathlib import Path
from typing import Any

import pytest

from engine.handoff.config import HandoffConfig, OpeningHours
from engine.rules.loader import DEFAULT_RULES_DIR, RuleBundle, load_bundle
from engine.storage.sqlite import SQLiteStore
from tests.browser.a11y import axe_check
from tests.browser.live import LiveServer
from tests.browser.widget import sized_page
from tests.conftest import copy_core_rules
from tests.service.helpers import AUDIT_KEY, Service, make_service
from tests.service.test_service_webhooks import _spec

TIMEOUT_MS = 20_000


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Service, str]]:
    root = copy_core_rules(tmp_path / "rules")
    shutil.copy(DEFAULT_RULES_DIR / "handoff.json", root)
    shutil.copy(DEFAULT_RULES_DIR / "schemas" / "handoff.schema.json", root / "schemas")
    bundle: RuleBundle = load_bundle(root, require_published=False)
    config = HandoffConfig(email="team@shop.example", phone="+34 950 000 000",
                           hours=OpeningHours("Europe/Madrid", {"mon": [(time(9), time(18))]}))
    service = make_service(SQLiteStore(tmp_path / "w.db", audit_key=AUDIT_KEY), bundle, _spec(),
                           handoff={"shop": config})
    with LiveServer(service.app) as server:
        yield service, server.url
    service.store.close()


@pytest.mark.parametrize(("width", "height"), [(1440, 900), (390, 844)])
def test_widget_shows_the_handoff(served: tuple[Service, str], browser: Any, shots: Path, width: int,
                                  height: int) -> None:
    service, url = served
    with sized_page(browser, width, height) as page:
        page.goto(f"{url}/demo/test?lang=en")
        page.locator("#grace-widget[data-configured=true]").wait_for(state="attached", timeout=TIMEOUT_MS)
        page.locator("[data-testid=grace-launcher]").click()
        page.locator("[data-testid=grace-input]").fill("Can I talk to a person, please?")
        page.locator("[data-testid=grace-input]").press("Enter")
        box = page.locator("[data-testid=grace-handoff]")
        box.wait_for(timeout=TIMEOUT_MS)
        assert "A person from our team will take it from here." in box.inner_text()
        assert page.locator("[data-testid=grace-handoff-email]").get_attribute("href") == "mailto:team@shop.example"
        assert page.locator("[data-testid=grace-handoff-phone]").get_attribute("href") == "tel:+34950000000"
        cid = page.locator("#grace-widget").get_attribute("data-conversation")
        assert any(n.startswith("handoff.requested") for r in service.store.records(cid) for n in r["notes"])
        axe_check(page, shots, f"widget-handoff-{width}")
        page.screenshot(path=str(shots / f"widget-handoff-{width}.png"))
