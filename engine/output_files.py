"""All-or-nothing output files for the command line: a missing folder is a coded error, never a traceback,
and a failed write never leaves a half-written file or a folder nobody asked for."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from engine.errors import InputError


def check_output_folder(path: Path) -> None:
    """The folder of an output file must already exist: creating it would hide a typo in the path."""
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        reason = "is not a folder" if folder.exists() else "does not exist; create it first"
        raise InputError(f"cannot write {path}: folder {folder} {reason}", code="cli.output_folder_missing")
    if path.is_dir():
        raise InputError(f"cannot write {path}: it is a folder", code="cli.output_is_folder")


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder, replaced in one step."""
    check_output_folder(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent if str(path.parent) else ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise InputError(f"cannot write {path}: {exc.strerror or exc}", code="cli.output_unwritable") from exc
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json_atomic(path: Path, data: Any, *, indent: int = 2) -> None:
    write_text_atomic(path, json.dumps(data, indent=indent, ensure_ascii=False) + "\n")
