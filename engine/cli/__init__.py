"""The ``grace`` command line. Each command group lives beside the code it drives and registers itself here."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from engine.errors import GraceError

# (module, function) pairs; each function adds its sub-commands to the parser it is given.
_GROUPS: tuple[tuple[str, str], ...] = (
    ("engine.goals.cli", "register"),
    ("engine.cli.rules", "register"),
    ("engine.cli.chat", "register"),
    ("engine.cli.bench", "register"),
    ("engine.evaluation.cli", "register"),
    ("engine.directory.cli", "register"),
    ("engine.compiler.cli", "register"),
    ("engine.service.cli", "register"),
    ("engine.storage.cli", "register"),
    ("audit.cli", "register"),
    ("engine.leads.cli", "register"),
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="grace", description="GRACE goal-oriented conversation engine")
    parser.add_argument("--version", action="version", version=f"grace {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    for module_name, function_name in _GROUPS:
        getattr(importlib.import_module(module_name), function_name)(sub)
    return parser


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("grace-engine")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "unknown"


class _CurrentStderr:
    """Writes to whatever ``sys.stderr`` is at write time (test runners and servers swap it)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def _configure_logging() -> None:
    """JSON logs on stderr with contact data redacted; warnings by default, GRACE_LOG_LEVEL=info|debug for more."""
    from audit.logging import configure_logging

    configure_logging(redaction_key=None, level=os.environ.get("GRACE_LOG_LEVEL", "warning"),
                      stream=_CurrentStderr())  # type: ignore[arg-type]


def main(argv: Sequence[str] | None = None) -> int:
    _configure_logging()
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        if not getattr(args, "forward_extra", False):
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        args.args = [*getattr(args, "args", []), *extra]  # options of a forwarded benchmark's own parser
    try:
        result: int = args.handler(args)
    except GraceError as exc:
        print(f"error {exc.code}: {exc.message}", file=sys.stderr)
        return 2
    except OSError as exc:  # a file the command needed could not be read or written: one line, no traceback
        where = f" ({exc.filename})" if exc.filename else ""
        print(f"error io.failed: {exc.strerror or exc}{where}", file=sys.stderr)
        return 2
    return result


if __name__ == "__main__":
    raise SystemExit(main())
