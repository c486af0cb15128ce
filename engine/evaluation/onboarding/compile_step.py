"""Compile a written intent the way a new user would: the ``grace compile`` command's own code path.

The first attempt passes only ``--intent`` and ``--language``. When compile stops with ``compile.locale_missing``
or ``compile.locale_ambiguous`` (it names the flags it needs), the new user — a US company, as SGD's services
are, unless the caller gives the company's own answers — passes exactly the flags it named, with its values
(``US_FLAGS``), and compiles again. Nothing else is ever added and the candidate is never
edited. A compile that still fails is a failure of every slot of the service (the benchmark counts it).
"""

from __future__ import annotations

import argparse
import io
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path

from engine.cli.compile import register
from engine.errors import GraceError
from engine.kernel.goal_models import GoalSpec

# What a US company answers when compile asks for a locale flag (a time zone a US company would give first).
US_FLAGS = {"--currency": "USD", "--phone-region": "US", "--time-zone": "America/New_York"}


@dataclass(frozen=True)
class Compiled:
    spec: GoalSpec | None  # None: compile failed
    spec_path: Path | None
    flags: tuple[str, ...]  # the locale flags passed after compile asked for them
    output: str  # what compile printed (the manager's review), stdout then stderr
    error_code: str | None = None
    error: str | None = None
    attempts: list[str] = field(default_factory=list)  # error codes of earlier attempts

    @property
    def ok(self) -> bool:
        return self.spec is not None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="grace")
    register(parser.add_subparsers(dest="command", required=True))
    return parser


def _attempt(argv: list[str]) -> tuple[str, GraceError | None]:
    args = _parser().parse_args(argv)
    out, err = io.StringIO(), io.StringIO()
    try:
        with redirect_stdout(out), redirect_stderr(err):
            args.handler(args)
    except GraceError as exc:
        return out.getvalue() + err.getvalue(), exc
    return out.getvalue() + err.getvalue(), None


def named_flags(message: str) -> list[str]:
    """The locale flags a ``compile.locale_missing`` message asks for, in ``US_FLAGS`` order."""
    return [flag for flag in US_FLAGS if flag in message]


# Codes with which compile asks the user for locale flags (a missing locale, or a place in several countries).
ASKS_FOR_FLAGS = ("compile.locale_missing", "compile.locale_ambiguous")


def compile_intent(intent: str, language: str, spec_id: str, folder: Path, rules: Path | None = None,
                   language_flag: bool = True, answers: dict[str, str] | None = None,
                   corpus: Path | None = None) -> Compiled:
    """``language_flag``: pass ``--language`` (a new user who names the intent's language) or leave it out.
    ``answers``: the value the company gives for each locale flag compile may ask for (default ``US_FLAGS``).
    ``corpus``: the company's documents folder, passed as ``--corpus`` (a new user who has documents gives them)."""
    given = US_FLAGS if answers is None else answers
    out = folder / f"{spec_id}.json"
    base = ["compile", "--intent", intent, "--id", spec_id, "--out", str(out), "--force"]
    if language_flag:
        base += ["--language", language]
    if rules is not None:
        base += ["--rules", str(rules)]
    if corpus is not None:
        base += ["--corpus", str(corpus)]
    flags: list[str] = []
    attempts: list[str] = []
    output, error = _attempt(base)
    if error is not None and error.code in ASKS_FOR_FLAGS:
        attempts.append(error.code)
        flags = [flag for flag in named_flags(error.message) if flag in given]
        output, error = _attempt(base + [part for flag in flags for part in (flag, given[flag])])
    if error is not None:
        return Compiled(None, None, tuple(flags), output, error.code, error.message, attempts)
    spec = GoalSpec.model_validate_json(out.read_bytes())
    return Compiled(spec, out, tuple(flags), output, attempts=attempts)


def scratch_folder() -> Path:
    return Path(tempfile.mkdtemp(prefix="grace-onboarding-"))
