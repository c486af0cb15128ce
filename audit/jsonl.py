"""Export and import of sealed records (JSON Lines) and of a head checkpoint (one JSON object).

The records file is the concatenation of ``canonical_json(record) + "\\n"`` in chain order. Reading is
strict: UTF-8, one non-empty line per record, a final newline, no duplicate keys, no NaN/Infinity, and every
line byte-identical to the canonical form of what it parses to. So any changed byte is either a parse error
(``audit.jsonl_invalid``), a non-canonical line (``audit.not_canonical``) or a changed record that
``verify`` rejects. Writes are atomic (temporary file + rename): a crash never leaves half a file.

Export the checkpoint that was stored with the head record at commit time; never mint a new one at export,
that would anchor whatever the store holds now.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from audit.canonical import MAX_DEPTH, canonical_bytes, canonical_bytes_of_plain
from audit.errors import AuditIOError, CanonicalError, ExportFormatError


def dumps_jsonl(records: Iterable[Mapping[str, Any]]) -> bytes:
    return b"".join(canonical_bytes(record) + b"\n" for record in records)


def parse_jsonl(data: bytes) -> list[dict[str, Any]]:
    """Parse a records export; raises ``ExportFormatError`` (with ``line``) on the first bad line."""
    if not data:
        return []
    if not data.endswith(b"\n"):
        raise ExportFormatError("file does not end with a newline (truncated?)", line=data.count(b"\n") + 1)
    records: list[dict[str, Any]] = []
    for number, raw in enumerate(data[:-1].split(b"\n"), start=1):
        value = _parse_object(raw, number)
        if not _plainly_canonical(value, raw):  # the full check decides, and names what is wrong
            try:
                canonical = canonical_bytes(value)
            except CanonicalError as exc:
                raise ExportFormatError(f"line has no canonical form ({exc.code})", line=number) from exc
            if canonical != raw:
                raise ExportFormatError("line is not in canonical JSON form", code="audit.not_canonical", line=number)
        records.append(value)
    return records


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_NOT_BRACKET = re.compile(rb"[^\[\]{}]+")


def _plainly_canonical(value: dict[str, Any], raw: bytes) -> bool:
    """True only when ``raw`` is certainly what ``canonical_bytes(value)`` returns, found without its walk.

    ``value`` is what ``json.loads`` made of ``raw``: plain JSON, for which ``canonical_bytes`` is
    ``canonical_bytes_of_plain`` unless it raises (a non-finite number or a lone surrogate, which make the plain
    encoder raise too, or nesting deeper than MAX_DEPTH, checked here on the brackets outside strings). Whenever
    this answers False the caller runs the full check, so every error is still the full check's.
    """
    try:
        if canonical_bytes_of_plain(value) != raw:
            return False
    except ValueError:  # out-of-range float; UnicodeEncodeError (a lone surrogate) is a ValueError too
        return False
    if raw.count(b"[") + raw.count(b"{") <= MAX_DEPTH:
        return True
    depth = 0
    for byte in _NOT_BRACKET.sub(b"", _STRING.sub(b"", raw)):
        depth += 1 if byte in b"[{" else -1
        if depth > MAX_DEPTH:
            return False
    return True


def write_jsonl(path: Path, records: Iterable[Mapping[str, Any]]) -> None:
    _atomic_write(path, dumps_jsonl(records))


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return parse_jsonl(_read(path))


def write_checkpoint(path: Path, checkpoint: Mapping[str, Any]) -> None:
    _atomic_write(path, canonical_bytes(checkpoint) + b"\n")


def read_checkpoint(path: Path) -> dict[str, Any]:
    """Read a checkpoint file (any JSON layout; its MAC, not its bytes, is what ``verify`` checks)."""
    return _parse_object(_read(path).strip(), 1)


def _parse_object(raw: bytes, line: int) -> dict[str, Any]:
    if not raw:
        raise ExportFormatError("empty line", line=line)
    try:
        value = json.loads(raw.decode("utf-8"), object_pairs_hook=_reject_duplicates, parse_constant=_reject_constant)
    except UnicodeDecodeError as exc:
        raise ExportFormatError("line is not valid UTF-8", line=line) from exc
    except ValueError as exc:  # JSONDecodeError, duplicate keys, NaN/Infinity
        raise ExportFormatError(f"line is not valid JSON ({str(exc).splitlines()[0]})", line=line) from exc
    if not isinstance(value, dict):
        raise ExportFormatError("line is not a JSON object", line=line)
    return value


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):  # only then look for the first repeated key, to name it
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"duplicate key {key!r}")
            seen.add(key)
    return out


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise AuditIOError(f"cannot read {path}", code="audit.io.read_failed") from exc


def _atomic_write(path: Path, data: bytes) -> None:
    tmp_name: str | None = None
    try:
        with tempfile.NamedTemporaryFile("wb", dir=path.parent, prefix=f".{path.name}.", delete=False) as handle:
            tmp_name = handle.name
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except OSError as exc:
        if tmp_name is not None:
            Path(tmp_name).unlink(missing_ok=True)
        raise AuditIOError(f"cannot write {path}", code="audit.io.write_failed") from exc
