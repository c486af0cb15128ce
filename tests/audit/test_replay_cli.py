"""`grace audit replay`: a stored conversation re-decided under the same and under a changed rule bundle."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from engine.cli import main
from engine.demos import load_demo
from engine.kernel.turn import TurnRuntime
from engine.rules.loader import DEFAULT_RULES_DIR, load_bundle
from engine.storage import open_store
from llm_adapters.offline import OfflineProposer


@pytest.fixture()
def stored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str, Path]:
    monkeypatch.setenv("GRACE_RULES_DRAFT", "1")
    rules = tmp_path / "rules"
    shutil.copytree(DEFAULT_RULES_DIR, rules, ignore=shutil.ignore_patterns("published"))
    bundle = load_bundle(rules, require_published=False)
    url = f"sqlite:///{tmp_path / 'store.db'}"
    runtime = TurnRuntime(spec=load_demo("real-estate").spec, bundle=bundle,
                          proposer=OfflineProposer.from_bundle(bundle), answerer=None, store=open_store(url),
                          audit_key=b"k" * 32)
    cid = runtime.start().conversation_id
    for text in ["I want to buy near Almería.", "Hello again", "I need three bedrooms and parking."]:
        runtime.handle(cid, text)
    return url, cid, rules


def test_same_bundle_replays_without_changes(stored: tuple[str, str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    url, cid, rules = stored
    assert main(["audit", "replay", cid, "--db", url, "--rules", str(rules)]) == 0
    assert "no decision changes" in capsys.readouterr().out


def test_changed_policy_shows_changed_actions(stored: tuple[str, str, Path],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    url, cid, rules = stored
    policy = json.loads((rules / "policy.json").read_text())
    policy["offline_rubric"]["privacy_by_kind"]["money"] = 1.0  # budget questions become too intrusive
    policy["offline_rubric"]["relevance_default"] = 0.5
    (rules / "policy.json").write_text(json.dumps(policy))
    assert main(["audit", "replay", cid, "--db", url, "--rules", str(rules)]) == 1
    out = capsys.readouterr().out
    assert "decision change(s)" in out and "action ASK(budget) ->" in out


def test_replay_under_a_published_version_rebuilt_from_the_archive(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """A conversation pinned to a published bundle replays under that exact version, rebuilt whole."""
    from engine.rules.archive import published_bundle, published_versions

    version = published_versions(DEFAULT_RULES_DIR)[-1]
    url = f"sqlite:///{tmp_path / 'store.db'}"
    with published_bundle(version) as bundle:
        runtime = TurnRuntime(spec=load_demo("real-estate").spec, bundle=bundle,
                              proposer=OfflineProposer.from_bundle(bundle), answerer=None, store=open_store(url),
                              audit_key=b"k" * 32)
        cid = runtime.start().conversation_id
        for text in ["I want to buy near Almería.", "My budget is 300.000 euros."]:
            runtime.handle(cid, text)
    assert main(["audit", "replay", cid, "--db", url, "--bundle-version", version]) == 0
    assert f"no decision changes under bundle {version}" in capsys.readouterr().out
    assert main(["audit", "replay", cid, "--db", url, "--bundle-version", "0.0.1"]) == 2
    assert "rules.archive.unknown_version" in capsys.readouterr().err
