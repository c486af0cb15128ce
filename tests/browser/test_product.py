"""The company's widget configuration (colours, name, welcome, privacy and consent links, consent before the
first message) and the console's failed webhook deliveries and failed-closed filter, in headless Chromium,
each checked with axe-core."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from engine.kernel.goal_models import Widget
from engine.kernel.ports import ProposerInput
from engine.rules.loader import RuleBundle
from engine.storage.sqlite import SQLiteStore
from tests.browser.a11y import axe_check
from tests.browser.live import LiveServer
from tests.conftest import make_spec, publish
from tests.leads.test_webhook import Receiver
from tests.service.helpers import AUDIT_KEY, TOKEN, ScriptProposer, Service, make_service
from tests.service.test_service_webhooks import _notifier, _spec, arc_bundle  # noqa: F401 (fixture)

TIMEOUT_MS = 20_000
WIDGET = Widget(company_name="Brisa Homes", primary_color="#7a1f5c", text_color="#ffffff", accent_color="#7a1f5c",
                welcome={"en": "Welcome to Brisa Homes! Ask us about homes for sale.",
                         "es": "¡Bienvenido a Brisa Homes! Pregúntenos por las viviendas en venta."},
                privacy_url="https://brisa.example/privacy", consent_url="https://brisa.example/consent",
                consent_required=True)


@pytest.fixture
def themed(tmp_path: Path, bundle: RuleBundle) -> Iterator[tuple[Service, str]]:
    spec = publish(make_spec().model_copy(update={"widget": WIDGET}))
    service = make_service(SQLiteStore(tmp_path / "themed.db", audit_key=AUDIT_KEY), bundle, spec)
    with LiveServer(service.app) as server:
        yield service, server.url
    service.store.close()


def _rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


def test_widget_shows_the_company_configuration_and_asks_consent_first(
    page: Any, themed: tuple[Service, str], shots: Path
) -> None:
    service, url = themed
    page.goto(f"{url}/demo/test?lang=en")
    page.locator("#grace-widget[data-configured=true]").wait_for(state="attached", timeout=TIMEOUT_MS)
    launcher = page.locator("[data-testid=grace-launcher]")
    assert launcher.evaluate("b => getComputedStyle(b).backgroundColor") == _rgb("#7a1f5c")
    axe_check(page, shots, "widget-config-idle")
    launcher.click()
    assert page.locator("[data-testid=grace-panel] h2").inner_text() == "Brisa Homes"
    assert page.locator("[data-testid=grace-greeting]").inner_text() == WIDGET.welcome["en"]
    links = page.locator("[data-testid=grace-link]")
    assert sorted(links.evaluate_all("a => a.map(x => x.href)")) == ["https://brisa.example/consent",
                                                                       "https://brisa.example/privacy"]
    assert page.locator("[data-testid=grace-consent]").is_visible()
    axe_check(page, shots, "widget-config-consent")
    page.screenshot(path=str(shots / "widget-config-consent.png"))

    # Without the tick nothing is sent and the message stays in the box.
    page.locator("[data-testid=grace-input]").fill("My budget is 250000 EUR")
    page.locator("[data-testid=grace-input]").press("Enter")
    assert "consent" in page.locator("[data-testid=grace-error]").last.inner_text()
    assert page.locator("[data-testid=grace-input]").input_value() == "My budget is 250000 EUR"
    assert page.locator("[data-testid=grace-visitor]").count() == 0
    page.locator("[data-testid=grace-consent-check]").check()
    page.locator("[data-testid=grace-input]").press("Enter")
    reply = page.locator("[data-testid=grace-bot]").first
    reply.wait_for(timeout=TIMEOUT_MS)
    assert reply.get_attribute("data-state") == "1000"
    assert not page.locator("[data-testid=grace-consent]").is_visible()  # asked once, before the first message
    visitor_bubble = page.locator("[data-testid=grace-visitor]").first
    assert visitor_bubble.evaluate("b => getComputedStyle(b).backgroundColor") == _rgb("#7a1f5c")
    axe_check(page, shots, "widget-config-answer")
    page.screenshot(path=str(shots / "widget-config.png"))

    cid = page.locator("#grace-widget").get_attribute("data-conversation")
    [record] = service.store.records(cid)
    assert any(note.startswith("consent.given") for note in record["notes"])
    page.goto(f"{url}/console#token={TOKEN}")
    page.locator(f"[data-testid=console-conversation][data-id='{cid}']").click()
    page.locator("[data-testid=console-turn]").first.wait_for(timeout=TIMEOUT_MS)
    assert page.locator("[data-testid=console-consent]").count() == 1  # the compliance view shows the consent


@pytest.fixture
def with_dead_letter(tmp_path: Path, arc_bundle: RuleBundle) -> Iterator[tuple[Service, str, Any]]:  # noqa: F811
    receiver = Receiver([500, 500])

    def crash_on_boom(request: ProposerInput) -> None:
        if "boom" in request.message.text:
            raise RuntimeError("proposer exploded")

    notifier = _notifier(tmp_path, receiver.url)
    service = make_service(SQLiteStore(tmp_path / "leads.db", audit_key=AUDIT_KEY), arc_bundle, _spec(),
                           notifier=notifier, proposer=ScriptProposer(hook=crash_on_boom))
    done = service.start("shop")
    service.turn(done, "budget 90000 EUR and mail lu@example.org")  # completes: one webhook, refused twice
    now = datetime.now(UTC)
    notifier.dispatcher.run_due(now)
    notifier.dispatcher.run_due(now + timedelta(seconds=5))
    crashed = service.start("shop")
    service.turn(crashed, "boom")  # fails closed
    with LiveServer(service.app) as server:
        yield service, server.url, notifier
    receiver.server.shutdown()
    service.store.close()


def test_console_lists_dead_letters_requeues_them_and_filters_failed_closed_turns(
    page: Any, with_dead_letter: tuple[Service, str, Any], shots: Path
) -> None:
    _, url, notifier = with_dead_letter
    page.goto(f"{url}/console#token={TOKEN}")
    page.locator("[data-testid=console-conversation]").nth(1).wait_for(timeout=TIMEOUT_MS)
    # The role arrives from /v1/operator/me, fetched alongside the list: wait for it rather than race it.
    page.locator("[data-testid=console-status]", has_text="(admin)").wait_for(timeout=TIMEOUT_MS)

    page.locator("[data-testid=console-filter-turns]").select_option("fail-closed")
    assert page.locator("[data-testid=console-conversation]").count() == 1
    assert "failed closed ×1" in page.locator("[data-testid=console-conversation]").inner_text()
    page.locator("[data-testid=console-conversation]").click()
    page.locator("[data-testid=console-turn]").first.wait_for(timeout=TIMEOUT_MS)
    assert "failed closed" in page.locator("[data-testid=console-turn]").first.inner_text()
    axe_check(page, shots, "console-fail-closed-filter")
    page.screenshot(path=str(shots / "console-fail-closed-filter.png"), full_page=True)
    page.locator("[data-testid=console-filter-turns]").select_option("")
    assert page.locator("[data-testid=console-conversation]").count() == 2

    page.locator("[data-testid=console-dead-letters-open]").click()
    row = page.locator("[data-testid=console-dead-letter]")
    row.wait_for(timeout=TIMEOUT_MS)
    assert row.count() == 1 and "HTTP 500" in row.inner_text()
    assert "lu@example.org" not in page.locator("[data-testid=console-detail]").inner_text()
    axe_check(page, shots, "console-dead-letters")
    page.screenshot(path=str(shots / "console-dead-letters.png"), full_page=True)
    page.locator("[data-testid=console-requeue]").click()
    page.locator("[data-testid=console-requeued]").wait_for(timeout=TIMEOUT_MS)
    assert row.get_attribute("data-status") == "pending"
    # The same delivery (same id, so receivers can drop a duplicate) is pending again with a fresh budget.
    again = notifier.dispatcher.outbox.get(row.get_attribute("data-id"))
    assert (again.status, again.attempts) == ("pending", 0)
    axe_check(page, shots, "console-dead-letters-requeued")


def test_the_axe_check_fails_on_a_page_with_a_serious_violation(page: Any, tmp_path: Path) -> None:
    """The checker can fail: grey-on-white text and an unlabelled field are serious/critical for axe."""
    page.set_content('<html lang="en"><head><title>bad</title></head><body><main>'
                     '<p style="color:#c8c8c8;background:#fff">hard to read</p>'
                     '<input type="text"></main></body></html>')
    with pytest.raises(AssertionError) as caught:
        axe_check(page, tmp_path, "known-bad")
    assert "color-contrast" in str(caught.value) and "label" in str(caught.value)
