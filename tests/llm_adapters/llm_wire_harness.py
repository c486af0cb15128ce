"""Offline wire harness: chat-completion fixtures served through httpx2.MockTransport (no network)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2

from llm_adapters.config import LLMSettings, load_llm_settings

WIRE = Path(__file__).resolve().parents[1] / "fixtures" / "wire"
FAKE_KEY = "sk-test-DO-NOT-LEAK-7f3a9c"
def fixture(provider: str, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((WIRE / provider / f"{name}.json").read_text(encoding="utf-8"))
    return data


class WireServer:
    """Serves fixtures in order and records every request body (the JSON the SDK put on the wire)."""

    def __init__(self, provider: str, names: list[str]) -> None:
        self.script = [fixture(provider, n) for n in names]
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(json.loads(request.content))
        self.headers.append(dict(request.headers))
        if not self.script:
            raise AssertionError("the adapter made more requests than the test scripted")
        step = self.script.pop(0)
        if "raise" in step:
            raise getattr(httpx2, step["raise"])("scripted transport failure", request=request)
        return httpx2.Response(step["status"], headers=step["headers"], json=step["body"])

    def client(self) -> httpx2.Client:
        return httpx2.Client(transport=httpx2.MockTransport(self))


def settings_for(provider: str, **overrides: Any) -> LLMSettings:
    settings = load_llm_settings(provider=provider)
    defaults: dict[str, Any] = {"max_reasks": 2, "transport_retries": 0}
    return settings.with_overrides(**{**defaults, **overrides})
