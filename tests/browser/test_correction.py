"""A correction in the widget (issue 32 item 1), EN and ES, against `grace serve --demo` (the real-estate demo): the
visitor changes a value already recorded and the reply shows the new value with the one it replaces, never a bare
"noted"; the state keeps the objective complete and the turn's audit record names the revision. Checked with
axe-core and saved as screenshots at 1440 and 390 px."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.service.runner import Built
from tests.browser.a11y import axe_check
from tests.browser.demo_server import served_demo
from tests.browser.widget import send, sized_page
from tests.support.embeddings import link_embeddings

TIMEOUT_MS = 30_000

# (language, first message, correction, the new and the old value as the reply shows them): my own wordings
CASES = [
    ("en", "My budget is 250,000 euros", "Sorry, make that 280,000 euros, not 250,000", "€280,000", "€250,000"),
    ("es", "Mi presupuesto es de 250.000 euros", "Perdón, el presupuesto es 280.000 euros, no 250.000", "280.000",
     "250.000"),
]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, shared_embeddings: Path) -> Iterator[tuple[Built, str]]:
    with served_demo(link_embeddings(tmp_path_factory.mktemp("correction-data"), shared_embeddings)) as served:
        yield served


@pytest.mark.parametrize(("width", "height"), [(1440, 900), (390, 844)])
@pytest.mark.parametrize(("lang", "first", "correction", "new", "old"), CASES, ids=[c[0] for c in CASES])
def test_widget_shows_a_correction_with_the_value_it_replaces(
    demo: tuple[Built, str], browser: Any, shots: Path, width: int, height: int, lang: str, first: str,
    correction: str, new: str, old: str,
) -> None:
    built, url = demo
    with sized_page(browser, width, height) as page:
        page.goto(f"{url}/demo/real-estate?lang={lang}")
        page.locator("[data-testid=grace-launcher]").click()
        before = send(page, first, 1, TIMEOUT_MS)
        assert before.get_attribute("data-state", timeout=TIMEOUT_MS).startswith("1")
        reply = send(page, correction, 2, TIMEOUT_MS)
        notice = reply.locator("[data-testid=grace-notice]").first.inner_text()
        assert new in notice and old in notice and notice.index(new) < notice.index(old)  # the new value, then the old
        assert reply.get_attribute("data-state").startswith("1")  # still complete: a revision, not a reset
        assert reply.locator("[data-testid=grace-ack]").count() == 0  # never the bare "Thank you, noted."
        cid = page.locator("#grace-widget").get_attribute("data-conversation")
        assert cid
        notes = [n for r in built.store.records(cid) for n in r["notes"]]
        assert "arc.revision:budget" in notes
        axe_check(page, shots, f"widget-correction-{lang}-{width}")
        page.screenshot(path=str(shots / f"widget-correction-{lang}-{width}.png"))
