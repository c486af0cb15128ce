"""Traceability of SPEC.md's invariants: where the code enforces each one and which tests exercise it.

Code cites an invariant with a comment or docstring ``INVARIANT (I-6)`` (several: ``INVARIANT (I-5, I-14)``); a test
cites it with the marker ``@pytest.mark.invariant("I-6")`` (or a module-level ``pytestmark``). ``python -m spec.trace``
prints the property table; ``--write`` refreshes it in spec/README.md; ``--check`` exits 1 when an invariant has no
tag or no test, when a tag or marker names an invariant SPEC.md does not define, or when the README table is stale.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "spec" / "SPEC.md"
README = ROOT / "spec" / "README.md"
CODE_ROOTS = ("engine", "audit", "spec", "llm_adapters")
TEST_ROOT = "tests"
BEGIN, END = "<!-- trace:begin -->", "<!-- trace:end -->"

_DEFINITION = re.compile(r"^- \*\*(?P<id>[IT]-\d+) (?P<title>[^*]+?)\.?\*\*", re.MULTILINE)
_TAG = re.compile(r"INVARIANT \((?P<ids>[A-Za-z]-[\w-]+(?:\s*,\s*[A-Za-z]-[\w-]+)*)\)")
_ID = re.compile(r"^[IT]-\d+$")


@dataclass
class Invariant:
    id: str
    title: str
    enforced_at: list[str] = field(default_factory=list)  # "path:line"
    tested_by: list[str] = field(default_factory=list)  # "path::test"


@dataclass
class Trace:
    invariants: dict[str, Invariant]
    unknown: list[str]  # tags or markers naming an invariant SPEC.md does not define

    def problems(self) -> list[str]:
        found = list(self.unknown)
        for inv in self.invariants.values():
            if not inv.enforced_at:
                found.append(f"{inv.id} ({inv.title}) has no INVARIANT tag in {', '.join(CODE_ROOTS)}")
            if not inv.tested_by:
                found.append(f"{inv.id} ({inv.title}) is cited by no test (@pytest.mark.invariant)")
        return found


def definitions(text: str) -> dict[str, Invariant]:
    """The invariants SPEC.md defines, in document order (``- **I-6 Monotonicity (eqs. 10–11).** …``)."""
    return {m["id"]: Invariant(m["id"], m["title"].strip()) for m in _DEFINITION.finditer(text)}


def _ids(raw: str) -> list[str]:
    return [part.strip() for part in raw.split(",")]


def code_tags(root: Path, roots: Sequence[str] = CODE_ROOTS) -> Iterable[tuple[str, str]]:
    """(invariant id, "path:line") for every INVARIANT tag in the code."""
    for top in roots:
        for path in sorted((root / top).rglob("*.py")):
            if ".venv" in path.parts or path == Path(__file__).resolve():
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                for match in _TAG.finditer(line):
                    for ident in _ids(match["ids"]):
                        yield ident, f"{path.relative_to(root)}:{number}"


def _marker_ids(node: ast.expr) -> list[str]:
    """Invariant ids of ``pytest.mark.invariant("I-1", ...)`` calls inside ``node`` (a decorator or pytestmark)."""
    found: list[str] = []
    for call in ast.walk(node):
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "invariant"
                and isinstance(call.func.value, ast.Attribute) and call.func.value.attr == "mark"):
            found += [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    return found


def marker_citations(root: Path, top: str = TEST_ROOT) -> Iterable[tuple[str, str]]:
    """(invariant id, "path::test") for every invariant marker on a test function, class or module."""
    for path in sorted((root / top).rglob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        rel = str(path.relative_to(root))
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark"
                                                    for t in node.targets):
                for ident in _marker_ids(node.value):
                    yield ident, f"{rel}::*"
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                for decorator in node.decorator_list:
                    for ident in _marker_ids(decorator):
                        yield ident, f"{rel}::{node.name}"


def build(root: Path = ROOT) -> Trace:
    invariants = definitions((root / "spec" / "SPEC.md").read_text(encoding="utf-8"))
    unknown: list[str] = []
    for ident, where in code_tags(root):
        if ident in invariants:
            invariants[ident].enforced_at.append(where)
        else:
            unknown.append(f"{where}: INVARIANT tag names {ident!r}, which SPEC.md does not define")
    for ident, where in marker_citations(root):
        if ident in invariants:
            invariants[ident].tested_by.append(where)
        else:
            unknown.append(f"{where}: invariant marker names {ident!r}, which SPEC.md does not define")
    return Trace(invariants, unknown)


def table(trace: Trace) -> str:
    """The property table: one row per invariant, enforcing files and testing modules (no line numbers, so the
    table only changes when the traceability does)."""
    rows = ["| invariant | enforced in | tested by |", "|---|---|---|"]
    for inv in trace.invariants.values():
        files = sorted({where.rsplit(":", 1)[0] for where in inv.enforced_at})
        tests = sorted({where for where in inv.tested_by})
        enforced = "<br>".join(f"`{f}`" for f in files) or "**none**"
        tested = "<br>".join(f"`{t}`" for t in tests) or "**none**"
        rows.append(f"| **{inv.id}** {inv.title} | {enforced} | {tested} |")
    return "\n".join(rows) + "\n"


def _with_table(readme: str, rendered: str) -> str:
    if BEGIN not in readme or END not in readme:
        raise ValueError(f"spec/README.md lacks the {BEGIN} … {END} markers")
    head, rest = readme.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{rendered}{END}{tail}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m spec.trace", description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="refresh the table in spec/README.md")
    parser.add_argument("--check", action="store_true", help="exit 1 on an untraced invariant or a stale table")
    args = parser.parse_args(argv)
    trace = build()
    rendered = table(trace)
    readme = README.read_text(encoding="utf-8")
    updated = _with_table(readme, rendered)
    if args.write and updated != readme:
        README.write_text(updated, encoding="utf-8")
        readme = updated
    problems = trace.problems()
    if updated != readme:
        problems.append("spec/README.md's property table is stale: run python -m spec.trace --write")
    if not args.write and not args.check:
        sys.stdout.write(rendered)
    for problem in problems:
        sys.stderr.write(f"trace: {problem}\n")
    return 1 if (args.check and problems) else 0


if __name__ == "__main__":
    raise SystemExit(main())
