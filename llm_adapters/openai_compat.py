"""OpenAI-compatible servers (vLLM, Ollama, llama.cpp server) through Instructor and the openai client."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import SecretStr

from llm_adapters.backend import InstructorBackend, LLMBackend
from llm_adapters.config import LLMSettings, resolve_api_key
from llm_adapters.errors import LLMConfigError
from llm_adapters.redaction import protect

ADAPTER_NAME = "instructor-openai"
# Local servers usually ignore the key, but the client insists on one. Passing a placeholder explicitly also
# keeps the client from picking up an unrelated OPENAI_API_KEY and sending it to a self-hosted server.
_NO_KEY = "no-key"


def instructor_mode(mode: str) -> Any:
    import instructor

    modes = {"tools": instructor.Mode.TOOLS, "json_schema": instructor.Mode.JSON_SCHEMA,
             "json": instructor.Mode.JSON, "md_json": instructor.Mode.MD_JSON}
    return modes[mode]


def openai_compat_backend(
    settings: LLMSettings,
    *,
    api_key: SecretStr | None = None,
    http_client: Any | None = None,
    environ: Mapping[str, str] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> LLMBackend:
    """``http_client``: an ``httpx2.Client`` (tests pass one with a ``MockTransport``). Providers with
    ``stream`` get the streaming backend (cancellable at the turn's deadline); the others Instructor's."""
    import httpx2
    import instructor
    import openai

    if settings.provider.kind != "openai_compat":
        raise LLMConfigError(f"provider {settings.provider_name} is not an OpenAI-compatible provider")
    if not settings.provider.base_url:
        raise LLMConfigError(f"provider {settings.provider_name} needs a base_url", code="llm.base_url_missing")
    key = api_key or resolve_api_key(settings, environ)
    secret = key.get_secret_value() if key is not None else _NO_KEY
    if key is not None:
        protect(secret)
    client = openai.OpenAI(
        api_key=secret,
        base_url=settings.provider.base_url,
        timeout=httpx2.Timeout(settings.request_timeout_s, connect=settings.connect_timeout_s),
        max_retries=0,  # transport retries are counted by InstructorBackend
        http_client=http_client,
    )
    if settings.provider.stream:
        from llm_adapters.streaming import StreamingBackend

        return StreamingBackend(client, adapter=ADAPTER_NAME, settings=settings, sleep=sleep)
    patched = instructor.from_openai(client, mode=instructor_mode(settings.provider.mode))
    return InstructorBackend(patched, adapter=ADAPTER_NAME, settings=settings, sleep=sleep)
