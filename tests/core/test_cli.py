"""The grace command line: goals, rules and chat on embedded defaults."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from engine.cli import main
from engine.cli.chat import run_chat
from engine.kernel.turn import TurnRuntime
from engine.rules.loader import RuleBundle
from engine.storage.memory import InMemoryStore
from tests.conftest import make_spec, publish
from tests.core.scripted import ScriptedProposer


def test_rules_prove_prints_each_property(capsys: pytest.CaptureFixture[str], core_rules_dir: Path) -> None:
    assert main(["rules", "prove", "--rules", str(core_rules_dir)]) == 0
    out = capsys.readouterr().out
    assert out.count("proved") == 14 and "refused_objective_never_asked" in out
    assert "contact_rejected_when_company" in out and "value_rejected_when_others_wish" in out


@pytest.fixture()
def draft_rules(core_rules_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GRACE_RULES_DRAFT", "1")
    return core_rules_dir


def test_goals_validate_reports_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str], draft_rules: Path) -> None:
    data = make_spec().model_dump(mode="json")
    data["objectives"][0]["weight"] = "0.9"
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(data))
    assert main(["goals", "validate", str(path), "--json", "--rules", str(draft_rules)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["valid"] is False
    assert "goalspec.weights_not_normalised" in [i["code"] for i in report["issues"]]


def test_bad_input_exits_with_code(tmp_path: Path, capsys: pytest.CaptureFixture[str], draft_rules: Path) -> None:
    missing = tmp_path / "nope.json"
    assert main(["goals", "approve", str(missing), "--by", "x", "--rules", str(draft_rules)]) == 2
    assert "goalspec.unreadable" in capsys.readouterr().err


def test_unpublished_bundle_refused_without_draft_mode(core_rules_dir: Path, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("GRACE_RULES_DRAFT", raising=False)
    assert main(["goals", "validate", str(tmp_path / "x.json"), "--rules", str(core_rules_dir)]) == 2
    assert "rules.not_published" in capsys.readouterr().err


def test_chat_loop_shows_state_and_witness(bundle: RuleBundle) -> None:
    runtime = TurnRuntime(spec=publish(make_spec()), bundle=bundle, proposer=ScriptedProposer(), answerer=None,
                          store=InMemoryStore(), audit_key=b"k" * 32)
    out = io.StringIO()
    run_chat(runtime, None, io.StringIO("my budget is 350000 EUR\nwrite to ana@example.com\n\n"), out)
    text = out.getvalue()
    assert "state 1000  action ASK(location)" in text
    assert "«350000 EUR»  accepted (money.ok)" in text
    assert "state 1001" in text


def test_each_named_command_is_the_one_its_module_registers() -> None:
    import argparse
    import importlib

    from engine.cli import COMMANDS

    for name, (module_name, function_name) in COMMANDS.items():
        sub = argparse.ArgumentParser().add_subparsers()
        getattr(importlib.import_module(module_name), function_name)(sub)
        assert list(sub.choices) == [name], module_name


def test_a_command_loads_only_its_own_module_and_parses_as_in_the_whole_parser() -> None:
    import subprocess
    import sys

    code = ("import sys\nfrom engine.cli import COMMANDS, build_parser\n"
            "args = vars(build_parser(['audit', 'verify', 'x.db']).parse_args(['audit', 'verify', 'x.db']))\n"
            "loaded = sorted(n for n, (m, _) in COMMANDS.items() if m in sys.modules)\n"
            "whole = vars(build_parser().parse_args(['audit', 'verify', 'x.db']))\n"
            "print(loaded, args == whole)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["['audit']", "True"]


def test_an_unknown_command_is_refused_with_the_whole_list(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["nonsense"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'nonsense'" in err and "serve" in err and "trace" in err
