"""``grace audit verify``: OK / FAIL with a code, exit codes, key handling that never prints the key."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from audit.jsonl import write_checkpoint, write_jsonl
from engine.cli.audit import register
from engine.errors import GraceError
from tests.audit.factory import KEY, OTHER_KEY, deep, head_checkpoint, make_chain

KEY_TEXT = KEY.decode()


def run(argv: Sequence[str]) -> int:
    """Mirror of engine.cli.main for the audit group alone (GraceError -> exit 2)."""
    parser = argparse.ArgumentParser(prog="grace")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(list(argv))
    try:
        return int(args.handler(args))
    except GraceError as exc:
        print(f"error {exc.code}: {exc.message}")
        return 2


@pytest.fixture
def export(tmp_path: Path) -> tuple[Path, Path]:
    records = make_chain(3)
    write_jsonl(tmp_path / "records.jsonl", records)
    write_checkpoint(tmp_path / "head.json", head_checkpoint(records))
    return tmp_path / "records.jsonl", tmp_path / "head.json"


def test_ok_with_checkpoint(
    export: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GRACE_AUDIT_KEY", KEY_TEXT)
    assert run(["audit", "verify", str(export[0]), "--checkpoint", str(export[1])]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("OK 3 records conversation=conv-1 head_seq=2")
    assert "anchored_seq=2" in out.out
    assert KEY_TEXT not in out.out + out.err


def test_records_without_checkpoint_fail(export: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["audit", "verify", str(export[0])]) == 1
    assert capsys.readouterr().out.startswith("FAIL audit.checkpoint_missing:")


def test_no_checkpoint_opt_out_warns(export: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["audit", "verify", str(export[0]), "--no-checkpoint"]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("OK 3 records") and "anchored_seq=none" in out.out
    assert "no checkpoint" in out.err


@pytest.mark.parametrize("extra", [[], ["--no-checkpoint"], ["--checkpoint", "CP"]])
def test_unset_key_env_never_prints_ok(
    export: tuple[Path, Path], extra: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("GRACE_TEST_UNSET_KEY", raising=False)
    monkeypatch.setenv("GRACE_AUDIT_KEY", KEY_TEXT)  # a usable default must not rescue a mistyped variable
    args = [str(export[1]) if a == "CP" else a for a in extra]
    code = run(["audit", "verify", str(export[0]), *args, "--key-env", "GRACE_TEST_UNSET_KEY"])
    out = capsys.readouterr().out
    assert code == 2 and "error audit.key.missing" in out and "OK" not in out


def test_tampered_record_fails(export: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    records = [json.loads(line) for line in export[0].read_text(encoding="utf-8").splitlines()]
    edited = deep(records)
    edited[1]["question"] = "edited"
    write_jsonl(export[0], edited)
    assert run(["audit", "verify", str(export[0]), "--no-checkpoint"]) == 1
    assert capsys.readouterr().out.strip() == "FAIL audit.hash_mismatch seq=1: record content does not match its hash"


def test_truncated_tail_fails(export: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = export[0].read_bytes().splitlines(keepends=True)
    export[0].write_bytes(b"".join(lines[:2]))
    key_file = tmp_path / "audit.key"
    key_file.write_text(KEY_TEXT + "\n", encoding="utf-8")
    code = run(["audit", "verify", str(export[0]), "--checkpoint", str(export[1]), "--key-file", str(key_file)])
    assert code == 1
    assert capsys.readouterr().out.startswith("FAIL audit.truncated seq=2:")


def test_wrong_key_fails(
    export: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OTHER_ENV", "hex:" + OTHER_KEY.hex())
    assert run(["audit", "verify", str(export[0]), "--checkpoint", str(export[1]), "--key-env", "OTHER_ENV"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("FAIL audit.checkpoint_mac_invalid")
    assert OTHER_KEY.hex() not in out


def test_missing_key_is_a_usage_error(
    export: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("GRACE_AUDIT_KEY", raising=False)
    assert run(["audit", "verify", str(export[0]), "--checkpoint", str(export[1])]) == 2
    assert "audit.key.missing" in capsys.readouterr().out


def test_short_key_is_refused_without_echo(
    export: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GRACE_AUDIT_KEY", "tiny-secret")
    assert run(["audit", "verify", str(export[0]), "--checkpoint", str(export[1])]) == 2
    out = capsys.readouterr().out
    assert "audit.key.too_short" in out and "tiny-secret" not in out


def test_malformed_file_fails_with_line(export: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    data = export[0].read_bytes()
    export[0].write_bytes(data.replace(b'{"answer"', b'{ "answer"', 1))
    assert run(["audit", "verify", str(export[0])]) == 1
    assert capsys.readouterr().out.startswith("FAIL audit.not_canonical line=1:")


def test_missing_file_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["audit", "verify", str(tmp_path / "absent.jsonl")]) == 2
    assert "audit.io.read_failed" in capsys.readouterr().out


def test_key_formats() -> None:
    from audit.errors import AuditKeyError
    from audit.keys import key_from_env, parse_key

    assert parse_key("hex:" + KEY.hex()) == KEY
    assert parse_key("base64:" + __import__("base64").b64encode(KEY).decode().rstrip("=")) == KEY
    assert parse_key(f"  {KEY_TEXT}\n") == KEY
    for bad, code in [("hex:zz" + "00" * 16, "audit.key.malformed"), ("base64:***", "audit.key.malformed")]:
        with pytest.raises(AuditKeyError) as info:
            parse_key(bad)
        assert info.value.code == code and bad not in info.value.message
    with pytest.raises(AuditKeyError) as info:
        key_from_env("X", environ={"X": "   "})
    assert info.value.code == "audit.key.missing"
