"""``grace chat``: a terminal conversation on embedded defaults, showing state and witnesses after each turn."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from engine.goals.publication import load_published
from engine.kernel.turn import TurnRuntime
from engine.kernel.turn_outcome import TurnOutcome
from engine.runtimes import demo_runtime, embedded_answerer, offline_runtime


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    chat = sub.add_parser("chat", help="talk to a published goal spec in the terminal")
    source = chat.add_mutually_exclusive_group(required=True)
    source.add_argument("--demo", help="demo company: real-estate, cleaning or pantry-helpline")
    source.add_argument("--spec", type=Path, help="a published goal spec file (…/published/<id>/vN.json)")
    chat.add_argument("--corpus", type=Path,
                      help="company documents folder for grounded answers (with --spec); the same plain folder "
                           "`grace compile --corpus` reads: a corpus.json manifest is optional (needed only to "
                           "declare CSV/JSON record files)")
    chat.add_argument("--language", help="conversation language (default: the spec's)")
    chat.add_argument("--no-answers", action="store_true", help="skip retrieval (no grounded answers)")
    chat.add_argument("--llm", metavar="PROVIDER",
                      help="use an LLM provider from rules/llm.json (mistral, vllm, ollama, llamacpp) for proposing, "
                           "rating and modulating, with the offline roles as fallback")
    chat.add_argument("--llm-base-url", help="override the provider's base_url (e.g. http://127.0.0.1:8080/v1)")
    chat.add_argument("--llm-model", help="override the provider's model name")
    chat.set_defaults(handler=_chat)


def _witnesses(runtime: TurnRuntime, result: TurnOutcome, text: str) -> list[str]:
    lines = []
    for candidate in result.record["candidates"]:
        command: dict[str, Any] = candidate["command"]
        witness = candidate.get("witness")
        if command.get("type") not in ("complete", "correct", "refuse", "stop", "uncertain", "resume"):
            continue
        quote = text[witness["start"]:witness["end"]] if witness and witness["turn"] == result.turn else "?"
        verdict = "accepted" if candidate["accepted"] else f"rejected: {candidate['reason_code']}"
        if candidate.get("validator_code"):
            verdict += f" ({candidate['validator_code']})"
        lines.append(f"    {command['type']:9} {command.get('objective') or '-':14} «{quote}»  {verdict}")
    return lines


def _answer_lines(result: TurnOutcome) -> list[str]:
    """The graded reply, each tier marked: an answer with its sources; a related section's frame, its verbatim
    sentences as quotes and the other sections as links; the no-information reply."""
    answer = result.answer
    if answer.kind == "related":
        lines = [f"grace> [related] {answer.frame}\n"]
        lines += [f"         “{c.quote}”\n" for c in answer.citations]
        lines += [f"         [{ref}]\n" for ref in dict.fromkeys(c.shown() for c in answer.citations)]
        lines += [f"         see also: [{c.shown()}]\n" for c in answer.links]
        if answer.unanswered:
            lines.append(f"       {answer.unanswered}\n")
        return lines
    mark = "[answer] " if answer.kind == "answer" else "[no information] " if answer.is_question else ""
    lines = [f"grace> {mark}{answer.text}\n"]
    lines += [f"         [{ref}]\n" for ref in dict.fromkeys(c.shown() for c in answer.citations)]
    return lines


def run_chat(runtime: TurnRuntime, language: str | None, stdin: TextIO, stdout: TextIO) -> int:
    state = runtime.start(language=language)
    names = [o.id for o in runtime.spec.spec.ordered()]
    stdout.write(f"GRACE chat — {runtime.spec.ref} — objectives {', '.join(names)}. Empty line or Ctrl-D ends.\n")
    while True:
        stdout.write("you> ")
        stdout.flush()
        line = stdin.readline()
        if not line or not line.strip():
            break
        result = runtime.handle(state.conversation_id, line.strip())
        visitor_text = runtime.store.load(state.conversation_id).visitor_message(result.turn)
        if result.answer.text:
            stdout.writelines(_answer_lines(result))
        if result.notice:
            stdout.write(f"grace> {result.notice}\n")
        if result.question:
            stdout.write(f"grace> {result.question}\n")
        elif result.pending:
            stdout.write(f"grace> {result.pending}\n")
        elif not result.closing:
            stdout.write("grace> (no question)\n")
        if result.closing:
            stdout.write("".join(f"grace> {line}\n" for line in result.closing.splitlines() if line.strip()))
        stdout.write(f"  state {result.state}  action {result.action}"
                     f"{'  FAIL-CLOSED ' + result.fail_closed if result.fail_closed else ''}\n")
        shown = visitor_text.text if visitor_text else ""
        stdout.writelines(line + "\n" for line in _witnesses(runtime, result, shown))
    return 0


def _chat(args: argparse.Namespace) -> int:
    roles = None
    if args.llm:
        from llm_adapters.wiring import provider_roles

        roles = provider_roles(args.llm, base_url=args.llm_base_url, model=args.llm_model)
    if args.demo:
        _, runtime = demo_runtime(args.demo, with_answerer=not args.no_answers, roles=roles)
    else:
        spec = load_published(args.spec)
        answerer = (embedded_answerer(args.corpus, spec=spec) if args.corpus and not args.no_answers else None)
        runtime = offline_runtime(spec, answerer=answerer, roles=roles)
    return run_chat(runtime, args.language, sys.stdin, sys.stdout)
