"""Adapter settings from rules/llm.json (schema-checked); API keys come only from the environment."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import jsonschema
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from llm_adapters.errors import LLMConfigError

DEFAULT_RULES_DIR = Path(__file__).resolve().parent.parent / "rules"

Mode = Literal["tools", "json_schema", "json", "md_json"]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ProviderSettings(_Frozen):
    kind: Literal["mistral", "openai_compat"]
    model: str
    base_url: str | None
    api_key_env: str | None
    api_key_required: bool
    mode: Mode
    stream: bool = False  # server-sent events with cancellation (json modes of OpenAI-compatible servers)
    system_role: bool = True  # False: the chat template has no system role (Gemma); merged into the user turn
    token_count_path: str | None = None  # server path counting prompt tokens when a stream reports no usage


class ModulationRules(_Frozen):
    max_chars: int
    min_shared_terms: int
    min_shared_question_terms: int
    min_term_length: int
    stopwords: dict[str, list[str]]


class LLMSettings(_Frozen):
    """Everything one adapter instance needs, resolved for one provider."""

    rules_version: str
    provider_name: str
    provider: ProviderSettings
    temperature: float
    max_tokens: int  # the ceiling of every role's budget
    role_max_tokens: dict[str, int] = Field(default_factory=dict)  # role -> output budget (<= max_tokens)
    reserve_ms: int = 0  # turn time kept for fallbacks and the decision: LLM calls stop when only this remains
    min_call_ms: int = 0  # a call is not started with less than this beyond the reserve
    max_history_messages: int | None = None  # None: the whole conversation goes into prompts
    max_reasks: int
    transport_retries: int
    backoff_initial_ms: int
    backoff_max_ms: int
    request_timeout_s: float
    connect_timeout_s: float
    prompt_languages: list[str]
    fallback_language: str
    modulation: ModulationRules

    def budget(self, role: str) -> int:
        """The output-token budget of ``role``: its own, never above the ceiling."""
        return min(self.role_max_tokens.get(role, self.max_tokens), self.max_tokens)

    def with_overrides(self, **changes: Any) -> LLMSettings:
        """A copy with top-level or provider fields replaced (``model``, ``base_url``, ``mode`` go to the provider)."""
        provider_fields = {k: changes.pop(k) for k in list(changes) if k in ProviderSettings.model_fields}
        provider = self.provider.model_copy(update=provider_fields)
        try:
            return LLMSettings.model_validate({**self.model_dump(), **changes, "provider": provider.model_dump()})
        except ValidationError as exc:
            raise LLMConfigError(f"invalid LLM setting override: {exc.errors()[0]['msg']}") from exc


def read_llm_rules(source: Path | Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The parsed rules/llm.json, validated against rules/schemas/llm.schema.json."""
    if isinstance(source, Mapping):
        return dict(source)
    root = source or DEFAULT_RULES_DIR
    try:
        data = json.loads((root / "llm.json").read_text(encoding="utf-8"))
        schema = json.loads((root / "schemas" / "llm.schema.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LLMConfigError(f"rules/llm.json or its schema is not readable JSON ({exc})") from exc
    try:
        jsonschema.validate(data, schema)
    except jsonschema.ValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(top)"
        raise LLMConfigError(f"llm.json: at {where}: {exc.message}") from exc
    if not isinstance(data, dict):
        raise LLMConfigError("llm.json: top level must be an object")
    return data


def load_llm_settings(source: Path | Mapping[str, Any] | None = None, *, provider: str | None = None) -> LLMSettings:
    """Settings for ``provider`` (default: the file's default_provider)."""
    data = read_llm_rules(source)
    name = provider or data["default_provider"]
    if name not in data["providers"]:
        raise LLMConfigError(f"unknown LLM provider {name!r} (configured: {', '.join(sorted(data['providers']))})",
                             code="llm.provider_unknown")
    try:
        settings = LLMSettings(
            rules_version=data["version"],
            provider_name=name,
            provider=ProviderSettings.model_validate(data["providers"][name]),
            temperature=data["generation"]["temperature"],
            max_tokens=data["generation"]["max_tokens"],
            role_max_tokens={role: entry["max_tokens"] for role, entry in data["roles"].items()},
            reserve_ms=data["deadline"]["reserve_ms"],
            min_call_ms=data["deadline"]["min_call_ms"],
            max_history_messages=data["prompt"]["max_history_messages"],
            max_reasks=data["retries"]["max_reasks"],
            transport_retries=data["retries"]["transport_retries"],
            backoff_initial_ms=data["retries"]["backoff_initial_ms"],
            backoff_max_ms=data["retries"]["backoff_max_ms"],
            request_timeout_s=data["timeouts"]["request_s"],
            connect_timeout_s=data["timeouts"]["connect_s"],
            prompt_languages=data["prompt_languages"]["supported"],
            fallback_language=data["prompt_languages"]["fallback"],
            modulation=ModulationRules.model_validate(data["modulation"]),
        )
    except (KeyError, ValidationError) as exc:
        raise LLMConfigError(f"llm.json is incomplete or ill-typed ({type(exc).__name__})") from exc
    over = sorted(role for role, budget in settings.role_max_tokens.items() if budget > settings.max_tokens)
    if over:
        raise LLMConfigError(f"llm.json: roles {', '.join(over)} exceed generation.max_tokens "
                             f"({settings.max_tokens})", code="llm.budget_invalid")
    if settings.provider.stream and settings.provider.mode not in ("json", "json_schema"):
        raise LLMConfigError(f"provider {name}: stream needs mode json or json_schema (not {settings.provider.mode})",
                             code="llm.stream_unsupported")
    return settings


def load_modulation_rules(source: Path | Mapping[str, Any] | None = None) -> ModulationRules:
    try:
        return ModulationRules.model_validate(read_llm_rules(source)["modulation"])
    except (KeyError, ValidationError) as exc:
        raise LLMConfigError("llm.json: modulation section is missing or ill-typed") from exc


def resolve_api_key(settings: LLMSettings, environ: Mapping[str, str] | None = None) -> SecretStr | None:
    """The provider's key from its environment variable; missing + required is a config error (no value shown)."""
    env = os.environ if environ is None else environ
    name = settings.provider.api_key_env
    value = env.get(name, "").strip() if name else ""
    if value:
        return SecretStr(value)
    if settings.provider.api_key_required:
        raise LLMConfigError(f"provider {settings.provider_name} needs an API key in ${name}",
                             code="llm.api_key_missing")
    return None
