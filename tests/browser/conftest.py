"""Browser tests: Debian's Chromium driven by Playwright (never `playwright install`); skipped cleanly when
/usr/bin/chromium or the playwright package is absent. Screenshots go to $GRACE_TEST_OUTPUT/browser if set,
else to the test run's temporary folder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.page_cache import prefetch

CHROMIUM = Path(os.environ.get("GRACE_CHROMIUM", "/usr/bin/chromium"))
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-dev-shm-usage",
]

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None  # type: ignore[assignment]

pytestmark = pytest.mark.browser


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    reason = None
    if not CHROMIUM.exists():
        reason = f"{CHROMIUM} is not installed (apt-get install chromium)"
    elif sync_playwright is None:
        reason = "the playwright Python package is not installed"
    for item in items:
        if "tests/browser" in str(item.fspath):
            item.add_marker(pytest.mark.browser)
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))


def _program_files() -> list[Path]:
    """Chromium's folder (Debian's /usr/bin/chromium is a script that runs /usr/lib/chromium/chromium) and
    Playwright's driver (a Node.js binary and its package)."""
    import playwright

    resolved = CHROMIUM.resolve()
    folder = resolved.parent if resolved.stat().st_size >= 1 << 20 else Path("/usr/lib") / resolved.name
    return [folder, Path(playwright.__file__).parent / "driver"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    # One Chromium per module, not per session: Playwright's sync API keeps an event loop running in the main
    # thread while it is open, and every later module of the same worker that calls asyncio.run would fail.
    assert sync_playwright is not None
    prefetch(*_program_files())  # evicted files make a launch fault them in at random: 18 s instead of 2 s
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=LAUNCH_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    # Offline by construction: anything not on the loopback test server is refused.
    context.route(
        "**/*",
        lambda route: route.continue_() if route.request.url.startswith("http://127.0.0.1:") else route.abort(),
    )
    created = context.new_page()
    errors: list[str] = []
    created.on("pageerror", lambda exc: errors.append(str(exc)))
    yield created
    context.close()
    assert errors == [], f"JavaScript errors on the page: {errors}"


@pytest.fixture
def shots(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    base = os.environ.get("GRACE_TEST_OUTPUT")
    folder = (Path(base) / "browser" / request.node.name) if base else tmp_path / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder
