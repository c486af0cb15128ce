"""The console at 1440 and 390 px: the candidate-commands table shows no sealed value (``enc:siv:…``), never pushes
the page wider than the window, and the leads export button downloads the file; each view checked with axe-core
and saved as a screenshot."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.rules.loader import RuleBundle
from engine.storage.sqlite import SQLiteStore
from tests.browser.a11y import axe_check
from tests.browser.live import LiveServer
from tests.browser.widget import sized_page
from tests.service.helpers import AUDIT_KEY, TOKEN, Service, make_service

TIMEOUT_MS = 20_000


@pytest.fixture
def served(tmp_path: Path, bundle: RuleBundle, published_spec: Any) -> Iterator[tuple[Service, str, str]]:
    service = make_service(SQLiteStore(tmp_path / "console.db", audit_key=AUDIT_KEY), bundle, published_spec)
    cid = service.start()
    service.turn(cid, "budget 90000 EUR and mail lu@example.org, or budget 95000 EUR if needed")
    with LiveServer(service.app) as server:
        yield service, server.url, cid
    service.store.close()


def _no_page_overflow(page: Any) -> None:
    width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"the page is wider than the window: {width}"


@pytest.mark.parametrize(("width", "height"), [(1440, 900), (390, 844)])
def test_candidate_table_fits_and_never_shows_ciphertext(served: tuple[Service, str, str], browser: Any,
                                                         shots: Path, width: int, height: int) -> None:
    service, url, cid = served
    assert any("enc:siv:" in str(c) for r in service.store.records(cid) for c in r["candidates"])  # sealed on disk
    with sized_page(browser, width, height) as page:
        page.goto(f"{url}/console#token={TOKEN}")
        page.locator(f"[data-testid=console-conversation][data-id='{cid}']").click()
        page.locator("[data-testid=console-turn]").first.wait_for(timeout=TIMEOUT_MS)
        detail = page.locator("[data-testid=console-detail]").inner_text()
        assert "enc:siv:" not in detail
        accepted = " ".join(page.locator("[data-testid=console-candidate-accepted]").all_inner_texts())
        assert "90000" in accepted and "lu@example.org" in accepted  # opened for a role that may read them
        rejected = " ".join(page.locator("[data-testid=console-candidate-rejected]").all_inner_texts())
        assert "(encrypted personal value" in rejected  # a label (the witness column quotes the words)
        _no_page_overflow(page)
        decision = page.locator("table.candidates th", has_text="Decision")
        decision.scroll_into_view_if_needed()
        box = decision.bounding_box()
        assert box is not None and box["x"] + box["width"] <= width  # the decision column is reachable
        axe_check(page, shots, f"console-candidates-{width}")
        page.screenshot(path=str(shots / f"console-candidates-{width}.png"), full_page=True)


def test_sales_export_button_downloads_the_leads(served: tuple[Service, str, str], page: Any, shots: Path) -> None:
    _, url, cid = served
    page.goto(f"{url}/console#token={TOKEN}")
    page.locator("[data-testid=console-status]", has_text="(admin)").wait_for(timeout=TIMEOUT_MS)
    page.locator("[data-testid=console-export-open]").click()
    page.locator("[data-testid=console-export-download]").wait_for(timeout=TIMEOUT_MS)
    axe_check(page, shots, "console-export")
    page.screenshot(path=str(shots / "console-export.png"), full_page=True)
    with page.expect_download(timeout=TIMEOUT_MS) as info:
        page.locator("[data-testid=console-export-download]").click()
    download = info.value
    target = shots / download.suggested_filename
    download.save_as(str(target))
    text = target.read_text(encoding="utf-8")
    assert text.startswith("conversation_id,") and cid in text and "enc:siv:" not in text
    page.locator("[data-testid=console-export-status]", has_text="Downloaded").wait_for(timeout=TIMEOUT_MS)


@pytest.mark.parametrize(("width", "height"), [(1440, 900), (390, 844)])
def test_analytics_view_counts_conversations(served: tuple[Service, str, str], browser: Any, shots: Path,
                                             width: int, height: int) -> None:
    with sized_page(browser, width, height) as page:
        page.goto(f"{served[1]}/console#token={TOKEN}")
        page.locator("[data-testid=console-status]", has_text="(admin)").wait_for(timeout=TIMEOUT_MS)
        page.locator("[data-testid=console-analytics-open]").click()
        table = page.locator("[data-testid=console-analytics-goal-table]")
        table.wait_for(timeout=TIMEOUT_MS)
        assert "Started\t1" in table.inner_text()
        objectives = page.locator("[data-testid=console-analytics-objectives]").inner_text()
        assert "budget" in objectives and "contact" in objectives
        _no_page_overflow(page)
        axe_check(page, shots, f"console-analytics-{width}")
        page.screenshot(path=str(shots / f"console-analytics-{width}.png"), full_page=True)
