"""``grace compile``: a manager's plain intent -> candidate goal spec JSON (paper Algorithm 1, steps 1-4).

Offline by default (deterministic compiler); ``--llm PROVIDER`` uses an Instructor adapter configured in
rules/llm.json. The candidate carries its company data (locale, vocabularies) and is written atomically; it
still needs review, ``grace goals validate`` and ``grace goals approve``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine.compiler.compiler_rules import DEFAULT_RULES_DIR, load_compiler_rules, load_governance_rules
from engine.compiler.deterministic import DeterministicCompiler
from engine.compiler.errors import CompileError
from engine.compiler.language import detect_language
from engine.compiler.model import CompileInput, CompileOutcome, GoalCompiler
from engine.compiler.review import review_text
from engine.output_files import write_json_atomic


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("compile", help="compile a manager intent into a candidate goal spec")
    intent = parser.add_mutually_exclusive_group(required=True)
    intent.add_argument("--intent", help="the manager's intent, as text")
    intent.add_argument("--intent-file", type=Path, help="a UTF-8 file holding the manager's intent")
    parser.add_argument("--language", default=None,
                        help="language of the intent (en|es|fr; default: the language it is written in)")
    parser.add_argument("--languages", default=None,
                        help="comma-separated languages for canonical questions (default: all supported)")
    parser.add_argument("--corpus", type=Path, default=None, help="company corpus folder to derive vocabularies")
    parser.add_argument("--out", type=Path, required=True, help="where to write the candidate spec JSON")
    parser.add_argument("--vocab-out", type=Path, default=None,
                        help="also export the spec's vocabularies as files to this folder (they travel in the spec)")
    parser.add_argument("--id", dest="spec_id", default=None, help="goal spec id (default: derived from intent)")
    parser.add_argument("--title", default=None)
    parser.add_argument("--currency", default=None,
                        help="ISO 4217 currency for money objectives (default: what the intent or corpus says)")
    parser.add_argument("--phone-region", "--region", dest="phone_region", default=None,
                        help="ISO 3166 region for phone numbers, e.g. US (default: what the intent or corpus says)")
    parser.add_argument("--time-zone", default=None,
                        help="IANA time zone for dates, e.g. America/Chicago (default: what the intent or corpus says)")
    parser.add_argument("--rules", type=Path, default=DEFAULT_RULES_DIR, help="rules folder")
    parser.add_argument("--llm", default=None,
                        help="compile with an LLM provider named in rules/llm.json (default: offline)")
    parser.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    parser.set_defaults(handler=run)


def _intent_text(args: argparse.Namespace) -> str:
    """``--intent`` is always the text itself; ``--intent-file`` is always a file."""
    if args.intent_file is None:
        return str(args.intent)
    path: Path = args.intent_file
    if not path.is_file():
        raise CompileError(f"intent file {path} does not exist", code="compile.intent_file_missing")
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CompileError(f"intent file {path} is not readable UTF-8 text", code="compile.intent_unreadable") from exc


def output_folder(path: Path, code: str) -> None:
    """Create the folder of an output file when only that last folder is missing; a deeper missing path is
    more likely a typo than a wish, so it is a coded error."""
    folder = path.parent
    if folder.is_dir():
        return
    if folder.exists():
        raise CompileError(f"{folder} is not a folder", code=code)
    if not folder.parent.is_dir():
        raise CompileError(f"folder {folder.parent} does not exist; create it first", code=code)
    folder.mkdir()


def _writing_language(args: argparse.Namespace, language: str) -> str:
    """The language the candidate's questions are first written in. An intent in a language the conversation
    engine understands (rules/patterns/<lang>.json, e.g. French) but the compiler cannot yet write questions in is
    accepted: its objectives are found with the keywords of every language, the questions are written in the
    compiler's first language, and a note says what to add to offer that language to visitors."""
    writable = load_compiler_rules(args.rules).languages
    if language in writable or not (args.rules / "patterns" / f"{language}.json").is_file():
        return language  # writable, or unknown everywhere: the compiler's own check reports it
    first = writable[0] if writable else "en"
    print(f"note: the intent is read as {language}; the compiler writes questions in {', '.join(writable)} "
          f"only, so the candidate's questions are in {first}: add question.{language} and "
          f"labels.{language} to each objective and '{language}' to languages before "
          f"`grace goals validate` to offer {language} to visitors", file=sys.stderr)
    return first


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




def write_outcome(outcome: CompileOutcome, out: Path, vocab_out: Path | None) -> list[Path]:
    """Write the spec (its vocabularies inside); optionally export the vocabularies as files too."""
    written: list[Path] = []
    if vocab_out is not None and outcome.vocabularies:
        output_folder(vocab_out / "x.json", "compile.output_folder_missing")
        for vocab_id, body in sorted(outcome.vocabularies.items()):
            target = vocab_out / f"{vocab_id}.json"
            write_json_atomic(target, body)
            written.append(target)
    write_json_atomic(out, outcome.spec.model_dump(mode="json", exclude_none=False))
    written.append(out)
    return written


def run(args: argparse.Namespace) -> int:
    if args.out.exists() and not args.force:
        raise CompileError(f"{args.out} exists; pass --force to overwrite it", code="compile.output_exists")
    if args.out.is_dir():
        raise CompileError(f"{args.out} is a folder; give a file name", code="compile.output_invalid")
    languages = [lang.strip() for lang in args.languages.split(",") if lang.strip()] if args.languages else None
    text = _intent_text(args)
    language, language_note = args.language, None
    if language is None:
        detected = detect_language(text, load_compiler_rules(args.rules))
        language, language_note = detected.language, detected.note()
    language = _writing_language(args, language)
    try:
        request = CompileInput(
            intent=text,
            language=language,
            languages=languages,
            spec_id=args.spec_id,
            title=args.title,
            corpus_dir=args.corpus,
            currency=args.currency,
            phone_region=args.phone_region,
            time_zone=args.time_zone,
        )
        outcome = _compiler(args).compile(request)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"]) or "(top)"
        raise CompileError(f"{where}: {error['msg']}", code="compile.input_invalid") from exc
    output_folder(args.out, "compile.output_folder_missing")
    written = write_outcome(outcome, args.out, args.vocab_out)
    print(review_text(outcome, load_compiler_rules(args.rules), language_note=language_note))
    summary = ", ".join(f"{o.id}={o.weight}" for o in outcome.spec.ordered())
    print(f"wrote {args.out} ({outcome.compiler}): {summary}")
    locale = outcome.spec.locale
    if locale is not None:
        print(f"locale: currency={locale.currency} phone_region={locale.phone_region} time_zone={locale.time_zone}")
    print(f"languages: {', '.join(outcome.spec.languages)}; vocabularies in the spec: "
          f"{', '.join(outcome.spec.vocabularies) or 'none'}")
    for path in written[:-1]:
        print(f"wrote vocabulary {path}")
    return 0
