"""Build an adapter from rules/llm.json settings (the only place that chooses a provider module)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from llm_adapters.adapter import LLMAdapter
from llm_adapters.backend import LLMBackend
from llm_adapters.config import LLMSettings
from llm_adapters.sdk_logging import route_sdk_logging
from llm_adapters.templates import PromptLibrary


def backend_from_settings(
    settings: LLMSettings,
    *,
    http_client: Any | None = None,
    environ: Mapping[str, str] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> LLMBackend:
    route_sdk_logging()  # SDK and HTTP-library messages go through structlog, never raw to the terminal
    if settings.provider.kind == "mistral":
        from llm_adapters.mistral import mistral_backend

        return mistral_backend(settings, http_client=http_client, environ=environ, sleep=sleep)
    from llm_adapters.openai_compat import openai_compat_backend

    return openai_compat_backend(settings, http_client=http_client, environ=environ, sleep=sleep)


def adapter_from_settings(
    settings: LLMSettings,
    *,
    http_client: Any | None = None,
    environ: Mapping[str, str] | None = None,
    sleep: Callable[[float], None] = time.sleep,
    prompts: PromptLibrary | None = None,
) -> LLMAdapter:
    backend = backend_from_settings(settings, http_client=http_client, environ=environ, sleep=sleep)
    return LLMAdapter(backend, settings, prompts)
