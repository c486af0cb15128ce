"""Offline wire harness: chat-completion fixtures served through httpx2.MockTransport (no network).

A request with ``"stream": true`` gets server-sent events: a fixture's recorded ``sse`` lines as they are, or a
JSON chat completion cut into one chunk per piece of its content (the way llama.cpp streams token by token).
Each streamed body records how many chunks the client read and whether it closed the stream.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2

from llm_adapters.config import LLMSettings, load_llm_settings

WIRE = Path(__file__).resolve().parents[1] / "fixtures" / "wire"
FAKE_KEY = "sk-test-DO-NOT-LEAK-7f3a9c"


class SSEBody(httpx2.SyncByteStream):
    """A streamed response body that yields one event at a time and records reads and the close."""

    def __init__(self, events: list[str]) -> None:
        self.events = events
        self.read = 0
        self.closed = False

    def __iter__(self) -> Iterator[bytes]:
        for event in self.events:
            if self.closed:
                return
            self.read += 1
            yield event.encode("utf-8")

    def close(self) -> None:
        self.closed = True


_PIECE = re.compile(r"\s*\S+|\s+$")


def sse_from_completion(body: dict[str, Any]) -> list[str]:
    """A JSON chat completion as llama-cpp-python streams it: role, one chunk per piece of content, finish."""
    choice = body["choices"][0]
    content = choice["message"].get("content") or ""
    base = {"id": body.get("id", "chatcmpl-x"), "object": "chat.completion.chunk", "created": body.get("created", 0),
            "model": body.get("model", "local")}

    def chunk(delta: dict[str, Any], finish: str | None) -> str:
        data = {**base, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}
        return f"data: {json.dumps(data)}\n\n"

    events = [chunk({"role": "assistant"}, None)]
    events += [chunk({"content": piece}, None) for piece in _PIECE.findall(content)]
    events.append(chunk({}, choice.get("finish_reason") or "stop"))
    events.append("data: [DONE]\n\n")
    return events


def fixture(provider: str, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((WIRE / provider / f"{name}.json").read_text(encoding="utf-8"))
    return data


class WireServer:
    """Serves fixtures in order and records every request body (the JSON the SDK put on the wire)."""

    def __init__(self, provider: str, names: list[str]) -> None:
        self.script = [fixture(provider, n) for n in names]
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.streams: list[SSEBody] = []
        self.urls: list[str] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        if "input" in body and "messages" not in body:  # a prompt-token count (llama-cpp-python's extras)
            return httpx2.Response(200, json={"count": len(body["input"].split())})
        self.requests.append(body)
        self.urls.append(str(request.url))
        self.headers.append(dict(request.headers))
        if not self.script:
            raise AssertionError("the adapter made more requests than the test scripted")
        step = self.script.pop(0)
        if "raise" in step:
            raise getattr(httpx2, step["raise"])("scripted transport failure", request=request)
        if body.get("stream") and step["status"] == 200:
            events = step["sse"] if "sse" in step else sse_from_completion(step["body"])
            stream = SSEBody(events)
            self.streams.append(stream)
            return httpx2.Response(200, headers={"content-type": "text/event-stream"}, stream=stream)
        return httpx2.Response(step["status"], headers=step["headers"], json=step["body"])

    def client(self) -> httpx2.Client:
        return httpx2.Client(transport=httpx2.MockTransport(self))


def settings_for(provider: str, **overrides: Any) -> LLMSettings:
    settings = load_llm_settings(provider=provider)
    defaults: dict[str, Any] = {"max_reasks": 2, "transport_retries": 0}
    return settings.with_overrides(**{**defaults, **overrides})
