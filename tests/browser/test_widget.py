"""The embeddable widget and the operator console in headless Chromium, against a live local server
(real runtime, decision layer, audit chain and SQLite; a tiny exact proposer and fixed company answer)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.kernel.goal_models import PublishedGoalSpec
from engine.rules.loader import RuleBundle
from engine.storage.sqlite import SQLiteStore
from tests.browser.live import LiveServer
from tests.service.helpers import TOKEN, Service, make_service

TIMEOUT_MS = 20_000


@pytest.fixture
def live(tmp_path: Path, bundle: RuleBundle, published_spec: PublishedGoalSpec) -> Iterator[tuple[Service, str]]:
    service = make_service(SQLiteStore(tmp_path / "browser.db"), bundle, published_spec)
    with LiveServer(service.app) as server:
        yield service, server.url
    service.store.close()


def send(page: Any, text: str, replies: int) -> Any:
    page.locator("[data-testid=grace-input]").fill(text)
    page.locator("[data-testid=grace-input]").press("Enter")
    bots = page.locator("[data-testid=grace-bot]")
    bots.nth(replies - 1).wait_for(timeout=TIMEOUT_MS)
    return bots.nth(replies - 1)


def test_widget_conversation_in_english_and_console(page: Any, live: tuple[Service, str], shots: Path) -> None:
    service, url = live
    page.goto(f"{url}/demo/test?lang=en")
    launcher = page.locator("[data-testid=grace-launcher]")
    assert launcher.inner_text() == "Chat with us"
    launcher.click()
    assert "Ask us anything" in page.locator("[data-testid=grace-greeting]").inner_text()

    first = send(page, "My budget is 250000 EUR. Do you work downtown?", 1)
    assert first.locator("[data-testid=grace-answer]").inner_text() == "We work in the whole city."
    assert first.locator("[data-testid=grace-citation]").count() == 1
    first.locator("[data-testid=grace-sources] summary").click()
    cited = first.locator("[data-testid=grace-citation]").inner_text()
    assert "Service areas › Where do you work?" in cited  # the page and section a person recognises
    assert "areas.md" not in cited and "#" not in cited  # never the internal ids
    assert first.locator("[data-testid=grace-question]").inner_text() == "What is your location?"
    assert page.locator("#grace-widget").get_attribute("data-state") == "1000"

    second = send(page, "You can write to ana@example.org", 2)
    assert second.get_attribute("data-state") == "1001"
    third = send(page, "Or maybe 5000 EUR", 3)  # budget is already complete: this Complete is rejected
    assert third.get_attribute("data-state") == "1001"
    page.screenshot(path=str(shots / "widget-en.png"))

    cid = page.locator("#grace-widget").get_attribute("data-conversation")
    assert service.store.load(cid).state_string() == "1001"

    # The operator console shows the same conversation, its witnesses and a verified audit chain.
    page.goto(f"{url}/console#token={TOKEN}")
    assert "token=" not in page.url  # the fragment is consumed, not kept in history
    page.locator(f"[data-testid=console-conversation][data-id='{cid}']").click()
    page.locator("[data-testid=console-turn]").nth(2).wait_for(timeout=TIMEOUT_MS)
    chain = page.locator("[data-testid=console-chain]")
    assert chain.get_attribute("data-ok") == "true"
    assert "verified" in chain.inner_text()
    witnesses = page.locator("[data-testid=console-witness]")
    assert sorted(witnesses.all_inner_texts()) == ["250000 EUR", "ana@example.org"]
    assert witnesses.first.get_attribute("data-objective") == "budget"
    assert page.locator("[data-testid=console-utility-chosen]").count() == 3
    rejected = page.locator("[data-testid=console-candidate-rejected]")
    assert rejected.count() == 1
    assert "transition.already_complete" in rejected.inner_text()  # the reason code is shown
    assert page.locator("[data-testid=console-witness-rejected]").inner_text() == "5000 EUR"
    page.screenshot(path=str(shots / "console.png"), full_page=True)


def test_widget_speaks_spanish_and_survives_a_reload(page: Any, live: tuple[Service, str], shots: Path) -> None:
    service, url = live
    page.goto(f"{url}/demo/test?lang=es")
    launcher = page.locator("[data-testid=grace-launcher]")
    assert launcher.inner_text() == "Hablemos"
    launcher.click()
    assert "Pregúntenos" in page.locator("[data-testid=grace-greeting]").inner_text()
    reply = send(page, "Mi presupuesto es 300000 EUR", 1)
    assert reply.locator("[data-testid=grace-question]").inner_text() == "¿Cuál es su location?"
    page.screenshot(path=str(shots / "widget-es.png"))

    # Empty input is refused locally, in Spanish, without a request.
    page.locator("[data-testid=grace-input]").fill("   ")
    page.locator("[data-testid=grace-send]").click()
    assert page.locator("[data-testid=grace-error]").last.inner_text() == "Escriba un mensaje primero."

    # Same tab, page reloaded: the conversation is restored from the server, not restarted.
    cid = page.locator("#grace-widget").get_attribute("data-conversation")
    page.reload()
    page.locator("[data-testid=grace-launcher]").click()
    page.locator("[data-testid=grace-visitor]").first.wait_for(timeout=TIMEOUT_MS)
    assert page.locator("[data-testid=grace-visitor]").all_inner_texts() == ["Mi presupuesto es 300000 EUR"]
    assert page.locator("#grace-widget").get_attribute("data-conversation") == cid
    assert service.store.list_conversations() == [cid]


def test_console_requires_the_token(page: Any, live: tuple[Service, str]) -> None:
    _, url = live
    page.goto(f"{url}/console")
    page.locator("[data-testid=console-token]").fill("wrong-token-wrong-token")
    page.locator("[data-testid=console-signin]").click()
    error = page.locator("#signin-error")
    error.wait_for(state="visible", timeout=TIMEOUT_MS)
    assert "not accepted" in error.inner_text()
    page.locator("[data-testid=console-token]").fill(TOKEN)
    page.locator("[data-testid=console-signin]").click()
    page.locator("[data-testid=console-detail]").wait_for(timeout=TIMEOUT_MS)
    assert page.locator("#app").is_visible()


def test_widget_keeps_and_sends_the_visitor_token(page: Any, live: tuple[Service, str]) -> None:
    """The widget stores the capability returned at creation and sends it on every read and turn; the
    conversation id alone, as anyone could copy it from the page, reads nothing."""
    _, url = live
    sent: list[tuple[str, str | None]] = []
    page.on("request", lambda r: sent.append((f"{r.method} {r.url}", r.headers.get("x-visitor-token")))
            if "/v1/conversations/" in r.url else None)
    page.goto(f"{url}/demo/test?lang=en")
    page.locator("[data-testid=grace-launcher]").click()
    send(page, "My budget is 250000 EUR", 1)
    page.reload()
    page.locator("[data-testid=grace-launcher]").click()
    page.locator("[data-testid=grace-visitor]").first.wait_for(timeout=TIMEOUT_MS)
    cid = page.locator("#grace-widget").get_attribute("data-conversation")
    saved = page.evaluate("Object.keys(sessionStorage).map(k => sessionStorage.getItem(k))")
    tokens = {item.get("token") for item in map(_json, saved) if isinstance(item, dict) and item.get("id") == cid}
    assert len(tokens) == 1 and None not in tokens
    token = tokens.pop()
    base = f"{url}/v1/conversations/{cid}"
    assert [method for method, _ in sent] == [f"POST {base}/turns", f"GET {base}"]
    assert all(header == token for _, header in sent)
    probe = "async ([path, headers]) => { const r = await fetch(path, {headers}); return [r.status, await r.json()]; }"
    status, body = page.evaluate(probe, [f"/v1/conversations/{cid}", {}])
    assert (status, body["error"]["code"]) == (401, "visitor.token_missing")
    status, body = page.evaluate(probe, [f"/v1/conversations/{cid}", {"X-Visitor-Token": "guessed"}])
    assert (status, body["error"]["code"]) == (404, "conversation.not_found")
    status, _ = page.evaluate(probe, [f"/v1/conversations/{cid}", {"X-Visitor-Token": token}])
    assert status == 200


def _json(text: str) -> Any:
    import json

    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return None


def test_a_refused_message_goes_back_into_the_box(page: Any, live: tuple[Service, str], shots: Path) -> None:
    _, url = live
    page.goto(f"{url}/demo/test?lang=es")
    assert "Una página de empresa" in page.locator("main").inner_text()  # the host page speaks Spanish too
    page.locator("[data-testid=grace-launcher]").click()
    too_long = "palabra " * 2000  # over the service's message limit
    page.locator("[data-testid=grace-input]").fill(too_long)
    page.locator("[data-testid=grace-input]").press("Enter")
    page.locator("[data-testid=grace-error]").last.wait_for(timeout=TIMEOUT_MS)
    assert page.locator("[data-testid=grace-input]").input_value() == too_long.strip()
    assert page.locator("[data-testid=grace-log]").get_attribute("aria-busy") == "false"
    page.screenshot(path=str(shots / "widget-refused-message.png"))


def test_widget_and_console_pass_axe(page: Any, live: tuple[Service, str], shots: Path) -> None:
    from tests.browser.a11y import axe_check

    _, url = live
    page.goto(f"{url}/demo/test?lang=en")
    page.locator("[data-testid=grace-launcher]").wait_for(timeout=TIMEOUT_MS)
    axe_check(page, shots, "widget-idle")
    page.locator("[data-testid=grace-launcher]").click()
    send(page, "My budget is 250000 EUR. Do you work downtown?", 1)
    page.locator("[data-testid=grace-sources] summary").first.click()
    axe_check(page, shots, "widget-answer")
    page.goto(f"{url}/console")
    page.locator("[data-testid=console-token]").wait_for(timeout=TIMEOUT_MS)
    axe_check(page, shots, "console-sign-in")
    page.locator("[data-testid=console-token]").fill(TOKEN)
    page.locator("[data-testid=console-signin]").click()
    page.locator("[data-testid=console-conversation]").first.click()
    page.locator("[data-testid=console-turn]").first.wait_for(timeout=TIMEOUT_MS)
    axe_check(page, shots, "console-conversation")
