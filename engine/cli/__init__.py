"""The ``grace`` command line. Each command group lives beside the code it drives and registers itself here."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from engine.errors import GraceError

# command -> (module, function); the function adds that command (and its sub-commands) to the parser it is given.
# Named here so that a run imports only its own command's module: importing all of them costs about 0.6 s per
# process, which every server worker, restart and scripted call would pay (tests/core/test_cli_groups.py keeps
# these names equal to what each module registers).
COMMANDS: dict[str, tuple[str, str]] = {
    "goals": ("engine.cli.goals", "register"),
    "rules": ("engine.cli.rules", "register"),
    "chat": ("engine.cli.chat", "register"),
    "bench": ("engine.cli.bench", "register"),
    "eval": ("engine.evaluation.cli", "register"),
    "trace": ("engine.cli.trace", "register"),
    "compile": ("engine.cli.compile", "register"),
    "serve": ("engine.service.cli", "register"),
    "conversations": ("engine.cli.conversations", "register"),
    "audit": ("engine.cli.audit", "register"),
    "leads": ("engine.cli.leads", "register"),
    "analytics": ("engine.cli.analytics", "register"),
}


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole parser, or, when ``argv`` starts with a known command, a parser holding only that command (the
    same sub-parser, so parsing and help for it are unchanged)."""
    parser = argparse.ArgumentParser(prog="grace", description="GRACE goal-oriented conversation engine")
    parser.add_argument("--version", action="version", version=f"grace {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    first = next(iter(argv), None) if argv is not None else None
    names = [first] if first in COMMANDS else list(COMMANDS)
    for name in names:
        module_name, function_name = COMMANDS[name]
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
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(arguments)
    args, extra = parser.parse_known_args(arguments)
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
