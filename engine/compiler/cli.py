"""``grace compile``: a manager's plain intent -> candidate goal spec JSON (paper Algorithm 1, steps 1-4).

Offline by default (deterministic keyword compiler); ``--llm PROVIDER`` uses an Instructor adapter configured
in rules/llm.json. The candidate is written atomically; it still needs human approval and publication.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine.compiler.deterministic import DeterministicCompiler
from engine.compiler.errors import CompileError
from engine.compiler.model import CompileInput, CompileOutcome, GoalCompiler
from engine.compiler.rules import DEFAULT_RULES_DIR, load_compiler_rules, load_governance_rules


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("compile", help="compile a manager intent into a candidate goal spec")
    parser.add_argument("--intent", required=True, help="intent text, or a path to a UTF-8 file holding it")
    parser.add_argument("--language", default="en", help="language of the intent (en|es)")
    parser.add_argument("--languages", default=None,
                        help="comma-separated languages for canonical questions (default: all supported)")
    parser.add_argument("--corpus", type=Path, default=None, help="company corpus folder to derive vocabularies")
    parser.add_argument("--out", type=Path, required=True, help="where to write the candidate spec JSON")
    parser.add_argument("--vocab-out", type=Path, default=None,
                        help="folder for derived vocabulary files (default: <out stem>.vocabularies/ beside --out)")
    parser.add_argument("--id", dest="spec_id", default=None, help="goal spec id (default: derived from intent)")
    parser.add_argument("--title", default=None)
    parser.add_argument("--currency", default=None, help="ISO currency for money criteria (default from rules)")
    parser.add_argument("--region", default=None, help="default phone region (default from rules)")
    parser.add_argument("--rules", type=Path, default=DEFAULT_RULES_DIR, help="rules folder")
    parser.add_argument("--llm", default=None,
                        help="compile with an LLM provider named in rules/llm.json (default: offline)")
    parser.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    parser.set_defaults(handler=run)


def _intent_text(value: str) -> str:
    path = Path(value)
    try:
        if len(value) < 4096 and path.is_file():
            return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CompileError(f"intent file {value} is not readable UTF-8 text", code="compile.intent_unreadable") from exc
    return value


def _compiler(args: argparse.Namespace) -> GoalCompiler:
    rules = load_compiler_rules(args.rules)
    governance = load_governance_rules(args.rules)
    if not args.llm:
        return DeterministicCompiler(rules, governance)
    # Imported lazily: the offline path must not need any LLM client installed or configured.
    from llm_adapters.compiler import LLMGoalCompiler
    from llm_adapters.config import load_llm_settings
    from llm_adapters.factory import adapter_from_settings

    settings = load_llm_settings(args.rules, provider=args.llm)
    return LLMGoalCompiler(adapter_from_settings(settings), rules, governance)


def _write_json_atomic(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, ensure_ascii=False, indent=2)
            handle.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_outcome(outcome: CompileOutcome, out: Path, vocab_out: Path | None) -> list[Path]:
    """Write vocabularies first, the spec last: a present spec always has its vocabularies beside it."""
    written: list[Path] = []
    if outcome.vocabularies:
        folder = vocab_out or out.with_name(f"{out.stem}.vocabularies")
        for vocab_id, body in sorted(outcome.vocabularies.items()):
            target = folder / f"{vocab_id}.json"
            _write_json_atomic(target, body)
            written.append(target)
    _write_json_atomic(out, outcome.spec.model_dump(mode="json"))
    written.append(out)
    return written


def run(args: argparse.Namespace) -> int:
    if args.out.exists() and not args.force:
        raise CompileError(f"{args.out} exists; pass --force to overwrite it", code="compile.output_exists")
    languages = [lang.strip() for lang in args.languages.split(",") if lang.strip()] if args.languages else None
    try:
        request = CompileInput(
            intent=_intent_text(args.intent),
            language=args.language,
            languages=languages,
            spec_id=args.spec_id,
            title=args.title,
            corpus_dir=args.corpus,
            currency=args.currency,
            phone_region=args.region,
        )
        outcome = _compiler(args).compile(request)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"]) or "(top)"
        raise CompileError(f"{where}: {error['msg']}", code="compile.input_invalid") from exc
    written = write_outcome(outcome, args.out, args.vocab_out)
    for note in outcome.notes:
        print(f"note: {note}", file=sys.stderr)
    summary = ", ".join(f"{o.id}={o.weight}" for o in outcome.spec.ordered())
    print(f"wrote {args.out} ({outcome.compiler}): {summary}")
    for path in written[:-1]:
        print(f"wrote vocabulary {path}")
    return 0
