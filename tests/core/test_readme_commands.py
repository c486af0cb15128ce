"""Every `grace` command the README shows parses as written, and the cheap ones run as written.

The README is the user's manual: a command that no longer exists, or an option that was renamed, must fail here
rather than in front of a newcomer."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from engine.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
PREFIX = ".venv/bin/grace "


def _readme_commands() -> list[str]:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    commands: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if line.startswith(PREFIX):
            while line.endswith("\\") and i + 1 < len(lines):  # shell continuation lines
                i += 1
                line = line[:-1] + " " + lines[i].strip()
            commands.append(line[len(PREFIX):])
        i += 1
    return commands


def _variants(command: str) -> list[list[str]]:
    """One argv per alternative: `rules validate | prove | approve --by NAME` is three commands."""
    command = re.sub(r"\s+#.*$", "", command)  # trailing comment
    command = re.sub(r"\$\(.*\)", "", command)  # shell substitution: its expansion repeats an option shown beside it
    head, *alternatives = [part.strip() for part in command.split(" | ")]
    first = shlex.split(head)
    if not alternatives:
        return [first]
    stem = first[:-1]
    return [first, *[stem + shlex.split(alt) for alt in alternatives]]


COMMANDS = [argv for command in _readme_commands() for argv in _variants(command)]


def test_readme_lists_commands() -> None:
    # the manual must keep its command list; an empty list would make the parse test below vacuous
    assert len(COMMANDS) >= 20


@pytest.mark.parametrize("argv", COMMANDS, ids=[" ".join(a)[:60] for a in COMMANDS])
def test_readme_command_parses(argv: list[str]) -> None:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    assert callable(args.handler)
    assert not extra or getattr(args, "forward_extra", False), f"unknown options {extra}"


def test_version_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert re.fullmatch(r"grace \S+\n", capsys.readouterr().out)


def test_missing_output_folder_is_a_coded_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dataset = ROOT.parent / "shared" / "benchmarks" / "paper_traces.json"
    target = tmp_path / "missing" / "deeper" / "r.json"
    code = main(["eval", str(dataset), "--out", str(target)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("error cli.output_folder_missing:")
    assert "Traceback" not in err
    assert not (tmp_path / "missing").exists()  # no folder nobody asked for


def test_rules_validate_runs_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "validate"]) == 0
    assert capsys.readouterr().out.strip()
