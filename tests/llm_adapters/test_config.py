"""rules/llm.json: schema, paper defaults, provider selection and overrides."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest

from llm_adapters.config import DEFAULT_RULES_DIR, load_llm_settings, read_llm_rules
from llm_adapters.errors import LLMConfigError


def test_rule_file_matches_its_schema() -> None:
    data = json.loads((DEFAULT_RULES_DIR / "llm.json").read_text(encoding="utf-8"))
    schema = json.loads((DEFAULT_RULES_DIR / "schemas" / "llm.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(data, schema)
    assert data["version"] and data["description"]


def test_paper_configuration_is_the_default() -> None:
    settings = load_llm_settings()
    assert settings.provider_name == "mistral"
    assert settings.provider.model == "mistral-small-2603"
    assert (settings.temperature, settings.max_tokens) == (0.2, 4096)
    assert settings.provider.api_key_env == "MISTRAL_API_KEY"
    assert settings.max_reasks >= 1 and settings.transport_retries >= 0


def test_openai_compatible_providers_are_configuration() -> None:
    for name in ("vllm", "ollama", "llamacpp"):
        settings = load_llm_settings(provider=name)
        assert settings.provider.kind == "openai_compat"
        assert settings.provider.base_url is not None and settings.provider.base_url.startswith("http")


def test_unknown_provider_is_a_config_error() -> None:
    with pytest.raises(LLMConfigError) as info:
        load_llm_settings(provider="nope")
    assert info.value.code == "llm.provider_unknown"


def test_overrides_reach_the_provider_and_are_validated() -> None:
    settings = load_llm_settings(provider="llamacpp").with_overrides(model="qwen", base_url="http://10.0.0.2:9000/v1",
                                                                     temperature=0.0)
    assert (settings.provider.model, settings.provider.base_url, settings.temperature) == (
        "qwen", "http://10.0.0.2:9000/v1", 0.0)
    with pytest.raises(LLMConfigError):
        settings.with_overrides(mode="telepathy")


def test_a_rule_file_violating_its_schema_is_refused(tmp_path: Path) -> None:
    shutil.copytree(DEFAULT_RULES_DIR / "schemas", tmp_path / "schemas")
    data = json.loads((DEFAULT_RULES_DIR / "llm.json").read_text(encoding="utf-8"))
    data["generation"]["temperature"] = 7
    (tmp_path / "llm.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(LLMConfigError) as info:
        read_llm_rules(tmp_path)
    assert "generation/temperature" in info.value.message


def test_settings_load_from_a_bundle_mapping() -> None:
    data = read_llm_rules()
    assert load_llm_settings(data, provider="ollama").provider.model == data["providers"]["ollama"]["model"]
