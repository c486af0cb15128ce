"""JSON Lines export/import: exact round trip, strict parsing, atomic writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit.chain import verify
from audit.errors import AuditIOError, ExportFormatError
from audit.jsonl import dumps_jsonl, parse_jsonl, read_checkpoint, read_jsonl, write_checkpoint, write_jsonl
from tests.audit.factory import KEY, head_checkpoint, make_chain


def test_round_trip(tmp_path: Path) -> None:
    records = make_chain(3)
    cp = head_checkpoint(records)
    write_jsonl(tmp_path / "records.jsonl", records)
    write_checkpoint(tmp_path / "head.json", cp)
    loaded = read_jsonl(tmp_path / "records.jsonl")
    assert loaded == records
    assert read_checkpoint(tmp_path / "head.json") == cp
    assert verify(loaded, read_checkpoint(tmp_path / "head.json"), KEY).ok
    assert (tmp_path / "records.jsonl").read_bytes() == dumps_jsonl(records)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["head.json", "records.jsonl"]  # no temp files left


def test_one_line_per_record() -> None:
    data = dumps_jsonl(make_chain(3))
    assert data.count(b"\n") == 3 and data.endswith(b"\n")
    assert parse_jsonl(b"") == []


def test_checkpoint_file_may_be_pretty_printed(tmp_path: Path) -> None:
    records = make_chain(1)
    cp = head_checkpoint(records)
    (tmp_path / "cp.json").write_text(json.dumps(cp, indent=2) + "\n\n", encoding="utf-8")
    assert read_checkpoint(tmp_path / "cp.json") == cp


@pytest.mark.parametrize(
    ("mutate", "code", "line"),
    [
        (lambda d: d[:-1], "audit.jsonl_invalid", 3),  # no final newline
        (lambda d: d + b"\n", "audit.jsonl_invalid", 4),  # blank line
        (lambda d: d.replace(b"\n", b"\r\n", 1), "audit.not_canonical", 1),
        (lambda d: d.replace(b'{"answer"', b'{ "answer"', 1), "audit.not_canonical", 1),
        (lambda d: d.replace(b'"turn":1', b'"turn":1.00', 1), "audit.not_canonical", 1),
        (lambda d: d.replace(b'"turn":1', b'"turn":1e0', 1), "audit.not_canonical", 1),
        (lambda d: d.replace(b'"turn":1', b'"turn":NaN', 1), "audit.jsonl_invalid", 1),
        (lambda d: d.replace(b'"turn":1', b'"turn":1,"turn":1', 1), "audit.jsonl_invalid", 1),
        (lambda d: d + b"[1]\n", "audit.jsonl_invalid", 4),
        (lambda d: d + b"\xff\n", "audit.jsonl_invalid", 4),
        (lambda d: d + b'{"a":1e999}\n', "audit.jsonl_invalid", 4),
        (lambda d: d + b'{"a":"\\ud800"}\n', "audit.jsonl_invalid", 4),
        (lambda d: d + b'{"b":1,"a":2}\n', "audit.not_canonical", 4),
    ],
)
def test_strict_parsing(mutate: object, code: str, line: int) -> None:
    data = dumps_jsonl(make_chain(3))
    with pytest.raises(ExportFormatError) as info:
        parse_jsonl(mutate(data))  # type: ignore[operator]
    assert (info.value.code, info.value.line) == (code, line)


def test_canonical_but_changed_line_is_left_to_verify() -> None:
    records = make_chain(2)
    data = dumps_jsonl(records).replace(b'"turn":1', b'"turn":1.0', 1)  # int -> float: still canonical
    loaded = parse_jsonl(data)
    assert verify(loaded).code == "audit.hash_mismatch"


def test_io_errors(tmp_path: Path) -> None:
    with pytest.raises(AuditIOError) as info:
        read_jsonl(tmp_path / "missing.jsonl")
    assert info.value.code == "audit.io.read_failed"
    with pytest.raises(AuditIOError) as info:
        write_jsonl(tmp_path / "no-such-dir" / "x.jsonl", make_chain(1))
    assert info.value.code == "audit.io.write_failed"


def test_failed_write_keeps_previous_file(tmp_path: Path) -> None:
    target = tmp_path / "records.jsonl"
    write_jsonl(target, make_chain(1))
    before = target.read_bytes()
    with pytest.raises(Exception):  # noqa: B017 - any failure while serialising
        write_jsonl(target, [{"bad": float("nan")}])
    assert target.read_bytes() == before
