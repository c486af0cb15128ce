"""Driving the chat widget in a browser test: send a visitor message and wait for the bot's reply to it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def send(page: Any, text: str, count: int, timeout_ms: int) -> Any:
    """Type ``text`` and press Enter; the ``count``-th bot reply of the conversation, once shown."""
    page.locator("[data-testid=grace-input]").fill(text)
    page.locator("[data-testid=grace-input]").press("Enter")
    reply = page.locator("[data-testid=grace-bot]").nth(count - 1)
    reply.wait_for(timeout=timeout_ms)
    return reply


@contextmanager
def sized_page(browser: Any, width: int, height: int) -> Iterator[Any]:
    """A page in its own browser context at ``width`` x ``height`` (en-US), closed afterwards."""
    context = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
    try:
        yield context.new_page()
    finally:
        context.close()
