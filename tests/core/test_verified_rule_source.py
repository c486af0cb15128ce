"""Issue 11 item 7: the engine's assembly reads rule files only from the verified in-memory bundle it pins,
never again from the rules/ folder on disk (which may have changed since the bundle was verified)."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import pytest

import llm_adapters.config
from engine.kernel.turn import TurnRuntime
from engine.storage.memory import InMemoryStore
from llm_adapters.wiring import use_llm
from tests.core.scripted import ScriptedProposer
from tests.proposer.helpers import demo_spec, project_bundle


@pytest.mark.slow
def test_llm_wiring_uses_the_pinned_bundle_not_the_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    bundle = project_bundle()
    llm = copy.deepcopy(bundle.file("llm"))
    llm["providers"]["ollama"]["model"] = "model-of-the-pinned-bundle"
    llm["modulation"]["max_chars"] = 77
    pinned = dataclasses.replace(bundle, files={**bundle.files, "llm": llm})
    # The folder is gone (or changed) after verification: nothing may read it again.
    monkeypatch.setattr(llm_adapters.config, "DEFAULT_RULES_DIR", tmp_path / "no-rules-here")
    runtime = TurnRuntime(spec=demo_spec("re"), bundle=pinned, proposer=ScriptedProposer(),  # type: ignore[arg-type]
                          answerer=None, store=InMemoryStore(), audit_key=b"k" * 32)
    runtime = use_llm(runtime, "ollama")
    adapter = runtime.proposer.primary  # type: ignore[attr-defined]
    assert adapter.settings.provider.model == "model-of-the-pinned-bundle"
    assert adapter.settings.modulation.max_chars == 77


def test_spec_vocabularies_are_checked_against_the_bundles_own_schema(tmp_path: Path) -> None:
    """The vocabulary schema is read with the bundle and kept in memory: a later change on disk is not used."""
    import shutil

    from engine.kernel.company_data import company_data_issues
    from engine.rules.loader import DEFAULT_RULES_DIR, load_bundle

    root = tmp_path / "rules"
    shutil.copytree(DEFAULT_RULES_DIR, root, ignore=shutil.ignore_patterns("published"))
    bundle = load_bundle(root, require_published=False)
    assert "schemas/vocabulary.schema.json" in bundle.schemas
    spec = demo_spec("cl").spec
    assert spec.vocabularies and company_data_issues(spec, bundle) == []
    (root / "schemas" / "vocabulary.schema.json").write_text('{"not": {}}', encoding="utf-8")  # rejects all
    assert company_data_issues(spec, bundle) == []
