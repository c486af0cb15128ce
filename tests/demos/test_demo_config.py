"""demo.json: which answerer a demo uses, how demo_runtime builds it, and how it fails closed."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from engine import demos
from engine.cli.chat import run_chat
from engine.demos import PROJECT_ROOT, AnswererConfig, load_demo, read_config
from engine.directory.answer import DirectoryAnswerer
from engine.errors import InputError
from engine.rules.loader import RuleBundle
from engine.runtimes import demo_answerer, demo_runtime
from tests.demos.conftest import PANTRY_DIR, make_demo_folder
from tests.demos.pantry_directory import DIRECTORY_ID, write_directory

SHARED_DIRECTORY = PROJECT_ROOT.parent / "shared" / "data" / "directories" / "kansas" / "pantry_data.json"


def _demo_json(answerer: dict[str, str]) -> str:
    return json.dumps({"version": "1.0.0", "description": "test demo", "answerer": answerer})


@pytest.mark.parametrize("name", ["real-estate", "cleaning"])
def test_corpus_demos_keep_their_corpus(name: str) -> None:
    demo = load_demo(name)
    assert demo.answerer == AnswererConfig(kind="corpus")
    assert demo.config_version == "1.0.0"
    assert demo.corpus_dir == PROJECT_ROOT / "demos" / name.replace("-", "_") / "corpus"


def test_pantry_config_names_the_shared_kansas_directory() -> None:
    config, version = read_config(PANTRY_DIR)
    assert version == "1.0.0" and config.kind == "directory" and config.variant == "KG-3"
    assert config.directory == SHARED_DIRECTORY.resolve()  # relative to the project root, outside the project
    assert config.mapping == PROJECT_ROOT / "demos" / "directories" / "mappings" / "kansas.json"
    assert config.mapping.is_file()


def test_a_folder_without_demo_json_uses_its_corpus(tmp_path: Path) -> None:
    assert read_config(tmp_path) == (AnswererConfig(kind="corpus"), None)


@pytest.mark.parametrize(("content", "code"), [
    (_demo_json({"kind": "directory", "mapping": "m.json"}), "demo.config_invalid"),
    (_demo_json({"kind": "database"}), "demo.config_invalid"),
    (_demo_json({"kind": "directory", "directory": "d.json", "mapping": "m.json", "variant": "KG-9"}),
     "demo.config_invalid"),
    (json.dumps({"answerer": {"kind": "corpus"}}), "demo.config_invalid"),
    ("{not json", "demo.config_unreadable"),
])
def test_bad_demo_json_fails_closed(tmp_path: Path, content: str, code: str) -> None:
    (tmp_path / "demo.json").write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_config(tmp_path)
    assert info.value.code == code


def test_missing_directory_file_is_demo_data_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     project_bundle: RuleBundle) -> None:
    missing = tmp_path / "nowhere" / "pantries.json"
    mapping = PROJECT_ROOT / "demos" / "directories" / "mappings" / "kansas.json"
    make_demo_folder(tmp_path / "demos", project_bundle,
                     _demo_json({"kind": "directory", "directory": str(missing), "mapping": str(mapping)}))
    monkeypatch.setattr(demos, "DEMOS_DIR", tmp_path / "demos")
    demo = load_demo("pantry-helpline")
    with pytest.raises(InputError) as info:
        demo_answerer(demo, project_bundle)
    assert info.value.code == "demo.data_missing"
    assert str(missing) in info.value.message
    with pytest.raises(InputError, match=r"^demo\.data_missing: "):
        demo_runtime("pantry-helpline", bundle=project_bundle)
    # without an answerer the demo still runs (state only), as `grace chat --no-answers` does
    _, runtime = demo_runtime("pantry-helpline", bundle=project_bundle, with_answerer=False)
    assert runtime.answerer is None


def test_demo_runtime_builds_the_directory_answerer_and_chats(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              project_bundle: RuleBundle) -> None:
    directory, mapping = write_directory(tmp_path / "data")
    make_demo_folder(tmp_path / "demos", project_bundle,
                     _demo_json({"kind": "directory", "directory": str(directory), "mapping": str(mapping)}))
    monkeypatch.setattr(demos, "DEMOS_DIR", tmp_path / "demos")
    demo, runtime = demo_runtime("pantry-helpline", bundle=project_bundle, audit_key=b"k" * 32)
    assert isinstance(runtime.answerer, DirectoryAnswerer)
    assert demo.spec.ref == "pantry-helpline/v1" and demo.language == "en"
    out = io.StringIO()
    run_chat(runtime, None, io.StringIO(
        "I'm in Cedar Springs and need food for me and my two kids\n"
        "Which ones deliver?\n"
        "call me on 785-555-0142\n\n"), out)
    text = out.getvalue()
    assert f"[{DIRECTORY_ID}#" in text
    assert "state 110  action ASK(contact)" in text and "state 111  action NONE" in text
    assert "«I'm in Cedar Springs and need food for me and my two kids»  accepted (place.ok)" in text


@pytest.mark.skipif(not SHARED_DIRECTORY.exists(), reason="shared Kansas directory not present")
def test_pantry_helpline_demo_runtime_over_the_shared_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, project_bundle: RuleBundle
) -> None:
    if not (PANTRY_DIR / "published").is_dir():  # not yet published by the lead: publish into a scratch demos dir
        make_demo_folder(tmp_path / "demos", project_bundle)
        monkeypatch.setattr(demos, "DEMOS_DIR", tmp_path / "demos")
    _, runtime = demo_runtime("pantry-helpline", bundle=project_bundle, audit_key=b"k" * 32)
    state = runtime.start()
    result = runtime.handle(state.conversation_id,
                            "I'm in Wichita and need food for my family of five, my number is 316-555-0142")
    assert result.state == "111"
    assert result.answer.supported and result.answer.citations
    assert all(c.source.startswith("kansas#") for c in result.answer.citations)
    assert all("Wichita" in c.quote for c in result.answer.citations)
