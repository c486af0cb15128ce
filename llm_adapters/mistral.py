"""Mistral (paper configuration: mistral-small-2603, temperature 0.2, 4096 output tokens) through Instructor."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import SecretStr

from llm_adapters.backend import InstructorBackend
from llm_adapters.config import LLMSettings, resolve_api_key
from llm_adapters.errors import LLMConfigError
from llm_adapters.redaction import protect

ADAPTER_NAME = "instructor-mistral"


def instructor_mode(mode: str) -> Any:
    import instructor

    modes = {"tools": instructor.Mode.TOOLS, "json_schema": instructor.Mode.JSON_SCHEMA,
             "md_json": instructor.Mode.MD_JSON}
    if mode not in modes:
        raise LLMConfigError(f"mode {mode} is not available for Mistral (use {', '.join(modes)})",
                             code="llm.mode_unsupported")
    return modes[mode]


def mistral_backend(
    settings: LLMSettings,
    *,
    api_key: SecretStr | None = None,
    http_client: Any | None = None,
    environ: Mapping[str, str] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> InstructorBackend:
    """``http_client``: an ``httpx2.Client`` (tests pass one with a ``MockTransport``)."""
    import httpx2
    import instructor
    from mistralai.client import Mistral

    if settings.provider.kind != "mistral":
        raise LLMConfigError(f"provider {settings.provider_name} is not a Mistral provider")
    key = api_key or resolve_api_key(settings, environ)
    if key is None:
        raise LLMConfigError(f"provider {settings.provider_name} needs an API key", code="llm.api_key_missing")
    secret = key.get_secret_value()
    protect(secret)
    client = http_client or httpx2.Client(
        timeout=httpx2.Timeout(settings.request_timeout_s, connect=settings.connect_timeout_s),
        follow_redirects=True,
    )
    # No SDK retry_config: transport retries are counted by InstructorBackend, so the bound is exact.
    sdk = Mistral(api_key=secret, server_url=settings.provider.base_url, client=client,
                  timeout_ms=int(settings.request_timeout_s * 1000))
    patched = instructor.from_mistral(sdk, mode=instructor_mode(settings.provider.mode))
    return InstructorBackend(patched, adapter=ADAPTER_NAME, settings=settings, sleep=sleep)
